/**
 * The one error base of cairn. Every failure a caller may act on carries a stable string `code`;
 * surfaces (HTTP JSON, MCP tool error, CLI exit) map codes to their wire form in one place.
 * Branch on `code`, never on message text.
 *
 * Source: docs/architecture.md § Conventions.
 */
export class PlatformError extends Error {
  /** Stable machine-readable code, e.g. `query_rejected`, `not_found`. */
  readonly code: string;
  /** HTTP status a JSON surface answers with; undefined lets the surface choose (500). */
  readonly status?: number;

  /**
   * @param code - stable code (snake_case)
   * @param message - human text: says what was wrong and what to do; never holds a secret
   * @param options - `status` (HTTP), `cause` (original error, never shown to callers)
   */
  constructor(code: string, message: string, options: { status?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'PlatformError';
    this.code = code;
    this.status = options.status;
  }
}

/** True when `error` is a {@link PlatformError} with the given code (or any code when omitted). */
export function isPlatformError(error: unknown, code?: string): error is PlatformError {
  return error instanceof PlatformError && (code === undefined || error.code === code);
}
