/**
 * `cairn data-updates list|apply`: the operator tool that lists pending data updates and, with the
 * apply switch, applies them as a boot would (same refusals, same lock, same log lines).
 *
 * Source: spec/platform-service.md § Versioning (an operator tool can list pending data updates and, with an apply switch, apply them as a boot would); § Data update at boot.
 */
import {
  listPendingDataUpdates,
  runDataUpdatesAtBoot,
  type AppliedDataUpdate,
  type PendingDataUpdate,
  type ReleaseData,
} from '../../core/data-update/index.ts';
import type { Clock } from '../../core/ports/clock.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { Lease } from '../../core/ports/lease.ts';

/** Options of {@link dataUpdatesCommand}. */
export interface DataUpdatesCommandOptions {
  /** `list`: report only (reads, no lock); `apply`: apply as a boot would. */
  action: 'list' | 'apply';
  docs: DocumentStore;
  /** The queue store's lease (used by `apply`). */
  lease: Lease;
  clock: Clock;
  /** Waits `ms` milliseconds (used by `apply` while another process holds the lock). */
  sleep(ms: number): Promise<void>;
  /** Lock owner name of this run, e.g. `cairn data-updates@host:pid`. */
  owner: string;
  /** What this release knows about stored data. */
  release: ReleaseData;
  /** PLATFORM_ALLOW_NEWER_DATA of the deployment. */
  allowNewerData: boolean;
  /** Receives each output line (the `[data-updates]` lines included). */
  log: (line: string) => void;
}

/** What the command found and did. */
export interface DataUpdatesCommandResult {
  /** Pending before the run. */
  pending: PendingDataUpdate[];
  /** Refusal lines a boot would stop with (list only; apply throws them). */
  refusals: string[];
  /** Applied by this run (apply only). */
  applied: AppliedDataUpdate[];
}

/**
 * Lists pending data updates (`list`), or applies them as a boot would (`apply`).
 * @returns the pending, refused and applied updates
 * @throws (apply) PlatformError `data_refused` whose message starts with the refusal line, `data_update_failed`, `invalid_release`
 */
export async function dataUpdatesCommand(options: DataUpdatesCommandOptions): Promise<DataUpdatesCommandResult> {
  const { pending, refusals } = await listPendingDataUpdates({ docs: options.docs }, options.release, { allowNewerData: options.allowNewerData });
  if (options.action === 'list') {
    for (const line of refusals) options.log(line);
    for (const u of pending) options.log(`pending: ${u.collection} ${u.from}→${u.to} ${u.description}: ${u.documents} documents`);
    options.log(listSummary(pending, refusals));
    return { pending, refusals, applied: [] };
  }
  const deps = { docs: options.docs, lease: options.lease, clock: options.clock, sleep: (ms: number) => options.sleep(ms), owner: options.owner, logger: options.log };
  const { applied } = await runDataUpdatesAtBoot(deps, options.release, { allowNewerData: options.allowNewerData });
  const none = `no data updates applied by this run: ${pending.length === 0 ? 'nothing was pending' : 'another process applied them'}`;
  options.log(applied.length === 0 ? none : `applied ${applied.length} data updates`);
  return { pending, refusals: [], applied };
}

function listSummary(pending: PendingDataUpdate[], refusals: string[]): string {
  const refused = refusals.length > 0 ? '; a boot would refuse to start (see above)' : '';
  if (pending.length === 0) return `no pending data updates${refused}`;
  return `${pending.length} pending data updates; back up the database, then run cairn data-updates apply (or start the new release)${refused}`;
}
