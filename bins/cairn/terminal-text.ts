/**
 * Text the `cairn` command prints that someone else wrote (an agent's improvement request, a
 * caller's SQL in the call log, a server's message) is made inert for the terminal first: control
 * characters (ESC, BEL, NUL, CR, DEL, C1) and invisible or bidirectional formatting characters
 * (U+202E and its kin, zero-width characters, line separators) are shown as `\uXXXX` escapes, so
 * they can neither drive the terminal nor reorder or hide what a person reads.
 *
 * Source: issue "Close the query-path holes" § 0 (terminal injection).
 */

/** C0 controls except \t and \n, DEL, C1 controls, and invisible/bidirectional formatting characters. */
const unsafeKeepingLayout = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;
/** The same, plus \t and \n (for one-line fields such as a table cell or a title). */
const unsafeInLine = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;
/** Inside JSON.stringify's output, C0 controls are already escaped; these are not. */
const unsafeInJson = /[\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

const escape = (char: string): string => `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * `text` with every unsafe character shown as `\uXXXX` (e.g. ESC → `\u001B`, U+202E → `\u202E`).
 * @param options.newlines - keep \n and \t (default true: multi-line output); false for one-line fields
 */
export function terminalSafe(text: string, options: { newlines?: boolean } = {}): string {
  return text.replace(options.newlines === false ? unsafeInLine : unsafeKeepingLayout, escape);
}

/**
 * JSON text (from JSON.stringify) with the characters JSON leaves raw (DEL, C1, bidirectional and
 * invisible characters) written as JSON `\uXXXX` escapes: the same JSON value, safe to print.
 */
export function terminalSafeJson(json: string): string {
  return json.replace(unsafeInJson, escape);
}
