/**
 * Delivery claims (collection `trigger_deliveries`): a firing id is taken once, by an insert under a unique `_id`, so
 * retries and concurrent duplicates fire once. A claim may carry the work still owed for it (`pending`): the job to
 * put on a queue (a webhook delivery the API acknowledged) or the session to open (a schedule run, a polled item, a
 * callback firing). The claim and what it owes are one write, so a process that stops right after the claim leaves
 * a record the resume sweep finishes ({@link resumePendingFirings}, run by every dispatcher), instead of a firing
 * every retry of which is answered `duplicate` for 30 days.
 *
 * Source: spec/platform-service.md § Firings, § Webhook firing payload; docs/architecture.md § Life of a turn (1),
 * § Queues and collections (`trigger_deliveries`).
 */
import type { JobPlace, JobQueue } from '../ports/job-queue.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { sessionCollections, sessionSchemaVersion } from './model.ts';
import type { Firing, FiringTarget } from './firing-model.ts';
import type { SessionStoreDeps } from './session-store.ts';

/** Collection of claimed deliveries (`_id` = `<scope>:<deliveryId>`). */
export const deliveriesCollection = sessionCollections.deliveries;

const deliveryKey = (scope: string, deliveryId: string) => `${scope}:${deliveryId}`;

/** A job a claim still has to put on a queue; `jobId` is deterministic per firing, so adding it twice adds it once. */
export interface PendingJob {
  queue: string;
  name: string;
  jobId: string;
  data: unknown;
  /** Its place on a fair queue (core/ports/job-queue.ts), absent for others. */
  place?: JobPlace;
}

/** The session a claim still has to open (with `firing.firingKey` set, so opening it twice opens it once). */
export interface PendingOpen {
  target: FiringTarget;
  firing: Firing;
}

/** What a claim still owes: a job to queue, or a session to open. Absent once done. */
export type PendingFiring = { job: PendingJob } | { open: PendingOpen };

/** A claimed delivery. */
export interface DeliveryRecord {
  _id: string;
  schemaVersion: typeof sessionSchemaVersion;
  scope: string;
  deliveryId: string;
  claimedAt: Date;
  /** The work still owed for this firing (payload bounded by its endpoint, e.g. 256 KiB); removed once done. */
  pending?: PendingFiring;
  /** `pending` while work is owed (an indexed equality, so the resume sweep reads only those); removed once done. */
  status?: 'pending';
}

/** Claims made within this (ms) are left to the process that made them; older pending claims are resumed. */
export const PENDING_FIRING_GRACE_MS = 60_000;

/** Most pending claims one sweep resumes (the rest wait for the next sweep). */
const RESUME_BATCH = 200;

const deliveriesOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<DeliveryRecord>(deliveriesCollection);

/**
 * Claims delivery `deliveryId` of `scope` (e.g. a connection id) once: true for the first claim, false for every
 * later one, also under concurrent duplicates (the store's unique `_id` decides, not a read-then-write). With
 * `pending`, the claim records the work still owed in the same insert; call {@link settleDelivery} once it is done.
 */
export async function claimDelivery(
  deps: Pick<SessionStoreDeps, 'docs' | 'clock'>,
  scope: string,
  deliveryId: string,
  pending?: PendingFiring,
): Promise<boolean> {
  try {
    await deliveriesOf(deps).insertOne({
      _id: deliveryKey(scope, deliveryId),
      schemaVersion: sessionSchemaVersion,
      scope,
      deliveryId,
      claimedAt: deps.clock.now(),
      ...(pending ? { pending, status: 'pending' as const } : {}),
    });
    return true;
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) return false;
    throw error;
  }
}

/** Records that a claim's pending work is done (its session opened): its payload is dropped. */
export async function settleDelivery(
  deps: Pick<SessionStoreDeps, 'docs'>,
  scope: string,
  deliveryId: string,
): Promise<void> {
  const done = { $unset: { pending: true, status: true } as const };
  await deliveriesOf(deps).updateOne({ _id: deliveryKey(scope, deliveryId) }, done);
}

/** Releases a claim whose firing could not be taken (queue store down), so the sender's retry is taken. */
export async function releaseDelivery(
  deps: Pick<SessionStoreDeps, 'docs'>,
  scope: string,
  deliveryId: string,
): Promise<void> {
  await deliveriesOf(deps).deleteOne({ _id: deliveryKey(scope, deliveryId) });
}

/**
 * Creates the index the resume sweep reads by (pending claims only; idempotent, run at a dispatcher's boot). The
 * claims' expiry index (`claimedAt`) is made with the session indexes (core/session/session-store.ts).
 */
export async function ensureDeliveryIndexes(docs: SessionStoreDeps['docs']): Promise<void> {
  await docs.collection(deliveriesCollection).createIndex({ status: 1 });
}

/** What the resume sweep needs: the stores, a way to open a pending session, and the queue for pending jobs. */
export interface ResumeDeps extends Pick<SessionStoreDeps, 'docs' | 'clock'> {
  queue?: Pick<JobQueue, 'add' | 'jobState'>;
  /** Opens a pending session (core/session/firings.ts `openFiredSession`, idempotent by the firing key). */
  open(pending: PendingOpen): Promise<unknown>;
  log(line: string): void;
}

/**
 * The resume sweep: finishes claims made more than {@link PENDING_FIRING_GRACE_MS} ago whose work is still pending.
 * - A claim owing a session opens it under its firing key (its process stopped before), then is settled.
 * - A claim owing a job (a webhook delivery: pending until the dispatcher's handler has opened its session and
 *   settled it, so the API writes once per delivery) is looked up on the queue: a job still waiting or running is
 *   left to its handler; a missing one (never added, or lost by a queue store that restarted empty) is added again
 *   under its own job id; an ended one (its handler stopped before settling; a failed one is recorded in
 *   `failed_jobs`) is settled.
 * Every step is idempotent, so a claim whose work was in fact done fires nothing twice. A claim that fails again is
 * logged by id (never its payload) and tried at the next sweep.
 * @returns the claim ids resumed (a job added again, a session opened, an ended job's claim settled)
 */
export async function resumePendingFirings(deps: ResumeDeps): Promise<string[]> {
  const before = new Date(deps.clock.now().getTime() - PENDING_FIRING_GRACE_MS);
  const stale = await deliveriesOf(deps).find(
    { status: 'pending', claimedAt: { $lt: before } },
    { sort: { claimedAt: 1 }, limit: RESUME_BATCH },
  );
  const resumed: string[] = [];
  for (const record of stale) {
    const pending = record.pending!;
    try {
      if ('job' in pending) {
        if (!deps.queue) continue;
        const { queue, name, jobId, data, place } = pending.job;
        const state = await deps.queue.jobState(queue, jobId);
        if (state === 'pending') continue;
        if (state === 'missing') {
          await deps.queue.add(queue, name, data, { jobId, ...(place ? { place } : {}) });
          resumed.push(record._id);
          continue;
        }
      } else {
        await deps.open(pending.open);
      }
      await settleDelivery(deps, record.scope, record.deliveryId);
      resumed.push(record._id);
    } catch (error) {
      const reason = (error as Error).message;
      deps.log(`[triggers] claimed firing ${record._id} could not be resumed (${reason}); trying again next sweep`);
    }
  }
  return resumed;
}
