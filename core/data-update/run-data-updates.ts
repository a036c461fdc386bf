/**
 * Data updates at boot, the data update sweep and the pending list.
 *
 * Source: spec/platform-service.md § Data update at boot; § Errors (data update refusals); § Limits; § Versioning.
 */
import type { DocumentStore } from '../ports/document-store.ts';
import { applyDataUpdate } from './apply-update.ts';
import { ensureVersionIndexes, readCensus } from './census.ts';
import {
  type AppliedDataUpdate,
  DATA_UPDATE_LOCK,
  DATA_UPDATE_LOCK_TTL_MS,
  DATA_UPDATE_POLL_MS,
  DATA_UPDATE_WAIT_LOG_MS,
  type DataUpdateDeps,
  type DataUpdateOptions,
  type PendingDataUpdate,
  type ReleaseData,
} from './model.ts';
import {
  appliedLine,
  assertReadable,
  checkRelease,
  describePending,
  newerDataWarning,
  pendingUpdates,
  refusalLines,
  waitingLine,
} from './rules.ts';

/**
 * Runs the data update steps of a boot, in order: (1) ensures each collection's `schemaVersion_1`
 * index; (2) reads which versions each collection holds; (3) refuses to start on unreadable data;
 * (4) applies pending updates oldest first under the `data-updates` lock, renewed while applying.
 * While another process holds the lock, waits, writes the waiting line every 30 s, and returns once
 * nothing is left. With nothing pending it takes no lock and writes nothing (except the warning
 * written on every boot while `allowNewerData` is set).
 *
 * @param deps - ports; `logger` receives the `[data-updates]` lines
 * @param release - what this release knows (see {@link ReleaseData})
 * @param options - PLATFORM_ALLOW_NEWER_DATA, lock lapse (default 60 s) and poll interval (default 5 s)
 * @returns the updates this process applied (empty when another process applied them)
 * @throws PlatformError `data_refused` (message: the refusal lines), `invalid_release`, `data_update_failed`
 */
export async function runDataUpdatesAtBoot(
  deps: DataUpdateDeps,
  release: ReleaseData,
  options: DataUpdateOptions,
): Promise<{ applied: AppliedDataUpdate[] }> {
  checkRelease(release);
  await ensureVersionIndexes(deps.docs, release);
  const census = await readCensus(deps.docs, release);
  assertReadable(census, options.allowNewerData);
  if (options.allowNewerData) deps.logger(newerDataWarning(census));
  if (pendingUpdates(census, release).length === 0) return { applied: [] };
  return { applied: await applyWhenFree(deps, release, options) };
}

/** Loops: looks at the data, applies under the lock when free, waits otherwise. */
async function applyWhenFree(
  deps: DataUpdateDeps,
  release: ReleaseData,
  options: DataUpdateOptions,
): Promise<AppliedDataUpdate[]> {
  const applied: AppliedDataUpdate[] = [];
  let lastWaitLogMs: number | undefined;
  for (;;) {
    const census = await readCensus(deps.docs, release);
    assertReadable(census, options.allowNewerData);
    if (pendingUpdates(census, release).length === 0) return applied;
    if (await deps.lease.acquire(DATA_UPDATE_LOCK, deps.owner, ttlOf(options))) {
      const outcome = await applyHoldingLock(deps, release, options, true);
      applied.push(...outcome.applied);
      if (!outcome.lockLost) return applied;
      continue;
    }
    const holder = await deps.lease.holder(DATA_UPDATE_LOCK);
    const nowMs = deps.clock.now().getTime();
    if (holder !== null && (lastWaitLogMs === undefined || nowMs - lastWaitLogMs >= DATA_UPDATE_WAIT_LOG_MS)) {
      deps.logger(waitingLine(holder));
      lastWaitLogMs = nowMs;
    }
    await deps.sleep(options.pollMs ?? DATA_UPDATE_POLL_MS);
  }
}

/**
 * With the lock just taken: reads the data again (another process may have moved it), applies what is
 * pending, one line per update, and releases the lock (also on failure).
 */
async function applyHoldingLock(
  deps: DataUpdateDeps,
  release: ReleaseData,
  options: { lockTtlMs?: number; allowNewerData?: boolean },
  refuse: boolean,
): Promise<{ applied: AppliedDataUpdate[]; lockLost: boolean }> {
  const ttlMs = ttlOf(options);
  let renewedMs = deps.clock.now().getTime();
  let lockLost = false;
  const keepLock = async () => {
    const nowMs = deps.clock.now().getTime();
    if (nowMs - renewedMs < ttlMs / 3) return true;
    renewedMs = nowMs;
    lockLost = !(await deps.lease.renew(DATA_UPDATE_LOCK, deps.owner, ttlMs));
    return !lockLost;
  };
  const applied: AppliedDataUpdate[] = [];
  try {
    const census = await readCensus(deps.docs, release);
    if (refuse) assertReadable(census, options.allowNewerData ?? false);
    for (const { update } of pendingUpdates(census, release)) {
      const outcome = await applyDataUpdate({ docs: deps.docs, clock: deps.clock, keepLock }, update);
      if (outcome.applied.documents > 0) {
        deps.logger(appliedLine(outcome.applied));
        applied.push(outcome.applied);
      }
      if (outcome.lockLost) break;
    }
  } finally {
    if (!lockLost) await deps.lease.release(DATA_UPDATE_LOCK, deps.owner);
  }
  return { applied, lockLost };
}

function ttlOf(options: { lockTtlMs?: number }): number {
  return options.lockTtlMs ?? DATA_UPDATE_LOCK_TTL_MS;
}

/**
 * The data update sweep (every 5 minutes in the dispatcher): brings forward documents a previous
 * release wrote at an older version during a rollout, with the same per-document logic under the
 * same lock. Refuses nothing (boot does that); takes no lock and writes nothing when nothing is
 * pending; skips the round when another process holds the lock.
 *
 * @returns the updates applied, and `skipped: 'lock_held'` when another process held the lock
 * @throws PlatformError `invalid_release`, `data_update_failed`
 *
 * Source: spec/platform-service.md § Data update at boot (the data update sweep); § Limits (every 5 minutes).
 */
export async function runDataUpdateSweep(
  deps: DataUpdateDeps,
  release: ReleaseData,
  options: { lockTtlMs?: number } = {},
): Promise<{ applied: AppliedDataUpdate[]; skipped?: 'lock_held' }> {
  checkRelease(release);
  if (pendingUpdates(await readCensus(deps.docs, release), release).length === 0) return { applied: [] };
  if (!(await deps.lease.acquire(DATA_UPDATE_LOCK, deps.owner, ttlOf(options)))) {
    return { applied: [], skipped: 'lock_held' };
  }
  const { applied } = await applyHoldingLock(deps, release, options, false);
  return { applied };
}

/**
 * The data updates a boot would apply now, oldest first, and the refusal lines it would stop with.
 * Reads only: takes no lock and writes nothing.
 *
 * @param options - `allowNewerData` as PLATFORM_ALLOW_NEWER_DATA; default false
 * @throws PlatformError `invalid_release`
 *
 * Source: spec/platform-service.md § Versioning (an operator tool can list pending data updates).
 */
export async function listPendingDataUpdates(
  deps: { docs: DocumentStore },
  release: ReleaseData,
  options: { allowNewerData?: boolean } = {},
): Promise<{ pending: PendingDataUpdate[]; refusals: string[] }> {
  checkRelease(release);
  const census = await readCensus(deps.docs, release);
  return {
    pending: describePending(pendingUpdates(census, release)),
    refusals: refusalLines(census, options.allowNewerData ?? false),
  };
}
