/**
 * The poll sweep: once a minute every dispatcher enqueues one poll per polling trigger of each environment's current
 * published build that is due, on the `polls` queue. A trigger polled every N minutes (interval_minutes, default 5)
 * is due once per slot of N minutes counted from the Unix epoch ({@link dueSlot}) that it has not been polled in; the
 * job id names the trigger (a digest of environment, workflow and trigger) and the slot, so however many dispatchers
 * sweep, each due slot is enqueued once, and the poll itself claims its slot once (./poll-run.ts). A trigger no
 * longer published forgets its baseline, so a restored one starts with a new first poll.
 *
 * Source: spec/platform-service.md § Rules 4 (once a minute a poll sweep enqueues one poll per active polling
 * trigger; whichever dispatcher claims it runs it), § Limits (poll sweep once a minute); docs/agent-format.md
 * § Triggers (polling); docs/decisions.md D8.
 */
import { agentCollections, type EnvironmentRecord } from '../agent/hosting-model.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { Clock } from '../ports/clock.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import type { PublishedEnvironmentRecord } from '../session/published-environment.ts';

/** The queue polls are put on; consumed with PLATFORM_TRIGGER_POLL_CONCURRENCY. Source: spec § Rules 4. */
export const POLL_QUEUE = 'polls';
/** How often a dispatcher sweeps polling triggers (ms). Source: spec § Limits (poll sweep: once a minute). */
export const POLL_SWEEP_INTERVAL_MS = 60_000;
/** A polling trigger's interval when it names none (minutes). Source: core/agent/trigger-model.ts (polling). */
export const DEFAULT_POLL_INTERVAL_MINUTES = 5;
/** Collection of each polling trigger's state (`_id` = {@link pollKey}). */
export const pollStatesCollection = 'trigger_polls';

/** What is kept per polling trigger of an environment. */
export interface PollStateRecord {
  _id: string;
  schemaVersion: 1;
  agentId: string;
  environment: string;
  workflow: string;
  trigger: string;
  /** The last slot a poll was claimed for ({@link dueSlot}). */
  lastSlot: number;
  lastPolledAt: Date;
  /** Canonical JSON of the call the baseline was taken with; a poll of another call takes a new baseline. */
  baseline?: string;
  /** Why the last poll failed, while it keeps failing (the failure is logged once). */
  failure?: string;
}

/** A poll job (`poll` on {@link POLL_QUEUE}). */
export interface PollJob {
  agentId: string;
  environment: string;
  workflow: string;
  trigger: string;
  slot: number;
}

/** The state key of a polling trigger: `<environment id>/<workflow>/<trigger id>`. */
export const pollKey = (environmentId: string, workflow: string, trigger: string) =>
  `${environmentId}/${workflow}/${trigger}`;

/** The slot `now` falls in for a trigger polled every `intervalMinutes`: whole intervals since the Unix epoch. */
export function dueSlot(now: Date, intervalMinutes: number): number {
  return Math.floor(now.getTime() / (intervalMinutes * 60_000));
}

/** Whether a trigger whose last claimed slot is `lastSlot` (undefined: never polled) is due in `slot`. */
export const isDue = (lastSlot: number | undefined, slot: number) => lastSlot === undefined || lastSlot < slot;

/**
 * Enqueues the due polls; returns the job ids added (a job id already queued adds nothing new).
 * Job ids hold no `:` (BullMQ refuses them): `poll-<first 32 hex of SHA-256 of the key>-<slot>`. An environment
 * whose build cannot be read (or whose polls cannot be queued) is skipped with one line naming it and why, keeping
 * its baselines; the other environments are still swept.
 */
export async function enqueueDuePolls(deps: {
  docs: DocumentStore;
  ids: Ids;
  clock: Clock;
  queue: JobQueue;
  builds: ReturnType<typeof publishedWorkflows>;
  log(line: string): void;
}): Promise<string[]> {
  const added: string[] = [];
  const live = new Set<string>();
  const failed: string[] = [];
  const states = deps.docs.collection<PollStateRecord>(pollStatesCollection);
  const envs = await deps.docs.collection<EnvironmentRecord>(agentCollections.environments).find({
    published: { $ne: null },
  });
  for (const env of envs) {
    if (!env.published) continue;
    try {
      added.push(...await enqueueEnvironmentPolls(deps, env as PublishedEnvironmentRecord, live));
    } catch (error) {
      failed.push(`${env._id}/`);
      const reason = (error as Error).message;
      deps.log(`[triggers] polls of environment "${env.name}" of agent ${env.agentId} were not swept: ${reason}`);
    }
  }
  // A trigger no longer published forgets its baseline: restored later, its first poll takes a new one (items that
  // appeared meanwhile are not fired as new). An environment not swept this time keeps its baselines.
  for (const state of await states.find({ baseline: { $exists: true } })) {
    if (!live.has(state._id) && !failed.some((prefix) => state._id.startsWith(prefix))) {
      await states.updateOne({ _id: state._id }, { $unset: { baseline: true } });
    }
  }
  return added;
}

/** Enqueues the due polls of one environment, adding its polling triggers' keys to `live`. */
async function enqueueEnvironmentPolls(
  deps: Parameters<typeof enqueueDuePolls>[0],
  env: PublishedEnvironmentRecord,
  live: Set<string>,
): Promise<string[]> {
  const now = deps.clock.now();
  const added: string[] = [];
  const states = deps.docs.collection<PollStateRecord>(pollStatesCollection);
  const agent = await deps.builds.agentOf(env.published.buildId);
  for (const trigger of Object.values(agent.workflows).flatMap((w) => w.triggers).filter((t) => t.type === 'polling')) {
    const slot = dueSlot(now, Number(trigger.fields.interval_minutes ?? DEFAULT_POLL_INTERVAL_MINUTES));
    const key = pollKey(env._id, trigger.workflow, trigger.id);
    live.add(key);
    if (!isDue((await states.findOne({ _id: key }))?.lastSlot, slot)) continue;
    const job: PollJob = {
      agentId: env.agentId,
      environment: env.name,
      workflow: trigger.workflow,
      trigger: trigger.id,
      slot,
    };
    const jobId = `poll-${(await deps.ids.sha256Hex(key)).slice(0, 32)}-${slot}`;
    added.push(await deps.queue.add(POLL_QUEUE, 'poll', job, { jobId }));
  }
  return added;
}
