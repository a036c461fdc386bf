/**
 * A fair queue on Redis: the turn queues' half of the {@link JobQueue} port (./bull-job-queue.ts routes the queues
 * it was told to keep fair here). Jobs wait in lanes, tenants and groups (./fair-queue-scripts.ts) and are taken by
 * the rule of docs/decisions.md D24 § 1: interactive first without starving background, round robin between
 * organizations, then between an organization's agents, then in order. Every change is one Lua script, so it holds
 * with any number of dispatchers, and the state is the queue store's, so it holds across their restarts.
 *
 * Like a BullMQ queue, the last 1,000 ended jobs are kept (ids only: `jobState` says `ended`, an add of the id adds
 * nothing until `remove`). Differences, by design: no delay; failed jobs are not told apart from completed ones (what
 * failed is reported to `onFailed`). A taken job holds a lease renewed while its handler runs; when a consumer stops
 * without ending it, the next take after the lease puts it back at the head of its group (a job run twice finds its
 * work done: turns are claimed by compare-and-set, firings carry their keys).
 *
 * Source: docs/decisions.md D24 § 1; docs/architecture.md § Life of a turn.
 */
import type { JobAddOptions, JobCounts, JobLane } from '../../ports/job-queue.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import {
  ADD_SCRIPT,
  COUNTS_SCRIPT,
  DONE_SCRIPT,
  REMOVE_SCRIPT,
  RENEW_SCRIPT,
  STATE_SCRIPT,
  TAKE_SCRIPT,
} from './fair-queue-scripts.ts';
import type { RedisConnection } from './open-redis.ts';

/**
 * How long a taken job is held without a renewal (ms); renewed every third of it while its handler runs. A job whose
 * lease ends goes back to wait at the head of its group (BullMQ's stalled-job check: 30 s, the same bound).
 */
export const FAIR_LEASE_MS = 30_000;

/**
 * Interactive takes in a row while background jobs wait, before one background job is taken (so background gets at
 * least one take in five when interactive work alone would fill every slot).
 */
export const INTERACTIVE_STREAK = 4;

/** Ended jobs' ids kept (`<prefix>:<queue>:fair:e`, scored by their end). */
const KEEP_ENDED = 1000;

const laneCode: Record<JobLane, string> = { interactive: 'i', background: 'b' };

/** A job taken from a fair queue. */
export interface FairJob {
  id: string;
  data: unknown;
}

/** The operations of one fair queue (its keys under `base`). */
export interface FairQueueOps {
  /** @returns whether the job was added (false: that id waits or runs already) */
  add(id: string, data: unknown, place: NonNullable<JobAddOptions['place']>): Promise<boolean>;
  /** The next job by the fairness rule, its lease started; undefined when none waits. */
  take(): Promise<FairJob | undefined>;
  renew(id: string): Promise<void>;
  done(id: string): Promise<void>;
  remove(id: string): Promise<boolean>;
  state(id: string): Promise<'pending' | 'ended' | 'missing'>;
  counts(): Promise<JobCounts>;
  /** The channel published at each add. */
  wakeChannel: string;
  /** How long a taken job is held without a renewal (ms). */
  leaseMs: number;
}

type Eval = (script: string, numKeys: number, ...args: (string | number)[]) => Promise<unknown>;

/**
 * The fair queue `queue` on `connection` under `prefix` (on a cluster the prefix holds braces: one hash slot).
 * `leaseMs` (default {@link FAIR_LEASE_MS}): how long a taken job is held without a renewal.
 * @throws PlatformError `invalid_argument` (400) from `add` without a place
 */
export function fairQueueOps(
  connection: RedisConnection,
  prefix: string,
  queue: string,
  leaseMs = FAIR_LEASE_MS,
): FairQueueOps {
  const base = `${prefix}:${queue}:fair`;
  const run = (script: string, ...args: (string | number)[]) =>
    (connection.eval as unknown as Eval)(script, 1, base, ...args);
  return {
    wakeChannel: `${base}:wake`,
    leaseMs,
    async add(id, data, place) {
      if (!place || !laneCode[place.lane] || !place.tenant || !place.group) {
        throw new PlatformError(
          'invalid_argument',
          `The queue ${queue} is fair: each job needs a place (lane interactive or background, tenant, group).`,
          { status: 400 },
        );
      }
      const added = await run(ADD_SCRIPT, id, laneCode[place.lane], place.tenant, place.group, JSON.stringify(data));
      return added === 1;
    },
    async take() {
      const taken = await run(TAKE_SCRIPT, leaseMs, INTERACTIVE_STREAK) as [string, string] | null;
      return taken ? { id: taken[0], data: JSON.parse(taken[1]) as unknown } : undefined;
    },
    async renew(id) {
      await run(RENEW_SCRIPT, id, leaseMs);
    },
    async done(id) {
      await run(DONE_SCRIPT, id, KEEP_ENDED);
    },
    remove: async (id) => (await run(REMOVE_SCRIPT, id)) === 1,
    state: async (id) => (await run(STATE_SCRIPT, id)) as 'pending' | 'ended' | 'missing',
    async counts() {
      const [interactive, background, taken, ended] = await run(COUNTS_SCRIPT) as number[];
      const lanes = { interactive: Math.max(0, interactive), background: Math.max(0, background) };
      const waiting = lanes.interactive + lanes.background;
      return { waiting, active: taken, completed: ended, failed: 0, delayed: 0, lanes };
    },
  };
}
