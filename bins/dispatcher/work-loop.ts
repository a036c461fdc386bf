/**
 * A dispatcher's work over what ./work-deps.ts opened: with an embedded queue store it first takes the
 * single-dispatcher lease and settles records whose jobs were lost; then it consumes every queue (turns, design
 * turns, triggers, webhook firings, environment operations, trigger deployments, polls, evaluations), runs the sweeps
 * (parked turns, evaluations, due waits, pending firings, stale turns every park interval; schedules; polls and
 * callback activations) and the data update sweep every 5 minutes, and stops within the stop timeout.
 *
 * Source: spec/platform-service.md § Processes, § Rules 3, § Single-dispatcher lease, § Replacement, § Data update
 * at boot; docs/decisions.md D24 § 1.
 */
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { platformRelease } from '../../core/boot/platform-release.ts';
import { DATA_UPDATE_SWEEP_INTERVAL_MS, runDataUpdateSweep } from '../../core/data-update/index.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { runDispatcherLease } from '../../core/lease/dispatcher-lease.ts';
import { TRIGGER_QUEUE } from '../../core/trigger/completion-firings.ts';
import { DESIGN_TURN_QUEUE, ensureTurnJob, TURN_QUEUE } from '../../core/session/turn-jobs.ts';
import { WEBHOOK_FIRING_QUEUE } from '../../core/trigger/webhook-firings.ts';
import { SCHEDULE_SWEEP_INTERVAL_MS } from '../../core/trigger/schedule-firings.ts';
import { POLL_QUEUE, POLL_SWEEP_INTERVAL_MS } from '../../core/trigger/poll-sweep.ts';
import { ENVIRONMENT_OPERATIONS_QUEUE } from '../../core/agent/operations-model.ts';
import { startDeploymentWork } from '../../core/boot/deployment-dispatcher.ts';
import { offeredCollectionsOf } from '../../core/boot/deployment-wiring.ts';
import { PARK_SWEEP_INTERVAL_MS } from '../../core/session/park-sweep.ts';
import { queueStoreStart, settleLostJobs } from './settle-lost-jobs.ts';
import { type StoppableConsumer, stopWork } from './stop-work.ts';
import type { WorkDeps, WorkScope } from './work-deps.ts';
import type { DispatcherSettings } from './dispatcher-settings.ts';
import { consumeQueues } from './queue-consumers.ts';
import { startSweeps } from './work-sweeps.ts';

/** The running work: `stop` takes no more work, gives running turns their grace, then closes the queue and stores. */
export interface DispatcherWork {
  stop(): Promise<void>;
}

/** What the work's steps share: the settings, the deps, the log, and the state of the loop. */
interface WorkContext extends WorkScope {
  /** The consumers running now (none before the work starts or after the lease was lost). */
  consumers: StoppableConsumer[];
  /** The park, schedule and poll timers. */
  timers: ReturnType<typeof setInterval>[];
  /** Whether the data update sweep loops. */
  sweeping: boolean;
  stopRequested: boolean;
  /** Wakes the sleeps in progress (a stop). */
  wakers: Set<() => void>;
}

/** A pause of `ms` a stop cuts short. @returns true when it slept the whole time */
function sleep(ctx: WorkContext, ms: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      ctx.wakers.delete(wake);
      resolve(false);
    };
    const timer = setTimeout(() => {
      ctx.wakers.delete(wake);
      resolve(true);
    }, ms);
    ctx.wakers.add(wake);
  });
}

/**
 * When the embedded queue store started (its uptime): operations queued since then are in it, not lost, and settling
 * leaves them to run. An API answering before this dispatcher finished loading queues into it too.
 */
async function queueStoreStartedAt(settings: DispatcherSettings): Promise<Date> {
  const { redis } = settings.started.stores;
  const info = redis ? await redis.info('server').catch(() => '') : '';
  return queueStoreStart(info, new Date()) ?? settings.startedAt;
}

/** Runs the data update sweep every {@link DATA_UPDATE_SWEEP_INTERVAL_MS} while the work sweeps. */
async function sweepLoop(ctx: WorkContext): Promise<void> {
  const { stores: { docs, lease }, owner } = ctx.settings.started;
  const { print, logger } = ctx.settings;
  while (ctx.sweeping && (await sleep(ctx, DATA_UPDATE_SWEEP_INTERVAL_MS))) {
    await runDataUpdateSweep(
      {
        docs,
        lease,
        clock: systemClock,
        logger: print,
        sleep: async (ms) => {
          await sleep(ctx, ms);
        },
        owner,
      },
      platformRelease({ docs, clock: systemClock, ids: cryptoIds }),
    )
      .catch((error: Error) => logger.error({ err: error.message }, 'data update sweep failed'));
  }
}

/**
 * Starts the work: settles lost jobs (embedded mode), consumes the queues, starts the sweeps and the data update loop.
 */
