/**
 * JSON text encoding of documents for the SQLite `doc` column that keeps `Date` values and every key:
 * a Date is stored as `{"$date":"<ISO 8601>"}` and revived as a `Date` on read; a key a caller or a model
 * sent that could be taken for that form, an operator or a path (`$date`, `$where`, `a.b`, `__proto__`, the
 * empty key) is escaped on write and restored on read (../document-keys.ts), so such a value reads back exactly.
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore: Dates round-trip);
 * docs/decisions.md D17 § 8 (hostile but valid input is stored losslessly).
 */
import { PlatformError } from '../../ports/platform-error.ts';
import { escapeKey, KEY_MARKER, setOwn, unescapeKey } from '../document-keys.ts';

/**
 * Encodes `doc` as JSON text, Dates as `{"$date": iso}`, reserved keys escaped; `undefined` fields are dropped.
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
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (child !== undefined) out[escapeKey(key)] = toJsonValue(child);
    }
    return out;
  }
  return value;
}

/**
 * Decodes JSON text written by {@link encodeDocument}: `{"$date": iso}` revived as `Date`, escaped keys restored.
 * Text written before keys were escaped reads as it was written, except that a `{"$date": …}` whose string is
 * no valid time stays the object it was (a caller's value) rather than becoming an invalid Date.
 */
export function decodeDocument<T>(text: string): T {
  // Most documents hold neither a Date nor an escaped key: plain JSON.parse is several times faster than a reviver.
  const escaped = text.includes(KEY_MARKER);
  if (escaped) return JSON.parse(text, reviveAll) as T;
  return (text.includes('"$date"') ? JSON.parse(text, reviveDate) : JSON.parse(text)) as T;
}

/** `{"$date": iso}` → Date when iso is a valid time; anything else as it is. */
function reviveDate(_key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const iso = (value as { $date?: unknown }).$date;
  if (typeof iso !== 'string') return value;
  for (const key in value) if (key !== '$date') return value;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? value : date;
}

/** {@link reviveDate}, and escaped keys restored. */
function reviveAll(key: string, value: unknown): unknown {
  const revived = reviveDate(key, value);
  if (revived !== value || typeof value !== 'object' || value === null || Array.isArray(value)) return revived;
  const keys = Object.keys(value);
  if (!keys.some((k) => k.charCodeAt(0) === MARKER_CODE)) return value;
  const out: Record<string, unknown> = {};
  for (const k of keys) setOwn(out, unescapeKey(k), (value as Record<string, unknown>)[k]);
  return out;
}

const MARKER_CODE = KEY_MARKER.charCodeAt(0);

/**
 * A SQLite JSON path for a dotted field, each segment quoted: `a.b` → `$."a"."b"`.
 * @returns the path, or undefined when a segment holds a character the path syntax cannot quote (`"`)
 */
export function jsonPath(field: string): string | undefined {
  const segments = field.split('.');
  if (segments.some((s) => s.length === 0 || s.includes('"'))) return undefined;
  return '$' + segments.map((s) => `."${s}"`).join('');
}
