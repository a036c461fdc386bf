/**
 * Failures of a model call as PlatformErrors with the port's codes. Messages name the provider entry, the model
 * id and the HTTP status, never a key, a prompt or the provider's response body.
 *
 * Source: docs/decisions.md D7 § Models; core/ports/model-provider.ts (MODEL_ERROR_CODES).
 */
import { APICallError } from 'ai';
import { PlatformError } from '../../ports/platform-error.ts';

/** Which call failed: `models.offered` id and `models.providers` id. */
export interface CallLabel {
  model: string;
  provider: string;
}

/** The variables scripts/start builds a models section from. */
const START_VARIABLES = 'CAIRN_MODEL_PROVIDER, CAIRN_MODEL_BASE_URL, CAIRN_MODEL_API_KEY and CAIRN_MODEL';

/**
 * `model_not_configured`: the config has no model to offer, or not the one named.
 * @param offered - the offered model ids (empty when no models section or every entry was left out)
 *
 * Source: docs/decisions.md D7 § Models (with no model configured, a turn fails at once saying which variables to set)
 */
export function modelNotConfigured(requested: string | undefined, offered: string[]): PlatformError {
  if (offered.length === 0) {
    return new PlatformError(
      'model_not_configured',
      `No model is configured: set ${START_VARIABLES} before scripts/start, or add a models section ` +
        `(models.providers and models.offered) to the config; an entry whose apiKey placeholder variable is unset is ` +
        `left out (see the [config] lines at start).`,
      { status: 503 },
    );
  }
  return new PlatformError(
    'model_not_configured',
    `Model "${requested}" is not offered: name one of ${
      offered.map((id) => `"${id}"`).join(', ')
    }, or add it to models.offered in the config.`,
    { status: 422 },
  );
}

/** `model_cancelled`: the caller aborted the call. */
export function modelCancelled(label: CallLabel): PlatformError {
  return new PlatformError('model_cancelled', `The call to model "${label.model}" was cancelled before it ended.`, {
    status: 499,
  });
}

/**
 * Maps an error of the `ai` package (or of fetch) to a PlatformError.
 * @param aborted - whether the caller's signal is aborted (then the error is the cancellation)
 *
 * Source: core/ports/model-provider.ts (MODEL_ERROR_CODES)
 */
export function modelError(error: unknown, label: CallLabel, aborted: boolean): PlatformError {
  if (error instanceof PlatformError) return error;
  if (aborted || isAbort(error)) return modelCancelled(label);
  const cause = lastError(error);
  const who = `model "${label.model}" (provider "${label.provider}")`;
  if (APICallError.isInstance(cause) && cause.statusCode !== undefined) return fromStatus(cause.statusCode, who, error);
  return new PlatformError(
    'model_unavailable',
    `${who} could not be reached or answered something unreadable (${
      nameOf(cause)
    }): check models.providers apiBaseUrl and that the server is up, then retry.`,
    { status: 502, cause: error },
  );
}

function fromStatus(status: number, who: string, cause: unknown): PlatformError {
  if (status === 429) {
    return new PlatformError(
      'model_unavailable',
      `${who} is rate limited (HTTP 429): retry later or raise the provider's limit.`,
      { status: 503, cause },
    );
  }
  if (status >= 500) {
    return new PlatformError(
      'model_unavailable',
      `${who} failed (HTTP ${status}): the provider is unavailable; retry later.`,
      { status: 502, cause },
    );
  }
  if (status === 401 || status === 403) {
    return new PlatformError(
      'model_refused',
      `${who} refused the request (HTTP ${status}): check the provider's apiKey in the models section.`,
      { status: 502, cause },
    );
  }
  return new PlatformError(
    'model_refused',
    `${who} refused the request (HTTP ${status}): check the model name and the request (messages, tools).`,
    { status: 502, cause },
  );
}

/** The error a retry wrapper gave up on, or the error itself. */
function lastError(error: unknown): unknown {
  const retried = error as { name?: string; lastError?: unknown };
  return retried?.name === 'AI_RetryError' && retried.lastError !== undefined ? retried.lastError : error;
}

function isAbort(error: unknown): boolean {
  const named = error as { name?: string };
  return named?.name === 'AbortError';
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}
