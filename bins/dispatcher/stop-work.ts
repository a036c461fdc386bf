/**
 * A dispatcher's stop within the stop timeout (120 s): it stops taking work at once, lets running jobs end for a
 * grace (PLATFORM_STOP_GRACE_SECONDS, default 20 s), then ends the turns still running the way the replacement table
 * says (failed, interrupted by a platform restart; their workers stopped), and gives the consumers a last bounded
 * wait before the process closes its stores and exits anyway.
 *
 * Source: platform-service.md § Limits (deployment guidance: stop timeout 120 s), § Replacement of a container;
 * docs/architecture.md § Life of a turn.
 */

/** A queue consumer: `stop()` stops taking jobs and resolves once its running jobs have ended. */
export interface StoppableConsumer { stop(): Promise<void> }

/** What {@link stopWork} needs. */
export interface StopWorkDeps {
  consumers: readonly StoppableConsumer[];
  /** How long running jobs may take to end by themselves (ms). */
  graceMs: number;
  /** Aborted once the grace has passed: turn runners end their turns interrupted and stop their workers. */
  interrupt: AbortController;
  /** The turns this dispatcher runs now (for the log lines). */
  runningTurns(): number;
  /** How long to wait for the consumers after interrupting (ms); default 15 000. */
  afterInterruptMs?: number;
  log(line: string): void;
}

/** How the consumers ended: by themselves, after the interrupt, or not in time (the process goes on to exit). */
export type StopOutcome = 'drained' | 'interrupted' | 'abandoned';

/**
 * Stops every consumer within `graceMs` + `afterInterruptMs`; never throws (a consumer failing to close is logged).
 * @returns how the work ended (see {@link StopOutcome})
 */
export async function stopWork(deps: StopWorkDeps): Promise<StopOutcome> {
  const stopped = Promise.all(deps.consumers.map((c) => c.stop().catch((error: Error) => {
    deps.log(`a queue consumer did not close cleanly: ${error.message}`);
  }))).then(() => true);
  const running = deps.runningTurns();
  if (running > 0) deps.log(`stopping: taking no more work; ${running} turn(s) running get ${deps.graceMs / 1000} s to end`);
  if (await within(stopped, deps.graceMs)) return 'drained';
  deps.log(`stop grace of ${deps.graceMs / 1000} s passed: ending ${deps.runningTurns()} running turn(s) failed, `
    + 'interrupted by a platform restart, and stopping their workers');
  deps.interrupt.abort();
  const afterMs = deps.afterInterruptMs ?? 15_000;
  if (await within(stopped, afterMs)) return 'interrupted';
  deps.log(`queue consumers still busy ${afterMs / 1000} s after the turns were interrupted: exiting without them `
    + '(their jobs stall and run again elsewhere, or the replacement table settles them)');
  return 'abandoned';
}

/** Whether `done` resolved within `ms`. */
async function within(done: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => { timer = setTimeout(() => resolve(false), ms); });
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}
