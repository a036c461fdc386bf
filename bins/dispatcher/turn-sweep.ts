/**
 * The dispatcher's turn sweep (every dispatcher, every mode, beside the park sweep): completes the use cases a
 * process left between its writes and re-queues queued turns whose jobs the queue store no longer holds
 * (core/session/turn-recovery.ts), with one log line per kind of repair.
 *
 * Source: docs/architecture.md § Life of a turn; spec/platform-service.md § Replacement of a container, § Rules 3.
 */
import { ensureTurnJob } from '../../core/session/turn-jobs.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { SessionChanges } from '../../core/ports/session-changes.ts';
import type { SessionStoreDeps } from '../../core/session/session-store.ts';
import { recoverTurns, type TurnRecovery } from '../../core/session/turn-recovery.ts';

/**
 * Runs one turn sweep; `log` gets a line per kind of repair made (none when nothing needed one); `changes` is told
 * of each session it settles.
 */
export async function sweepTurns(
  deps: SessionStoreDeps & { queue: JobQueue; log(line: string): void; changes?: SessionChanges }, graceMs?: number,
): Promise<TurnRecovery> {
  const ensure = (turnId: string) => ensureTurnJob(deps, turnId);
  const done = await recoverTurns({ ...deps, ensureTurnJob: ensure }, { graceMs });
  const { inserted, requeued, settled } = done;
  if (inserted.length > 0) deps.log(`inserted ${inserted.length} turn(s) sessions were moved on for but never got`);
  if (requeued.length > 0) deps.log(`queued ${requeued.length} queued turn(s) again whose job the queue store lacked`);
  if (settled.length > 0) deps.log(`settled ${settled.length} running session(s) that had no turn left`);
  return done;
}
