/**
 * What a collection answers a callback request with: its `callback` tool's output (structured content, or JSON
 * text) read as `{response?: {status, body, contentType}, firings?: [{id?, payload}]}`. Read by the call worker of a
 * callback run and by the API answering a service's check (GET, HEAD) synchronously.
 *
 * Source: spec/platform-service.md § Endpoints (/api/callbacks/<token>: handed to the collection to turn into
 * firings; some services first check with a GET); docs/decisions.md D8 (callback triggers).
 */
import { PlatformError } from '../ports/platform-error.ts';

/** A firing a collection made of a callback request: `id` makes it fire once (else the delivery and its index do). */
export interface CallbackFiring {
  id?: string;
  payload: unknown;
}

/** A collection's answer to one callback request. `response` is what the caller is answered (checks only). */
export interface CallbackAnswer {
  response?: { status: number; body: string; contentType: string };
  firings: CallbackFiring[];
}

/**
 * Reads a `callback` tool's output. `response.status` defaults to 200; a non-text `body` is sent as JSON; the
 * content type defaults to text/plain for text and application/json otherwise.
 * @throws PlatformError `callback_answer_unreadable` naming the field that does not fit
 */
export function callbackAnswer(output: unknown): CallbackAnswer {
  let value = output;
  if (typeof value === 'string') {
    try {
      value = value.trim() === '' ? {} : JSON.parse(value);
    } catch {
      throw unreadable('its text is not JSON');
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw unreadable('it is not an object');
  const { response, firings } = value as { response?: unknown; firings?: unknown };
  const answer: CallbackAnswer = { firings: [] };
  if (response !== undefined && response !== null) answer.response = responseOf(response);
  if (firings !== undefined && firings !== null) {
    if (!Array.isArray(firings)) throw unreadable('firings is not a list');
    answer.firings = firings.map((f, i) => firingOf(f, i));
  }
  return answer;
}

function responseOf(response: unknown): NonNullable<CallbackAnswer['response']> {
  const r = response as { status?: unknown; body?: unknown; contentType?: unknown };
  const status = r.status ?? 200;
  if (typeof status !== 'number' || !Number.isInteger(status) || status < 200 || status > 599) {
    throw unreadable('response.status is not an HTTP status from 200 to 599');
  }
  const textual = typeof r.body === 'string' || r.body === undefined || r.body === null;
  const body = typeof r.body === 'string' ? r.body : textual ? '' : JSON.stringify(r.body);
  const contentType = typeof r.contentType === 'string' && r.contentType.length <= 200
    ? r.contentType
    : textual
    ? 'text/plain; charset=utf-8'
    : 'application/json';
  return { status, body, contentType };
}

function firingOf(f: unknown, i: number): CallbackFiring {
  const firing = f as { id?: unknown; payload?: unknown } | null;
  if (firing === null || typeof firing !== 'object' || Array.isArray(firing)) {
    throw unreadable(`firings[${i}] is not an object`);
  }
  if (firing.id !== undefined && (typeof firing.id !== 'string' || firing.id.length === 0 || firing.id.length > 200)) {
    throw unreadable(`firings[${i}].id is not a text of 1 to 200 characters`);
  }
  return { ...(typeof firing.id === 'string' ? { id: firing.id } : {}), payload: firing.payload ?? null };
}

function unreadable(what: string): PlatformError {
  return new PlatformError(
    'callback_answer_unreadable',
    `The collection's callback answer cannot be read: ${what}. Answer {"response"?: {"status", "body", ` +
      `"contentType"}, "firings"?: [{"id"?, "payload"}]}.`,
  );
}
