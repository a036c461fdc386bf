/**
 * The `[credentials]` lines of collection connections: one per change (connected, refreshed, reconnect asked,
 * disconnected), naming the collection, the organization and who, never a value.
 *
 * Source: spec/platform-service.md § Operational log lines ([credentials]); issue "Skill registries, and collections
 * with per-organization credentials and OAuth apps" § Reach and consent.
 */

/** One change of an organization's connection of a collection. */
export interface ConnectionChange {
  change: 'connected' | 'refreshed' | 'reconnect asked' | 'disconnected';
  collection: string;
  orgId: string;
  /** Who made it: a member's name or email, or `the platform`. */
  by: string;
  /** How, or why (e.g. `token`, `oauth app office`, `client id of app office changed`). */
  detail: string;
}

/**
 * `[credentials] <change> collection <collection> for organization <orgId> by <by> (<detail>)`, one line: control
 * characters in any part are shown as `\uXXXX`.
 */
export function connectionLine(change: ConnectionChange): string {
  const part = (text: string) =>
    String(text).replace(
      /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ) || '-';
  return `[credentials] ${change.change} collection ${part(change.collection)} for organization ${
    part(change.orgId)
  } by ${part(change.by)} (${part(change.detail)})`;
}
