/**
 * The webhook firing payload of a request, and its delivery id: `X-Delivery-Id` when sent (at most 200 printable
 * characters), else the SHA-256 of the body, so a retry of the same delivery fires once.
 *
 * Source: spec/platform-service.md § Webhook firing payload; docs/decisions.md D8 § Endpoints (webhook).
 */
import { createHash } from 'node:crypto';
import type { WebhookPayload } from '../../core/trigger/webhook-firings.ts';

/** One decoder for every request (decoding holds no state between calls without `stream`). */
const utf8 = new TextDecoder();

/** The query parameters of `url`, a repeated one as a list; no URL is parsed for a URL without a query. */
function queryOf(url: string): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  if (!url.includes('?')) return query;
  const params = new URL(url).searchParams;
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** Builds the payload from the request and its body bytes (≤ 256 KiB by the request rules). */
export function webhookPayload(request: Request, body: Uint8Array): WebhookPayload {
  const query = queryOf(request.url);
  const contentType = request.headers.get('content-type');
  const text = utf8.decode(body);
  let parsed: unknown = text;
  if (contentType !== null && /^application\/([a-z0-9.+-]*\+)?json\b/i.test(contentType)) {
    try { parsed = text.length === 0 ? null : JSON.parse(text); } catch { parsed = text; }
  }
  return { method: request.method, contentType, userAgent: request.headers.get('user-agent'), requestId: request.headers.get('x-request-id'), query, body: parsed };
}

/** The delivery id of a request: its `X-Delivery-Id` (printable, ≤ 200 characters) or `sha256:<hex of the body>`. */
export function deliveryIdOf(request: Request, body: Uint8Array): string {
  const given = request.headers.get('x-delivery-id');
  if (given !== null && /^[\x21-\x7e]{1,200}$/.test(given)) return given;
  return `sha256-${createHash('sha256').update(body).digest('hex')}`;
}
