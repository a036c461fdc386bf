/**
 * The web app's one way to call the API: JSON in and out, the signed-in person's access token on every
 * request (oidc), and every non-2xx answer turned into an {@link ApiError} carrying the API's `code` and
 * message (the body shape `ApiErrorBody` of core/semantic/api/projects.ts). A 401 tells the session
 * (it may reload once under cloud-alb, or ask to sign in again).
 *
 * Source: spec/platform-service.md § Authentication (sign-in modes), § Errors.
 */
import type { ApiErrorBody } from '../../../core/semantic/api/projects.ts';

/** An API answer that was not 2xx, or a request that never got one (`status` 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** Seconds from Retry-After on a 429, when given. */
  readonly retryAfterSeconds?: number;
  constructor(status: number, code: string, message: string, retryAfterSeconds?: number) {
    super(message);
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** How requests are signed: set once by the session (web/src/auth). */
interface Signing {
  accessToken(): string | undefined;
  onUnauthorized(): void;
}
let signing: Signing = { accessToken: () => undefined, onUnauthorized: () => undefined };

/** Installs the session's token source and its 401 handler. */
export function useSigning(next: Signing): void {
  signing = next;
}

/** Headers every API request carries: the access token (oidc) when there is one. */
export function authHeaders(): Record<string, string> {
  const token = signing.accessToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/**
 * Calls the API at `path` (e.g. `/api/semantic/projects`) and answers its JSON body.
 * `body` (any JSON value) is sent as application/json.
 * @throws ApiError with the API's code and message; status 0 `unreachable` when no answer came
 */
export async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { accept: 'application/json', ...authHeaders(), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      credentials: 'same-origin',
      signal: init.signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'unreachable', 'The cairn server cannot be reached. Check your connection and try again.');
  }
  return answerOf<T>(response);
}

/** Reads a fetch answer: the JSON body of a 2xx, else an {@link ApiError}. */
export async function answerOf<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (response.ok) return (text ? JSON.parse(text) : undefined) as T;
  throw errorOf(response.status, text, response.headers.get('retry-after'));
}

/** The {@link ApiError} of a non-2xx answer's status and body text; a 401 also tells the session. */
export function errorOf(status: number, text: string, retryAfter: string | null = null): ApiError {
  if (status === 401) signing.onUnauthorized();
  let body: Partial<ApiErrorBody> | undefined;
  try { body = JSON.parse(text) as Partial<ApiErrorBody>; } catch { body = undefined; }
  const seconds = retryAfter ? Number(retryAfter) : undefined;
  const message = body?.error?.message ?? (text.trim().slice(0, 300) || `The server answered ${status}.`);
  return new ApiError(status, body?.error?.code ?? `http_${status}`, message, Number.isFinite(seconds) ? seconds : undefined);
}

/** `/api/semantic/projects/<slug>` with the slug escaped, plus `rest`. */
export function projectPath(slug: string, rest = ''): string {
  return `/api/semantic/projects/${encodeURIComponent(slug)}${rest}`;
}