async function startWork(ctx: WorkContext): Promise<void> {
  const { env } = ctx.settings.started.boot;
  const { docs } = ctx.settings.started.stores;
  const { queue, store, builds, designTurnDeps } = ctx.deps;
  const log = ctx.log;
  // Only a dispatcher that took the single-dispatcher lease settles: with a shared queue store nothing was lost.
  if (env.embeddedQueue.enabled) {
    for (
      const line of await settleLostJobs({
        docs,
        clock: systemClock,
        startedAt: await queueStoreStartedAt(ctx.settings),
        requeue: async (turnId) => {
          if (queue) await ensureTurnJob({ queue, docs }, turnId);
        },
      })
    ) log(line);
  }
  if (queue) {
    // Trigger deployments: reconciliations after publish, restore, promotion, credential change, Retry now or a due
    // retry (never at startup).
    const deployments = await startDeploymentWork({
      ...store,
      queue,
      builds,
      offeredCollections: offeredCollectionsOf(ctx.settings.started.boot.config),
      log,
      logError: (what, error) => ctx.settings.logger.error({ err: error.message }, what),
    });
    ctx.consumers = consumeQueues(ctx, queue, deployments);
    ctx.timers.push(...startSweeps(ctx, queue));
    log(
      `dispatcher running: queues ${TURN_QUEUE} (${env.workers.turn.slots} turn slots), ${
        designTurnDeps ? `${DESIGN_TURN_QUEUE}, ` : ''
      }${TRIGGER_QUEUE}, ${WEBHOOK_FIRING_QUEUE}, ${POLL_QUEUE} and ${ENVIRONMENT_OPERATIONS_QUEUE}; park sweep every ${
        PARK_SWEEP_INTERVAL_MS / 1000
      } s; schedules every ${SCHEDULE_SWEEP_INTERVAL_MS / 1000} s; polls and callback activations every ${
        POLL_SWEEP_INTERVAL_MS / 1000
      } s (${env.triggerPollConcurrency} polls at once); data update sweep every 5 minutes`,
    );
  } else {
    log('dispatcher running without a queue store (QUEUE_URL unset): no turn runs; data update sweep every 5 minutes');
  }
  ctx.sweeping = true;
  void sweepLoop(ctx);
}

/** Stops the sweeps and clears their timers. */
function stopSweeps(ctx: WorkContext): void {
  ctx.sweeping = false;
  for (const timer of ctx.timers) clearInterval(timer);
  ctx.timers = [];
}

/**
 * Runs the work: under the single-dispatcher lease in embedded queue mode (the work starts when it is taken and stops
 * when it is lost), else at once until a stop.
 */
export function runDispatcherWork(settings: DispatcherSettings, deps: WorkDeps): DispatcherWork {
  const { env } = settings.started.boot;
  const { docs } = settings.started.stores;
  const log = (line: string) => settings.logger.info({}, line);
  const ctx: WorkContext = {
    settings,
    deps,
    consumers: [],
    timers: [],
    sweeping: false,
    stopRequested: false,
    wakers: new Set(),
    log,
  };
  const onLost = async () => {
    stopSweeps(ctx);
    await Promise.all(ctx.consumers.map((c) => c.stop()));
    ctx.consumers = [];
  };
  const finished = env.embeddedQueue.enabled
    ? runDispatcherLease({
      lease: createDocumentLease(docs, systemClock),
      owner: settings.instanceId,
      clock: systemClock,
      sleep: (ms) => sleep(ctx, ms),
      log,
      onAcquired: () => startWork(ctx),
      onLost,
      stopping: () => ctx.stopRequested,
    })
    : startWork(ctx).then(() =>
      new Promise<void>((resolve) => {
        ctx.wakers.add(resolve);
      })
    );
  return { stop: () => stopDispatcherWork(ctx, finished) };
}

/**
 * A stop takes no more work, gives running turns a bounded grace, then ends them interrupted (./stop-work.ts); the
 * lease (embedded mode) is kept until then and released after. Then the queue, the catalog and the stores close.
 */
async function stopDispatcherWork(ctx: WorkContext, finished: Promise<void>): Promise<void> {
  const { deps } = ctx;
  deps.intakeStop.abort();
  deps.retention.stop();
  stopSweeps(ctx);
  await stopWork({
    consumers: ctx.consumers,
    graceMs: ctx.settings.started.boot.env.stopGraceSeconds * 1000,
    interrupt: deps.stopInterrupt,
    runningTurns: () => deps.runningTurns.size,
    log: ctx.log,
  });
  ctx.consumers = [];
  ctx.stopRequested = true;
  for (const wake of [...ctx.wakers]) wake();
  await finished;
  clearInterval(deps.catalogTimer);
  deps.liveChannel?.close();
  await deps.queue?.close();
  await deps.catalog.close();
  await ctx.settings.started.stores.close();
}
