/**
 * JSON text encoding of documents for the SQLite `doc` column that keeps `Date` values:
 * a Date is stored as `{"$date":"<ISO 8601>"}` and revived as a `Date` on read.
 *
 * Source: ../shared/ARCHITECTURE.md § Ports, adapters, contracts (DocumentStore: Dates round-trip).
 */
import { PlatformError } from '../../ports/platform-error.ts';

/**
 * Encodes `doc` as JSON text, Dates as `{"$date": iso}`.
 * @throws PlatformError `invalid_document` for an invalid Date (NaN time)
 */
export function encodeDocument(doc: unknown): string {
  return JSON.stringify(toJsonValue(doc));
}

function toJsonValue(value: unknown): unknown {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) {
      throw new PlatformError('invalid_document', 'A document holds an invalid Date.', { status: 400 });
    }
    return { $date: value.toISOString() };
  }
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      if (child !== undefined) out[key] = toJsonValue(child);
    }
    return out;
  }
  return value;
}

/** Decodes JSON text written by {@link encodeDocument}, reviving `{"$date": iso}` as `Date`. */
export function decodeDocument<T>(text: string): T {
  return JSON.parse(text, reviveDate) as T;
}

function reviveDate(_key: string, value: unknown): unknown {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const date = (value as { $date?: unknown }).$date;
    if (keys.length === 1 && typeof date === 'string') return new Date(date);
  }
  return value;
}

/**
 * A SQLite JSON path for a dotted field, each segment quoted: `a.b` → `$."a"."b"`.
 * @returns the path, or undefined when a segment holds a character the path syntax cannot quote (`"`)
 */
export function jsonPath(field: string): string | undefined {
  const segments = field.split('.');
  if (segments.some((s) => s.length === 0 || s.includes('"'))) return undefined;
  return '$' + segments.map((s) => `."${s}"`).join('');
}
