/**
 * Request body rules: 1 MiB for JSON, 20 MiB for uploads, 256 KiB under /api/webhooks/ and /api/callbacks/,
 * and JSON routes refusing bodies of another type. The declared length is checked before any route runs;
 * route handlers read bodies through {@link readJson} / {@link readBody} (http-helpers), which also stop a
 * body sent without a length at the limit.
 *
 * Source: spec/platform-service.md § Limits; § Errors (upload over 20 MiB: 413 from the API; JSON route given a
 * body of another type: refused); § Authentication rule 1.
 */
import { PlatformError } from '../../../core/ports/platform-error.ts';
import { maxJsonBytes, maxUploadBytes, payloadTooLarge } from '../http-helpers.ts';

export { maxJsonBytes, maxUploadBytes, payloadTooLarge };

/**
 * Largest body under /api/webhooks/ and /api/callbacks/, bytes (256 KiB).
 *
 * Source: spec/platform-service.md § Limits
 */
export const maxIncomingBodyBytes = 256 * 1024;

const incomingPaths = /^\/api\/(?:webhooks|callbacks)(?:\/|$)/;

/**
 * True for a JSON media type (application/json or application/<x>+json).
 *
 * Source: spec/platform-service.md § Authentication rule 1 (a route that takes JSON)
 */
export function isJsonType(contentType: string | null | undefined): boolean {
  return /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test((contentType ?? '').trim());
}

/**
 * The body limit of a request, bytes: 256 KiB under /api/webhooks/ and /api/callbacks/, 1 MiB for a JSON
 * body, 20 MiB for anything else (an upload).
 *
 * Source: spec/platform-service.md § Limits
 */
export function bodyLimitFor(path: string, contentType: string | null | undefined): number {
  if (incomingPaths.test(path)) return maxIncomingBodyBytes;
  return isJsonType(contentType) ? maxJsonBytes : maxUploadBytes;
}

/**
 * Refuses a request whose declared Content-Length is over its limit, before it is read.
 * @throws PlatformError `payload_too_large` (413)
 *
 * Source: spec/platform-service.md § Limits; § Errors (413 from the API)
 */
export function refuseOversizedBody(request: Request, path: string): void {
  const declared = request.headers.get('content-length');
  if (declared === null) return;
  const limit = bodyLimitFor(path, request.headers.get('content-type'));
  if (Number(declared) > limit) throw payloadTooLarge(limit);
}

/**
 * For JSON routes: refuses a body of another type (a form, text …). A request without a body passes.
 * Use as an Elysia `beforeHandle` (`{ beforeHandle: jsonOnly }`) or call it first in a handler;
 * handlers reading with `readJson` get the same refusal.
 * @throws PlatformError `unsupported_media_type` (415)
 *
 * Source: spec/platform-service.md § Authentication rule 1; § Errors (JSON route given a body of another type)
 */
export function requireJsonBody(request: Request): void {
  const hasBody = request.body !== null && request.headers.get('content-length') !== '0';
  if (hasBody && !isJsonType(request.headers.get('content-type'))) {
    throw new PlatformError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.', { status: 415 });
  }
}

/**
 * {@link requireJsonBody} as an Elysia `beforeHandle` hook.
 *
 * Source: spec/platform-service.md § Authentication rule 1
 */
export function jsonOnly({ request }: { request: Request }): void {
  requireJsonBody(request);
}
