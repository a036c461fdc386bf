/**
 * Lossless storage of any object key a caller or a model sends (`$date`, `$where`, `$set`, `a.b`, `__proto__`,
 * the empty key): the document stores escape such keys on write and restore them on read, so that a stored
 * value can never be taken for the codec's own `{"$date": …}` form, a MongoDB operator or a dotted path.
 *
 * The escape is unambiguous and leaves every other key as it is (the platform's own field names, which queries
 * and indexes name, are never escaped): a key that is empty, starts with `$` or with {@link KEY_MARKER}, holds a
 * `.` or is `__proto__` is written as the marker followed by the key with `%` and `.` percent-encoded
 * (`%25`, `%2E`). Every stored key that starts with the marker is an escaped one, so reading reverses it
 * exactly; data written before the escape existed (no marker) reads unchanged.
 *
 * Source: docs/decisions.md D17 § 8 (hostile but valid input is stored losslessly); docs/architecture.md § Ports and
 * adapters,
 * adapters, contracts (DocumentStore).
 */

/** The first character of every escaped key: U+FF04 FULLWIDTH DOLLAR SIGN. */
export const KEY_MARKER = '\uFF04';
const MARKER_CODE = 0xff04;
const DOLLAR_CODE = 0x24;

/** True when `key` must be escaped before it is stored (see the module comment). */
export function keyNeedsEscape(key: string): boolean {
  if (key.length === 0) return true;
  const first = key.charCodeAt(0);
  return first === DOLLAR_CODE || first === MARKER_CODE || key.includes('.') || key === '__proto__';
}

/** The stored form of `key`: itself, or the escaped form when {@link keyNeedsEscape}. */
export function escapeKey(key: string): string {
  if (!keyNeedsEscape(key)) return key;
  return KEY_MARKER + key.replace(/[%.]/g, (c) => (c === '%' ? '%25' : '%2E'));
}

/**
 * The key a stored key stands for: the inverse of {@link escapeKey} (keys without the marker are returned as they
 * are).
 */
export function unescapeKey(stored: string): string {
  if (stored.charCodeAt(0) !== MARKER_CODE) return stored;
  return stored.slice(1).replace(/%(25|2E)/g, (_m, hex: string) => (hex === '25' ? '%' : '.'));
}

/**
 * Sets own enumerable property `key` of `target` to `value`, also for `__proto__` (a plain assignment would set
 * the prototype instead and lose the value).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/**
 * A copy of `value` with every plain object's keys escaped ({@link escapeKey}), at any depth, through arrays.
 * Leaves (strings, numbers, Dates, binary and other class instances) are kept as they are; `undefined`
 * fields are dropped (as the stores do).
 */
export function escapeKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(escapeKeysDeep);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (child !== undefined) out[escapeKey(key)] = escapeKeysDeep(child);
  }
  return out;
}

/** The inverse of {@link escapeKeysDeep}: a copy with every escaped key restored (`__proto__` as an own key). */
export function unescapeKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(unescapeKeysDeep);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) setOwn(out, unescapeKey(key), unescapeKeysDeep(value[key]));
  return out;
}

/** True for `{}`-like objects (prototype Object.prototype or null): the ones whose keys are document fields. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
