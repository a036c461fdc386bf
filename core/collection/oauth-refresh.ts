/**
 * The refresh of an OAuth connection's tokens, made by one process at a time across every dispatcher. A refresh is
 * made only while holding the connection's lease ({@link refreshLeaseName}, Lease port on the document store that
 * every dispatcher shares); a process that finds it held waits for it to be let go (at most
 * {@link REFRESH_WAIT_MS}) and reads the tokens the holder stored. Under the lease the stored tokens are read again
 * (another process may have refreshed since they were first read), and a refusal of the refresh token
 * (`invalid_grant`) asks to reconnect only when the stored refresh token is still the one refused: with providers
 * that rotate refresh tokens (and refuse a used one), a refresh sent with a token another process already rotated
 * must not take the collection away from the organization.
 *
 * Writes, in order, each recovering from a stop: the secret (the new tokens), then the record's `expiresAt`. A stop
 * between the two leaves the record due: the next call refreshes again with the stored (new) refresh token. A stop
 * between the provider's answer and the secret's write loses a rotated refresh token: the next refresh is refused
 * and the connection asks to reconnect. A process that dies holding the lease: it lapses {@link REFRESH_LEASE_MS}
 * after it was taken and the next call refreshes.
 *
 * Source: spec/platform-service.md § Rules 17; docs/decisions.md D22 §§ 8, 10.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Lease } from '../ports/lease.ts';
import type { OAuthClient } from '../ports/oauth-client.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import type { SecretStore } from '../ports/secret-store.ts';
import { connectionLine } from './credentials-line.ts';
import { type CollectionOffers, connectionState } from './offers.ts';
import { type CollectionConnectionRecord, connectionId, connectionsOf, credentialIdOf } from './records.ts';

/** The credential of one call. */
export type CollectionCredential =
  | { kind: 'own'; token: string }
  | { kind: 'deployment' }
  | { kind: 'none'; reason: 'not_connected' | 'reconnect' | 'foreign' }
  | { kind: 'failed'; message: string };

/** How long before its expiry an OAuth access token is refreshed, in ms. */
export const REFRESH_AHEAD_MS = 60_000;
/**
 * How long a refresh lease lasts unless released, in ms (90 s): longer than the OAuth client's discovery and token
 * requests (30 s each at most) and the two writes, so a live holder never loses it.
 */
export const REFRESH_LEASE_MS = 90_000;
/** How long a call waits for another process's refresh of its connection before failing, in ms (15 s). */
export const REFRESH_WAIT_MS = 15_000;
/** How often a waiting call looks whether the lease was let go, in ms. */
export const REFRESH_POLL_MS = 200;

/** What a refresh needs. */
export interface RefreshDeps {
  docs: DocumentStore;
  clock: Clock;
  secrets: SecretStore;
  offers: CollectionOffers;
  oauth: OAuthClient;
  /** The lease every process resolving credentials shares (the document store's, core/lease/document-lease.ts). */
  lease: Lease;
  /** This process's lease owner name (unique per process, e.g. `dispatcher@<instance id>`). */
  owner: string;
  /** Waits `ms` (default a timer). */
  sleep?(ms: number): Promise<void>;
  log(line: string): void;
}

/** An OAuth connection whose access token is due for a refresh, with the secret read with it. */
export interface DueRefresh {
  record: CollectionConnectionRecord;
  secret: Record<string, string>;
}

/** The lease name of a connection's refresh (`collection-refresh:<orgId>/<collection>`). */
export function refreshLeaseName(id: string): string {
  return `collection-refresh:${id}`;
}

/**
 * The stored connection of `collection` for `orgId` as a credential (`none`/`reconnect` when it must be connected
 * again or its secret is missing), or as a {@link DueRefresh} when its OAuth access token expires within
 * {@link REFRESH_AHEAD_MS}; undefined when the organization has no connection of it (none, or a Disconnect under way).
 */
export async function readConnection(
  deps: Pick<RefreshDeps, 'docs' | 'clock' | 'secrets' | 'offers'>,
  orgId: string,
  collection: string,
): Promise<CollectionCredential | DueRefresh | undefined> {
  const record = await connectionsOf(deps.docs).findOne({ _id: connectionId(orgId, collection) });
  const state = connectionState(record, deps.offers);
  if (record === null || state === undefined) return undefined;
  if (state.status === 'reconnect') return { kind: 'none', reason: 'reconnect' };
  const secret = await deps.secrets.get(credentialIdOf(orgId, collection));
  if (record.kind === 'token') {
    return secret?.token ? { kind: 'own', token: secret.token } : { kind: 'none', reason: 'reconnect' };
  }
  if (!secret?.accessToken) return { kind: 'none', reason: 'reconnect' };
  const due = record.expiresAt && record.expiresAt.getTime() - deps.clock.now().getTime() < REFRESH_AHEAD_MS;
  return due ? { record, secret } : { kind: 'own', token: secret.accessToken };
}

/**
 * Refreshes a due connection once across processes: under its lease, or after another process's refresh (waiting
 * at most {@link REFRESH_WAIT_MS}) with the tokens that one stored.
 * @returns the new access token; `none`/`reconnect` when the provider refused the stored refresh token;
 *   `failed` when the provider failed, or another process held the lease for longer than the wait
 */
