/**
 * The sweeps of a dispatcher: every park interval the turn, evaluation, due-wait, pending-firing and stale-turn
 * sweeps; the schedule sweep; the poll and callback-activation sweep.
 *
 * Source: spec/platform-service.md § Processes, § Replacement; docs/decisions.md D8 § Triggers.
 */
import { fireDueSchedules, SCHEDULE_SWEEP_INTERVAL_MS } from '../../core/trigger/schedule-firings.ts';
import { enqueueDuePolls, POLL_SWEEP_INTERVAL_MS } from '../../core/trigger/poll-sweep.ts';
import { sweepCallbackTriggers } from '../../core/trigger/callback-addresses.ts';
import { TURN_STALE_MS } from '../../core/session/model.ts';
import { PARK_SWEEP_INTERVAL_MS, sweepDueWaits } from '../../core/session/park-sweep.ts';
import { failStaleTurns } from '../../core/session/stale-turns.ts';
import { sweepEvaluationRuns } from '../../core/evaluation/evaluation-sweep.ts';
import { resumePendingFirings } from '../../core/session/delivery-claims.ts';
import { openFiredSession } from '../../core/session/session-opening.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import { sweepTurns } from './turn-sweep.ts';
import type { WorkScope } from './work-deps.ts';

/** The sweeps of each park interval: turns, evaluations, due waits, pending firings, stale turns. */
function sweepParked(ctx: WorkScope, queue: JobQueue): void {
  const { docs } = ctx.settings.started.stores;
  const { logger } = ctx.settings;
  const { store, enqueueTurn, liveChannel, storeClock } = ctx.deps;
  const log = ctx.log;
  // Use cases left between their writes, and queued turns whose job the queue store lost (every mode).
  void sweepTurns({ ...store, queue, log, ...(liveChannel ? { changes: liveChannel } : {}) })
    .catch((error: Error) => logger.error({ err: error.message }, 'turn sweep failed'));
  if (queue) {
    void sweepEvaluationRuns({ ...store, jobs: queue }).then((lines) => lines.forEach(log)).catch((error: Error) =>
      logger.error({ err: error.message }, 'evaluation sweep failed')
    );
  }
  void sweepDueWaits({ ...store, enqueueTurn }).catch((error: Error) =>
    logger.error({ err: error.message }, 'park sweep failed')
  );
  // Claimed firings whose process stopped before queuing or opening them (core/session/delivery-claims.ts).
  void resumePendingFirings({
    ...store,
    queue,
    log,
    open: (p) => openFiredSession({ ...store, enqueueTurn }, p.target, p.firing),
  })
    .catch((error: Error) => logger.error({ err: error.message }, 'firing resume sweep failed'));
  // With a shared queue store no replacement table runs: a turn whose dispatcher stopped renewing its heartbeat ends
  // failed.
  void failStaleTurns({ docs, clock: storeClock, ...(liveChannel ? { changes: liveChannel } : {}) }).then((ids) => {
    if (ids.length === 0) return;
    log(
      `ended ${ids.length} turn(s) failed whose dispatcher stopped (no heartbeat for ${TURN_STALE_MS / 1000} s): ` +
        'interrupted by a platform restart',
    );
  })
    .catch((error: Error) => logger.error({ err: error.message }, 'stale turn sweep failed'));
}

/**
 * Starts the park, schedule and poll sweeps (the schedule and poll sweeps run once at once). @returns their timers
 */
export function startSweeps(ctx: WorkScope, queue: JobQueue): ReturnType<typeof setInterval>[] {
  const { env } = ctx.settings.started.boot;
  const { logger, print } = ctx.settings;
  const { store, enqueueTurn, builds } = ctx.deps;
  const log = ctx.log;
  const parkTimer = setInterval(() => sweepParked(ctx, queue), PARK_SWEEP_INTERVAL_MS);
  const sweepSchedules = () =>
    void fireDueSchedules({ ...store, enqueueTurn, builds, log: print })
      .catch((error: Error) => logger.error({ err: error.message }, 'schedule sweep failed'));
  sweepSchedules();
  const scheduleTimer = setInterval(sweepSchedules, SCHEDULE_SWEEP_INTERVAL_MS);
  const sweepTriggerCalls = () => {
    void enqueueDuePolls({ ...store, queue, builds, log }).catch((error: Error) =>
      logger.error({ err: error.message }, 'poll sweep failed')
    );
    if (env.appBaseUrl) {
      void sweepCallbackTriggers({ ...store, queue, builds, appBaseUrl: env.appBaseUrl }).catch((error: Error) =>
        logger.error({ err: error.message }, 'callback sweep failed')
      );
    }
  };
  sweepTriggerCalls();
  const pollTimer = setInterval(sweepTriggerCalls, POLL_SWEEP_INTERVAL_MS);
  return [parkTimer, scheduleTimer, pollTimer];
}
