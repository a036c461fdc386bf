/**
 * Session key claims: which open session a session key of a trigger names. A claim is one document whose `_id` is
 * built from the agent, environment, workflow, trigger and key, so the store's unique `_id` makes opening a keyed
 * session atomic: of two firings racing with one key, one inserts the claim and opens the session, the other finds
 * the claim (no read-then-write). A claim is written before its session exists (`sessionId` null) and names the
 * session once it is inserted; a claim whose session ended is released by the next firing with that key.
 *
 * Source: docs/agent-format.md § Triggers (`session`: session key expression); docs/decisions.md D8 (session keys: two
 * concurrent firings with one key open one session).
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { sessionSchemaVersion } from './model.ts';
import type { SessionStoreDeps } from './session-store.ts';

/** Collection of session key claims (`_id` = {@link claimIdOf}). */
export const sessionKeyClaimsCollection = 'session_key_claims';

/** Longest session key (characters); a longer one is refused with `invalid_session_key`. */
export const SESSION_KEY_MAX_LENGTH = 256;

/** A claim whose session was never inserted (its opener stopped in between) is taken over after this (ms). */
export const SESSION_KEY_CLAIM_STALE_MS = 60_000;

/** Where a keyed session lives: one key names one open root session per agent, environment, workflow and trigger. */
export interface SessionKeyScope {
  agentId: string;
  environment: string;
  workflow: string;
  trigger: string;
}

/** A session key claim (collection {@link sessionKeyClaimsCollection}). */
export interface SessionKeyClaim extends SessionKeyScope {
  _id: string;
  schemaVersion: typeof sessionSchemaVersion;
  key: string;
  /** The session the key names; null while its opener inserts it. */
  sessionId: string | null;
  claimedAt: Date;
}

const claimsOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<SessionKeyClaim>(sessionKeyClaimsCollection);

/**
 * The `_id` of the claim of `key` in `scope`: the scope's parts (ids and slugs, which hold no `/`) and the key
 * URI-encoded, joined by `/`, so distinct scopes and keys never share an id.
 */
export function claimIdOf(scope: SessionKeyScope, key: string): string {
  return ['key', scope.agentId, scope.environment, scope.workflow, scope.trigger, encodeURIComponent(key)].join('/');
}

/**
 * Checks a session key: non-blank text of at most {@link SESSION_KEY_MAX_LENGTH} characters.
 * @throws PlatformError `invalid_session_key` (400) saying which rule it breaks (never echoing the key)
 */
export function checkSessionKey(key: string): void {
  if (key.trim().length === 0) {
    throw new PlatformError(
      'invalid_session_key',
      'A session key must not be blank; leave the key out to open a new session.',
      { status: 400 },
    );
  }
  if (key.length > SESSION_KEY_MAX_LENGTH) {
    throw new PlatformError(
      'invalid_session_key',
      `A session key is at most ${SESSION_KEY_MAX_LENGTH} characters (this one has ${key.length}); key sessions by ` +
        `a shorter field, such as an id.`,
      { status: 400 },
    );
  }
}

/**
 * Claims `key` in `scope` for a session about to be opened.
 * @returns true when this call took the claim (the caller opens the session and calls {@link nameClaimedSession}),
 *   false when a claim exists (read it with {@link readClaim})
 */
export async function takeClaim(
  deps: Pick<SessionStoreDeps, 'docs' | 'clock'>,
  scope: SessionKeyScope,
  key: string,
): Promise<boolean> {
  try {
    await claimsOf(deps).insertOne({
      _id: claimIdOf(scope, key),
      schemaVersion: sessionSchemaVersion,
      ...scope,
      key,
      sessionId: null,
      claimedAt: deps.clock.now(),
    });
    return true;
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) return false;
    throw error;
  }
}

/** Records the session a claim this caller took names. */
export async function nameClaimedSession(
  deps: Pick<SessionStoreDeps, 'docs'>,
  scope: SessionKeyScope,
  key: string,
  sessionId: string,
): Promise<void> {
  await claimsOf(deps).updateOne({ _id: claimIdOf(scope, key), sessionId: null }, { $set: { sessionId } });
}

/** The claim of `key` in `scope`, or null. */
export async function readClaim(
  deps: Pick<SessionStoreDeps, 'docs'>,
  scope: SessionKeyScope,
  key: string,
): Promise<SessionKeyClaim | null> {
  return claimsOf(deps).findOne({ _id: claimIdOf(scope, key) });
}

/**
 * Releases a claim that no longer names an open session, only while it is still the claim read: a claim another
 * firing replaced meanwhile is kept. A claim naming no session yet is released only once it was taken before
 * `now - SESSION_KEY_CLAIM_STALE_MS` (its opener stopped before inserting the session).
 */
export async function releaseClaim(
  deps: Pick<SessionStoreDeps, 'docs' | 'clock'>,
  claim: Pick<SessionKeyClaim, '_id' | 'sessionId'>,
): Promise<void> {
  const staleBefore = new Date(deps.clock.now().getTime() - SESSION_KEY_CLAIM_STALE_MS);
  await claimsOf(deps).deleteOne(
    claim.sessionId === null
      ? { _id: claim._id, sessionId: null, claimedAt: { $lte: staleBefore } }
      : { _id: claim._id, sessionId: claim.sessionId },
  );
}

/** Releases the claim of `key` in `scope` whatever it names (an opener whose session insert failed). */
export async function dropClaim(
  deps: Pick<SessionStoreDeps, 'docs'>,
  scope: SessionKeyScope,
  key: string,
): Promise<void> {
  await claimsOf(deps).deleteOne({ _id: claimIdOf(scope, key), sessionId: null });
}