export async function refreshOnce(deps: RefreshDeps, first: DueRefresh): Promise<CollectionCredential> {
  const { orgId, collection } = first.record;
  const name = refreshLeaseName(first.record._id);
  const deadlineMs = deps.clock.now().getTime() + REFRESH_WAIT_MS;
  for (;;) {
    if (await deps.lease.acquire(name, deps.owner, REFRESH_LEASE_MS)) {
      try {
        const held = settled(deps, first, await readConnection(deps, orgId, collection));
        return 'record' in held ? await refreshConnection(deps, held.record, held.secret) : held;
      } finally {
        // Not released (the store failed): it lapses REFRESH_LEASE_MS after it was taken.
        await deps.lease.release(name, deps.owner).catch(() => undefined);
      }
    }
    if (!(await letGo(deps, name, deadlineMs))) {
      return {
        kind: 'failed',
        message: `The ${collection} sign-in is being refreshed by another dispatcher; try again in a minute.`,
      };
    }
    const after = settled(deps, first, await readConnection(deps, orgId, collection));
    if (!('record' in after)) return after;
  }
}

/**
 * What a reading taken after another process may have refreshed gives: a credential (that process's new access
 * token when the stored one changed and has not expired), or the connection still to refresh.
 */
function settled(
  deps: Pick<RefreshDeps, 'clock'>,
  first: DueRefresh,
  now: CollectionCredential | DueRefresh | undefined,
): CollectionCredential | DueRefresh {
  if (now === undefined) return { kind: 'none', reason: 'not_connected' };
  if (!('record' in now)) return now;
  const expiresAt = now.record.expiresAt?.getTime();
  const live = expiresAt === undefined || expiresAt > deps.clock.now().getTime();
  if (now.secret.accessToken !== first.secret.accessToken && live) {
    return { kind: 'own', token: now.secret.accessToken! };
  }
  return now;
}

/** Waits until nobody holds lease `name`; false when `deadlineMs` (epoch ms) passed first. */
async function letGo(deps: RefreshDeps, name: string, deadlineMs: number): Promise<boolean> {
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  while ((await deps.lease.holder(name)) !== null) {
    if (deps.clock.now().getTime() >= deadlineMs) return false;
    await sleep(REFRESH_POLL_MS);
  }
  return true;
}

/** Refreshes an OAuth connection's tokens, or marks it for reconnection when the provider refuses its grant. */
async function refreshConnection(
  deps: RefreshDeps,
  record: CollectionConnectionRecord,
  secret: Record<string, string>,
): Promise<CollectionCredential> {
  const app = deps.offers.get(record.collection)!.app!;
  const place = { orgId: record.orgId, collection: record.collection, by: 'the platform' };
  if (!secret.refreshToken) {
    await askReconnect(
      deps,
      record,
      'Its access token expired and the provider issued no refresh token; connect again.',
    );
    return { kind: 'none', reason: 'reconnect' };
  }
  const credentialId = credentialIdOf(record.orgId, record.collection);
  try {
    const tokens = await deps.oauth.refresh(app, secret.refreshToken);
    // A provider that issues no new refresh token keeps the old one working.
    await deps.secrets.put(credentialId, {
      accessToken: tokens.accessToken,
      refreshToken: tokens.refreshToken ?? secret.refreshToken,
    });
    await connectionsOf(deps.docs).updateOne({ _id: record._id, status: 'connected' }, {
      $set: { updatedAt: deps.clock.now(), ...(tokens.expiresAt ? { expiresAt: tokens.expiresAt } : {}) },
      ...(tokens.expiresAt ? {} : { $unset: { expiresAt: true } }),
    });
    deps.log(connectionLine({ change: 'refreshed', ...place, detail: `oauth app ${app.appId}` }));
    return { kind: 'own', token: tokens.accessToken };
  } catch (error) {
    if (isPlatformError(error) && error.code === 'oauth_grant_invalid') {
      // Another process rotated the refresh token meanwhile (a lease that lapsed under a slow refresh): use its tokens.
      const stored = await deps.secrets.get(credentialId);
      if (stored?.accessToken && stored.refreshToken && stored.refreshToken !== secret.refreshToken) {
        return { kind: 'own', token: stored.accessToken };
      }
      await askReconnect(deps, record, 'The provider refused its refresh token (revoked or expired); connect again.');
      return { kind: 'none', reason: 'reconnect' };
    }
    const why = isPlatformError(error) ? error.message : 'the provider could not be reached';
    return { kind: 'failed', message: `The ${record.collection} sign-in could not be refreshed: ${why}` };
  }
}

/** Marks a connection for reconnection with `reason` (one `[credentials]` line). */
export async function askReconnect(
  deps: Pick<RefreshDeps, 'docs' | 'clock' | 'log'>,
  record: Pick<CollectionConnectionRecord, '_id' | 'orgId' | 'collection'>,
  reason: string,
): Promise<void> {
  const { matched } = await connectionsOf(deps.docs).updateOne({ _id: record._id, status: 'connected' }, {
    $set: { status: 'reconnect', reconnectReason: reason, updatedAt: deps.clock.now() },
  });
  if (matched === 0) return;
  const detail = reason.replace(/; connect again\.$/, '');
  deps.log(
    connectionLine({
      change: 'reconnect asked',
      orgId: record.orgId,
      collection: record.collection,
      by: 'the platform',
      detail,
    }),
  );
}
