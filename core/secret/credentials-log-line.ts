/**
 * The `[credentials]` operational log line written once per credential change.
 *
 * Source: spec/platform-service.md § Authentication rule 10; § Operational log lines ([credentials]).
 */

/** Kinds of credential change that write a `[credentials]` line. */
export type CredentialChangeKind = 'created' | 'updated' | 'deleted' | 'moved';

/** One credential change, described without any of its values. */
export interface CredentialChange {
  /** What happened to the credential. */
  change: CredentialChangeKind;
  /** The credential's identifier. */
  credentialId: string;
  /** Name of the environment the credential belongs to. */
  environment: string;
  /** Who made the change: a member's id or email, or an operator tool's name. */
  member: string;
}

/**
 * Formats the one `[credentials]` line for a change: `[credentials] <change> credential <id> in
 * environment <environment> by <member>`. Only the four named fields are read, so a secret value
 * carried on the object (by mistake) never reaches the line. Line breaks and other control
 * characters in the names are shown as `\uXXXX`, so the result is always exactly one line.
 *
 * @param change - the change; any property other than the four named is ignored
 * @returns one line without a trailing newline
 *
 * Source: spec/platform-service.md § Authentication rule 10 (names the change, identifier, environment and member,
 * never a value).
 */
export function credentialsLogLine(change: CredentialChange): string {
  const kind = oneLine(change.change);
  return `[credentials] ${kind} credential ${oneLine(change.credentialId)} in environment ${
    oneLine(change.environment)
  } by ${oneLine(change.member)}`;
}

/** `text` with control characters and Unicode line separators escaped as `\uXXXX`; empty shown as `-`. */
function oneLine(text: string): string {
  const safe = String(text).replace(
    /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return safe === '' ? '-' : safe;
}
