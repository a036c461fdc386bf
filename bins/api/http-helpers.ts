/**
 * Request and response helpers of the API: JSON bodies checked against TypeBox schemas, size limits,
 * and the one place PlatformError codes become HTTP responses.
 *
 * Source: spec/platform-service.md § Limits (1 MiB JSON, 20 MiB upload), § Errors.
 */
import type { TSchema, Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { isPlatformError, PlatformError } from '../../core/ports/platform-error.ts';
import type { Logger } from '../../core/ports/logger.ts';

/** Largest JSON body, bytes (1 MiB). */
export const maxJsonBytes = 1024 * 1024;
/** Largest upload body, bytes (20 MiB). */
export const maxUploadBytes = 20 * 1024 * 1024;

/**
 * Reads a JSON body and checks it against `schema`.
 * @throws PlatformError `unsupported_media_type` (415), `payload_too_large` (413), `invalid_json` (400), `invalid_argument` (400)
 */
export async function readJson<S extends TSchema>(request: Request, schema: S): Promise<Static<S>> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\b/i.test(type)) throw new PlatformError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.', { status: 415 });
  return parseJsonBody(await readBody(request, maxJsonBytes), schema);
}

/**
 * `bytes` as JSON checked against `schema` (the body check of {@link readJson}, for bodies read otherwise).
 * @param invalidJsonHint - appended to the invalid-JSON message (e.g. the expected shape)
 * @throws PlatformError `invalid_json` (400), `invalid_argument` (400) naming up to 5 fields
 */
export function parseJsonBody<S extends TSchema>(bytes: Uint8Array, schema: S, invalidJsonHint = ''): Static<S> {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new PlatformError('invalid_json', `The body is not valid JSON${invalidJsonHint ? `: ${invalidJsonHint}` : ''}.`, { status: 400 });
  }
  const errors = [...Value.Errors(schema, value)].slice(0, 5);
  if (errors.length > 0) throw new PlatformError('invalid_argument', `Invalid body: ${errors.map((e) => `${e.path || '/'} ${e.message}`).join('; ')}.`, { status: 400 });
  return value as Static<S>;
}

/**
 * Reads a body of at most `limit` bytes, refusing early on Content-Length.
 * @throws PlatformError `payload_too_large` (413)
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  const tooLarge = () => payloadTooLarge(limit);
  if (Number(request.headers.get('content-length') ?? 0) > limit) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > limit) throw tooLarge();
    chunks.push(chunk);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) { out.set(chunk, offset); offset += chunk.byteLength; }
  return out;
}

/**
 * The 413 refusal naming the limit (in MiB, or KiB under 1 MiB).
 *
 * Source: spec/platform-service.md § Limits; § Errors (413 from the API)
 */
export function payloadTooLarge(limit: number): PlatformError {
  const size = limit >= 1024 * 1024 ? `${Math.round(limit / 1024 / 1024)} MiB` : `${Math.round(limit / 1024)} KiB`;
  return new PlatformError('payload_too_large', `The body is larger than ${size}.`, { status: 413 });
}

/** JSON response with `status`. */
export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store' } });
}

/**
 * Maps any error to `{ error: { code, message } }`; unexpected errors are logged and answered 500 without detail.
 * A PlatformError carrying `retryAfterSeconds` (the per-user ceiling) also gets a Retry-After header.
 */
export function errorToResponse(error: unknown, logger: Logger): Response {
  if (isPlatformError(error)) {
    const status = error.status ?? 500;
    if (status >= 500) logger.error({ code: error.code, err: error.message }, 'request failed');
    const response = json({ error: { code: error.code, message: error.message } }, status);
    const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
    if (typeof retryAfter === 'number') response.headers.set('retry-after', String(Math.max(1, Math.ceil(retryAfter))));
    return response;
  }
  logger.error({ err: error instanceof Error ? error.stack ?? error.message : String(error) }, 'request failed unexpectedly');
  return json({ error: { code: 'internal', message: 'The request failed unexpectedly; try again, and tell the operator if it persists.' } }, 500);
}

/**
 * Refuses a state-changing request sent from another site's page, before anything happens (moved to
 * request-rules/cross-site.ts; the request-rules plugin applies it to every route).
 * @throws PlatformError `cross_site_request` (403)
 */
export { refuseCrossSite } from './request-rules/cross-site.ts';
