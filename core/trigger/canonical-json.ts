/**
 * Canonical JSON: object keys sorted at every depth, arrays in their order, `undefined` members left out. Two values
 * that are equal as data give the same text, so it serves as an identity (a polled item's digest, a trigger call's
 * fingerprint).
 *
 * Source: docs/decisions.md D8 (polling triggers: an item without an id is known by the SHA-256 of its canonical JSON).
 */

/** The canonical JSON text of `value`. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort((
      [a],
      [b],
    ) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
