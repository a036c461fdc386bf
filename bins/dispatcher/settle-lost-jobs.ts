/**
 * Settles records whose jobs were lost with a replaced container's embedded queue store, before the
 * new dispatcher runs anything (the replacement table). Each kind of queued work registers its rule
 * here when it exists; turns are the first queued work kind.
 *
 * Source: spec/platform-service.md § Replacement of a container with an embedded queue store.
 */
import type { Clock } from '../../core/ports/clock.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { failInterruptedOperations } from '../../core/agent/hosting.ts';
import { turnsOf } from '../../core/session/session-store.ts';
import { failTurnTree, interruptedError } from '../../core/session/stale-turns.ts';

/**
 * What settling needs: the stores, a way to enqueue a turn again, and when this dispatcher started: an
 * environment operation queued since then went to this container's queue store and is left to run
 * (default: every queued operation is settled).
 */
export interface SettleDeps { docs: DocumentStore; clock: Clock; requeue(turnId: string): Promise<void>; startedAt?: Date }

/** One rule of the replacement table: which records, and what becomes of them. */
export interface SettleRule {
  /** e.g. "queued turn or evaluation → enqueued again". */
  describe: string;
  /** Settles the records; returns how many. */
  settle(deps: SettleDeps): Promise<number>;
}

/**
 * The rules of this release: turns (queued → enqueued again; running → failed, interrupted by a platform restart);
 * environment operations (queued or running → failed, interrupted by a platform restart: run it again).
 * Evaluations and provisioning add theirs when they are queued work.
 */
export const settleRules: SettleRule[] = [
  {
    describe: 'running turn → ended failed, interrupted by a platform restart',
    async settle(deps) {
      // Turns a dispatcher ran (child turns run inside their root's worker and end with it).
      const running = await turnsOf(deps).find({ status: 'running', runner: { $exists: true } });
      for (const turn of running) await failTurnTree(deps, turn, interruptedError);
      return running.length;
    },
  },
  {
    describe: 'queued turn → enqueued again',
    async settle(deps) {
      const queued = await turnsOf(deps).find({ status: 'queued' });
      for (const turn of queued) await deps.requeue(turn._id);
      return queued.length;
    },
  },
  {
    describe: 'queued or running environment operation → ended failed, interrupted by a platform restart (run it again)',
    settle: (deps) => failInterruptedOperations(deps, deps.startedAt),
  },
];

/** Runs every rule; returns one log line per rule that settled something, or one line saying none applied. */
export async function settleLostJobs(deps: SettleDeps): Promise<string[]> {
  const lines: string[] = [];
  for (const rule of settleRules) {
    const count = await rule.settle(deps);
    if (count > 0) lines.push(`settled ${count} record(s): ${rule.describe}`);
  }
  return lines.length > 0 ? lines : ['no records waited on lost jobs'];
}

/**
 * When the queue store started, from its `INFO server` text and the time now: at or before the real start, since
 * `uptime_in_seconds` is whole seconds rounded down (one second more is taken off), so an operation queued in the
 * store's first second is never taken for one lost with a previous store. Undefined when the text has no uptime.
 */
export function queueStoreStart(info: string, now: Date): Date | undefined {
  const uptime = Number(/uptime_in_seconds:(\d+)/.exec(info)?.[1]);
  return Number.isFinite(uptime) ? new Date(now.getTime() - (uptime + 1) * 1000) : undefined;
}
