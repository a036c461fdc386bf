/**
 * dispatcher: consumes every queue (turns, triggers, environment operations, polls, evaluations) and runs the sweeps (the data
 * update sweep every 5 minutes). With an embedded queue store (PLATFORM_EMBEDDED_QUEUE=on) it first
 * takes the single-dispatcher lease and settles records whose jobs were lost before running anything.
 *
 * Source: spec/platform-service.md § Processes, § Rules 3, § Single-dispatcher lease,
 * § Replacement, § Data update at boot.
 */
import { hostname, tmpdir } from 'node:os';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { semanticCollectionOwners } from '../../core/boot/service-owners.ts';
import { credentialCatalog, deploymentTokenRule, offersOf, organizationCounter } from '../../core/boot/collection-access.ts';
import { openSecretStore } from '../../core/boot/secret-store.ts';
import { createOAuthClient } from '../../core/adapters/oauth/index.ts';
import { collectionCredentials, ensureCollectionIndexes } from '../../core/collection/index.ts';
import { turnCost } from '../../core/boot/turn-cost.ts';
import { genAiModels } from '../../core/boot/gen-ai-models.ts';
import { platformRelease } from '../../core/boot/platform-release.ts';
import { startRole, stopOnSignals } from '../../core/boot/start-role.ts';
import { DATA_UPDATE_SWEEP_INTERVAL_MS, runDataUpdateSweep } from '../../core/data-update/index.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { runDispatcherLease } from '../../core/lease/dispatcher-lease.ts';
import { createAiModelProvider } from '../../core/adapters/models/ai-model-provider.ts';
import { createServiceCatalog } from '../../core/adapters/mcp-services/index.ts';
import { createBullJobQueue, createRedisTextDeltas } from '../../core/adapters/redis/index.ts';
import { isCompiledExecutable } from '../../core/adapters/runtime/app-directory.ts';
import { createWorkerLauncher, workerProgramFor } from '../../core/adapters/worker/index.ts';
import { createRemoteWorkerLauncher } from '../../core/adapters/worker-host/index.ts';
import { queueCompletionFiring, runCompletionFiring, TRIGGER_QUEUE } from '../../core/trigger/completion-firings.ts';
import { FAIR_QUEUES } from '../../core/boot/fair-queues.ts';
import { observeDispatcherQueues } from '../../core/boot/queue-depths.ts';
import { DESIGN_TURN_QUEUE, enqueueTurnJob, ensureTurnJob, TURN_QUEUE } from '../../core/session/turn-jobs.ts';
import { designRunnerDeps } from '../../core/boot/design-wiring.ts';
import { ensureDesignIndexes } from '../../core/design/design-runtime.ts';
import { runWebhookJob, WEBHOOK_FIRING_QUEUE, type WebhookJob } from '../../core/trigger/webhook-firings.ts';
import { fireDueSchedules, SCHEDULE_SWEEP_INTERVAL_MS } from '../../core/trigger/schedule-firings.ts';
import { enqueueDuePolls, POLL_QUEUE, POLL_SWEEP_INTERVAL_MS, type PollJob } from '../../core/trigger/poll-sweep.ts';
import { runPoll } from '../../core/trigger/poll-run.ts';
import { callbackLive, ensureCallbackIndexes, runCallbackActivation, sweepCallbackTriggers, type CallbackActivationJob } from '../../core/trigger/callback-addresses.ts';
import { runCallbackDeactivation, type CallbackDeactivationJob } from '../../core/trigger/callback-lifecycle.ts';
import { runCallbackDelivery, type CallbackDelivery } from '../../core/trigger/callback-runs.ts';
import { runKeyedFiring, type KeyedFiringJob } from '../../core/trigger/keyed-firings.ts';
import { consumeEnvironmentOperations, ENVIRONMENT_OPERATIONS_QUEUE, operationHostingDeps } from '../../core/boot/environment-operations.ts';
import { startDeploymentWork } from '../../core/boot/deployment-dispatcher.ts';
import { applyConnectionEditsAfter } from '../../core/boot/connection-wiring.ts';
import { offeredCollectionsOf } from '../../core/boot/deployment-wiring.ts';
import type { CompletionFiring } from '../../core/session/completion.ts';
import { TURN_STALE_MS } from '../../core/session/model.ts';
import { PARK_SWEEP_INTERVAL_MS, sweepDueWaits } from '../../core/session/park-sweep.ts';
import { failStaleTurns } from '../../core/session/stale-turns.ts';
import { runQueuedTurn } from '../../core/session/turn-runner.ts';
import { waitForTurnRoom } from '../../core/session/turn-intake.ts';
import { evaluationGatePort, evaluationModelsOf, evaluationRunnerDeps } from '../../core/boot/evaluation-wiring.ts';
import { ensureEvaluationIndexes, runEvaluation, sweepEvaluationRuns } from '../../core/evaluation/evaluation-runs.ts';
import { EVALUATION_QUEUE } from '../../core/evaluation/model.ts';
import { publishedWorkflows } from '../../core/session/build-workflows.ts';
import { workerEnvironment } from '../../core/config/worker-environment.ts';
import { ensureSessionIndexes } from '../../core/session/session-store.ts';
import { ensureDecisionLinkIndexes } from '../../core/session/decision-links.ts';
import { notifyParkedDecision } from '../../core/session/decision-notify.ts';
import { ensureDeliveryIndexes, resumePendingFirings } from '../../core/session/delivery-claims.ts';
import { openFiredSession } from '../../core/session/firings.ts';
import { queueStoreStart, settleLostJobs } from './settle-lost-jobs.ts';
import { sweepTurns } from './turn-sweep.ts';
import { failedJobQueueOptions, startRetention } from './retention-sweep.ts';
import { createStoreClock } from '../../core/adapters/redis/index.ts';
import { stopWork } from './stop-work.ts';
import { startTelemetry } from '../telemetry/start.ts';
import { captureMessageContent } from '../telemetry/content-capture.ts';

// OpenTelemetry first (nothing loaded unless OTEL_* variables ask for it; docs/decisions.md D25 § 1).
const telemetry = await startTelemetry(process.env, 'cairn-dispatcher');

const print = (line: string) => process.stdout.write(`${line}\n`);
const logger = createPinoLogger({ name: 'dispatcher' });
/** This process's start: a fallback for when the queue store cannot say when it started. */
const startedAt = systemClock.now();
/**
 * When the embedded queue store started (its uptime): operations queued since then are in it, not lost, and settling
 * leaves them to run. An API answering before this dispatcher finished loading queues into it too.
 */
async function queueStoreStartedAt(): Promise<Date> {
  const info = stores.redis ? await stores.redis.info('server').catch(() => '') : '';
  return queueStoreStart(info, new Date()) ?? startedAt;
}
const instanceId = process.env.PLATFORM_INSTANCE_ID ?? `${hostname()}-${process.pid}`;
const { boot, stores, owner: leaseOwner } = await startRole('dispatcher', {
  env: process.env,
  dirs: { appDir: appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR), tmpDir: tmpdir() },
  instanceId,
  print,
  printError: (line) => console.error(line),
  exit: (code) => process.exit(code),
});
const { env } = boot;
const { docs, objects, lease } = stores;
const appDir = appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR);
await ensureSessionIndexes(docs);
await ensureDecisionLinkIndexes(docs);
await ensureDeliveryIndexes(docs);
await ensureCallbackIndexes(docs);
await ensureEvaluationIndexes(docs);
await ensureDesignIndexes(docs);
// Failed jobs kept within the retention settings, each recorded in failed_jobs without its payload; the retention
// sweep (one dispatcher at a time) removes what is past its retention (./retention-sweep.ts).
const queue = stores.redis ? createBullJobQueue({
  connection: stores.redis, onError: (error) => logger.warn({ err: error.message }, 'queue store error'),
  fairQueues: FAIR_QUEUES,
  ...failedJobQueueOptions({ docs, clock: systemClock, retention: env.retention }),
}) : undefined;
// The gauge cairn.queue.depth, read from the queue store at each metrics collection only (docs/decisions.md D25 § 2).
if (queue) observeDispatcherQueues(queue);
const retention = await startRetention(
  { docs, objects, clock: systemClock, lease, owner: leaseOwner, retention: env.retention, log: (line) => logger.info({}, line) },
  (error) => logger.error({ err: error.message }, 'retention sweep failed'),
);
// A service that fails discovery (e.g. semantic-mcp still starting beside us) is tried again after 5 s (logged once per outage).
// Each call carries its organization's credential for the collection, and an organization is offered only the
// collections it connected or whose service token is its own (core/boot/collection-access.ts; docs/decisions.md D22 § 4).
const secrets = openSecretStore(env.secretStore, { docs, clock: systemClock, ids: cryptoIds });
await ensureCollectionIndexes(docs);
const tokenRule = deploymentTokenRule(semanticCollectionOwners({ docs, ids: cryptoIds }, boot.config.services), organizationCounter(docs, systemClock));
// A connection's OAuth refresh is made by one dispatcher at a time, under its lease on the document store every
// dispatcher shares (core/collection/oauth-refresh.ts).
const credentials = collectionCredentials({ docs, clock: systemClock, secrets, offers: offersOf(boot.config), oauth: createOAuthClient(), lease: createDocumentLease(docs, systemClock), owner: leaseOwner, log: print, ...tokenRule });
const catalog = credentialCatalog(createServiceCatalog({ services: boot.config.services, log: print, retryAfterMs: 5_000 }), credentials);
void catalog.warm();
// Retries are due on the next look at the catalog: look every 5 s so a late service is offered before a turn needs it.
const catalogTimer = setInterval(() => { void catalog.tools().catch(() => undefined); }, 5_000);
// Workers run on the worker host when PLATFORM_WORKER_HOST names one (this process keeps its slots), else here.
const workerSlots = { turn: env.workers.turn.slots, call: env.workers.call.slots };
const launcher = env.remoteWorkerHost
  ? createRemoteWorkerLauncher({ host: env.remoteWorkerHost.hostname, port: env.remoteWorkerHost.port, key: env.remoteWorkerHost.key, slots: workerSlots, log: print })
  : createWorkerLauncher({
    program: workerProgramFor({ execPath: process.execPath, compiled: isCompiledExecutable(process.execPath), appDir }),
    environment: (kind, memoryMb) => workerEnvironment(env, { kind, memoryLimitMb: memoryMb }),
    slots: workerSlots, log: print, inspect: env.workers.inspect,
    // Each worker in its own namespaces (no network, no other process in sight); refused in production without them.
    isolation: env.workers.isolation, production: env.production, path: process.env.PATH,
  });
const builds = publishedWorkflows({ docs, objects });
/** The stores every session use case of this process works on. */
// Times of turns and heartbeats come from the queue store's clock, which every dispatcher shares: staleness compares
// one clock, not each machine's (core/adapters/redis/store-clock.ts).
const storeClock = stores.redis
  ? await createStoreClock(stores.redis, { onError: (error) => logger.warn({ err: error.message }, 'queue store clock') })
    .catch((error: Error) => {
      logger.warn({ err: error.message }, 'queue store clock unavailable: local clock');
      return systemClock;
    })
  : systemClock;
const store = { docs, objects, clock: storeClock, ids: cryptoIds };
/** Aborted when a stop's grace has passed: running turns end interrupted (./stop-work.ts). */
const stopInterrupt = new AbortController();
/** Aborted when a stop starts: firings waiting for room in the turn queue go on (core/session/turn-intake.ts). */
const intakeStop = new AbortController();
/** Bounded intake: background turns waiting at which firings wait, twice this dispatcher's turn slots. */
const intake = { queue: queue!, bound: env.workers.turn.slots * 2, stop: intakeStop.signal, sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)) };
/** Turns this dispatcher runs now (for the stop's log lines). */
const runningTurns = new Set<string>();
const liveChannel = stores.redis
  ? createRedisTextDeltas(stores.redis, (error) => logger.warn({ err: error.message }, 'live channel publish failed'))
  : undefined;
const baseModels = createAiModelProvider({ models: boot.config.models });
const evaluationModels = evaluationModelsOf(store, baseModels);
const enqueueTurn = async (turnId: string) => { if (queue) await enqueueTurnJob({ queue, docs }, turnId); };
const turnDeps = {
  ...store, enqueueTurn, launcher, catalog, instanceId, interrupt: stopInterrupt.signal,
  models: baseModels, costOf: turnCost(boot.config.models), describeModel: genAiModels(boot.config.models),
  // An evaluation session's model calls are recorded, or answered from a recording, as its run says.
  evaluationModels,
  promptCache: { enabled: env.promptCache, ttl: env.promptCacheTtl }, limits: env.workers.turn,
  workflowOf: builds.workflowOf, log: print,
  // Message content on spans only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (D25).
  captureMessageContent: captureMessageContent(process.env),
  afterTurn: async (turnId: string) => {
    if (queue) await queueCompletionFiring({ ...store, queue }, turnId);
    // A decision the turn parked on goes out where its human state's `notify` says (docs/decisions.md D26 § 3).
    await notifyParkedDecision({ ...store, catalog, agentOf: builds.agentOf, appBaseUrl: env.appBaseUrl ?? '', log: print }, turnId);
  },
  // Live text of model calls for the AG-UI streams, and change notifications (Redis pub/sub on the queue store).
  ...(liveChannel ? { textDeltas: liveChannel, changes: liveChannel } : {}),
};
const operationDeps = {
  ...operationHostingDeps({ ...store, scratchDir: env.scratchDir, models: boot.config.models }),
  // A gated publish runs the draft's cases through the evaluations queue; a gated promotion reads the runs.
  evaluationGate: evaluationGatePort({ ...store, queue }),
};
// Design chats' turns: the designAgent model, the design workflow and tools, in turn workers like any turn.
const designTurnDeps = designRunnerDeps({
  turns: turnDeps, config: boot.config, services: catalog, queue: queue ?? undefined,
  hosting: operationHostingDeps({ ...store, scratchDir: env.scratchDir }),
});
/** A step of an evaluation case may take a turn's wall time and a minute more before the case fails. */
const evaluationRunner = evaluationRunnerDeps({
  ...store, enqueueTurn, workflowOf: builds.workflowOf, agentOf: builds.agentOf, models: turnDeps.models, costOf: turnDeps.costOf,
  promptCache: turnDeps.promptCache,
  settleTimeoutMs: (env.workers.turn.wallTimeSeconds + 60) * 1000, log: print,
});
/** Polls, callback runs and callback activations run in call workers; the broker's calls go through the catalog. */
const triggerCallDeps = { ...store, enqueueTurn, builds, launcher, catalog, callLimits: env.workers.call, log: print, appBaseUrl: env.appBaseUrl ?? '' };
let pollTimer: ReturnType<typeof setInterval> | undefined;
let parkTimer: ReturnType<typeof setInterval> | undefined;
let scheduleTimer: ReturnType<typeof setInterval> | undefined;
/** A job handler whose failure is logged (the job is kept failed for inspection, as the queue port says). */
const logged = (queueName: string, handler: (job: { id: string; name: string; data: unknown }) => Promise<void>) => async (job: { id: string; name: string; data: unknown }) => {
  try {
    await handler(job);
  } catch (error) {
    logger.error({ queue: queueName, job: job.id, err: (error as Error).message }, 'job failed');
    throw error;
  }
};
let consumers: { stop(): Promise<void> }[] = [];
let stopRequested = false;
const wakers = new Set<() => void>();
const sleep = (ms: number) => new Promise<boolean>((resolve) => {
  const wake = () => { clearTimeout(timer); wakers.delete(wake); resolve(false); };
  const timer = setTimeout(() => { wakers.delete(wake); resolve(true); }, ms);
  wakers.add(wake);
});
const log = (line: string) => logger.info({}, line);
let sweeping = false;

async function sweepLoop(): Promise<void> {
  while (sweeping && (await sleep(DATA_UPDATE_SWEEP_INTERVAL_MS))) {
    await runDataUpdateSweep(
      { docs, lease, clock: systemClock, logger: print, sleep: async (ms) => { await sleep(ms); }, owner: leaseOwner },
      platformRelease({ docs, clock: systemClock, ids: cryptoIds }),
    )
      .catch((error: Error) => logger.error({ err: error.message }, 'data update sweep failed'));
  }
}

async function startWork(): Promise<void> {
  // Only a dispatcher that took the single-dispatcher lease settles: with a shared queue store nothing was lost.
  if (env.embeddedQueue.enabled) for (const line of await settleLostJobs({ docs, clock: systemClock, startedAt: await queueStoreStartedAt(), requeue: async (turnId) => { if (queue) await ensureTurnJob({ queue, docs }, turnId); } })) log(line);
  if (queue) {
    // Trigger deployments: reconciliations after publish, restore, promotion, credential change, Retry now or a due retry (never at startup).
    const deployments = await startDeploymentWork({ ...store, queue, builds, offeredCollections: offeredCollectionsOf(boot.config), log, logError: (what, error) => logger.error({ err: error.message }, what) });
    // The turn queues are fair (core/adapters/redis/fair-queue.ts): a turn is taken when a slot can run it,
    // interactive first, round robin between organizations and their agents (docs/decisions.md D24 § 1).
    consumers = [
      queue.consume(TURN_QUEUE, logged(TURN_QUEUE, async (job) => {
        const { turnId } = job.data as { turnId: string };
        runningTurns.add(turnId);
        try { await runQueuedTurn(turnDeps, turnId); } finally { runningTurns.delete(turnId); }
      }), { concurrency: env.workers.turn.slots }),
      // Without a designAgent section no design chat starts (the API refuses), so none is queued.
      ...(designTurnDeps ? [queue.consume(DESIGN_TURN_QUEUE, logged(DESIGN_TURN_QUEUE, async (job) => {
        const { turnId } = job.data as { turnId: string };
        runningTurns.add(turnId);
        try { await runQueuedTurn(designTurnDeps, turnId); } finally { runningTurns.delete(turnId); }
      }), { concurrency: env.workers.turn.slots })] : []),
      queue.consume(TRIGGER_QUEUE, logged(TRIGGER_QUEUE, async (job) => {
        // Bounded intake: a firing opens its session only while few background turns wait (core/session/turn-intake.ts).
        if (job.name !== 'callback-activate' && job.name !== 'callback-deactivate') await waitForTurnRoom(intake, () => performance.now());
        const firingDeps = { ...store, enqueueTurn, builds };
        if (job.name === 'completion') await runCompletionFiring(firingDeps, (job.data as { firing: CompletionFiring }).firing);
        // A keyed session that is busy (running, or awaiting a decision) takes the delivery later: runWebhookJob re-queues it with a delay.
        if (job.name === 'webhook') await runWebhookJob({ ...firingDeps, queue, log: print }, job.data as WebhookJob);
        if (job.name === 'callback') await runCallbackDelivery({ ...triggerCallDeps, queue }, job.data as CallbackDelivery);
        if (job.name === 'keyed-firing') await runKeyedFiring({ ...firingDeps, queue, log: print }, job.data as KeyedFiringJob);
        if (job.name === 'callback-activate') await runCallbackActivation(triggerCallDeps, job.data as CallbackActivationJob);
        if (job.name === 'callback-deactivate') await runCallbackDeactivation({ ...triggerCallDeps, isLive: (record) => callbackLive(triggerCallDeps, record) }, job.data as CallbackDeactivationJob);
      }), { concurrency: 2 }),
      // Webhook deliveries' firings, fair between organizations and their agents, at the pace turns end (bounded intake).
      queue.consume(WEBHOOK_FIRING_QUEUE, logged(WEBHOOK_FIRING_QUEUE, async (job) => {
        await waitForTurnRoom(intake, () => performance.now());
        await runWebhookJob({ ...store, enqueueTurn, builds, queue, log: print }, job.data as WebhookJob);
      }), { concurrency: 2 }),
      consumeEnvironmentOperations(queue, operationDeps, log, { afterEnded: async (op) => {
        await applyConnectionEditsAfter(store, op, log).catch((error: Error) => log(`connection edits after environment operation ${op._id} were not applied: ${error.message}`));
        await deployments.afterEnded(op);
      } }),
      deployments,
      // Polls at once per dispatcher: PLATFORM_TRIGGER_POLL_CONCURRENCY (Rule 4); each takes a call slot while it runs.
      queue.consume(POLL_QUEUE, logged(POLL_QUEUE, async (job) => { await waitForTurnRoom(intake, () => performance.now()); await runPoll(triggerCallDeps, job.data as PollJob); }), { concurrency: env.triggerPollConcurrency }),
      // Evaluation runs, one at a time: their cases' turns go through the turn queue like any other (core/evaluation).
      queue.consume(EVALUATION_QUEUE, logged(EVALUATION_QUEUE, async (job) => { await runEvaluation(evaluationRunner, (job.data as { runId: string }).runId); }), { concurrency: 1 }),
    ];
    parkTimer = setInterval(() => {
      // Use cases left between their writes, and queued turns whose job the queue store lost (every mode).
      void sweepTurns({ ...store, queue, log, ...(liveChannel ? { changes: liveChannel } : {}) })
        .catch((error: Error) => logger.error({ err: error.message }, 'turn sweep failed'));
      if (queue) void sweepEvaluationRuns({ ...store, jobs: queue }).then((lines) => lines.forEach(log)).catch((error: Error) => logger.error({ err: error.message }, 'evaluation sweep failed'));
      void sweepDueWaits({ ...store, enqueueTurn }).catch((error: Error) => logger.error({ err: error.message }, 'park sweep failed'));
      // Claimed firings whose process stopped before queuing or opening them (core/session/delivery-claims.ts).
      void resumePendingFirings({ ...store, queue, log, open: (p) => openFiredSession({ ...store, enqueueTurn }, p.target, p.firing) })
        .catch((error: Error) => logger.error({ err: error.message }, 'firing resume sweep failed'));
      // With a shared queue store no replacement table runs: a turn whose dispatcher stopped renewing its heartbeat ends failed.
      void failStaleTurns({ docs, clock: storeClock, ...(liveChannel ? { changes: liveChannel } : {}) }).then((ids) => {
        if (ids.length === 0) return;
        log(`ended ${ids.length} turn(s) failed whose dispatcher stopped (no heartbeat for ${TURN_STALE_MS / 1000} s): `
          + 'interrupted by a platform restart');
      })
        .catch((error: Error) => logger.error({ err: error.message }, 'stale turn sweep failed'));
    }, PARK_SWEEP_INTERVAL_MS);
    const sweepSchedules = () => void fireDueSchedules({ ...store, enqueueTurn, builds, log: print })
      .catch((error: Error) => logger.error({ err: error.message }, 'schedule sweep failed'));
    sweepSchedules();
    scheduleTimer = setInterval(sweepSchedules, SCHEDULE_SWEEP_INTERVAL_MS);
    const sweepTriggerCalls = () => {
      void enqueueDuePolls({ ...store, queue, builds, log }).catch((error: Error) => logger.error({ err: error.message }, 'poll sweep failed'));
      if (env.appBaseUrl) void sweepCallbackTriggers({ ...store, queue, builds, appBaseUrl: env.appBaseUrl }).catch((error: Error) => logger.error({ err: error.message }, 'callback sweep failed'));
    };
    sweepTriggerCalls();
    pollTimer = setInterval(sweepTriggerCalls, POLL_SWEEP_INTERVAL_MS);
    log(`dispatcher running: queues ${TURN_QUEUE} (${env.workers.turn.slots} turn slots), ${designTurnDeps ? `${DESIGN_TURN_QUEUE}, ` : ''}${TRIGGER_QUEUE}, ${WEBHOOK_FIRING_QUEUE}, ${POLL_QUEUE} and ${ENVIRONMENT_OPERATIONS_QUEUE}; park sweep every ${PARK_SWEEP_INTERVAL_MS / 1000} s; schedules every ${SCHEDULE_SWEEP_INTERVAL_MS / 1000} s; polls and callback activations every ${POLL_SWEEP_INTERVAL_MS / 1000} s (${env.triggerPollConcurrency} polls at once); data update sweep every 5 minutes`);
  } else {
    log('dispatcher running without a queue store (QUEUE_URL unset): no turn runs; data update sweep every 5 minutes');
  }
  sweeping = true;
  void sweepLoop();
}

const finished = env.embeddedQueue.enabled
  ? runDispatcherLease({ lease: createDocumentLease(docs, systemClock), owner: instanceId, clock: systemClock, sleep, log, onAcquired: startWork, onLost: async () => { sweeping = false; clearInterval(parkTimer); clearInterval(scheduleTimer); clearInterval(pollTimer); await Promise.all(consumers.map((c) => c.stop())); consumers = []; }, stopping: () => stopRequested })
  : startWork().then(() => new Promise<void>((resolve) => { wakers.add(resolve); }));

// A stop takes no more work, gives running turns a bounded grace, then ends them interrupted (./stop-work.ts); the
// lease (embedded mode) is kept until then and released after.
stopOnSignals(process, async () => {
  intakeStop.abort();
  retention.stop();
  sweeping = false;
  clearInterval(parkTimer);
  clearInterval(scheduleTimer);
  clearInterval(pollTimer);
  await stopWork({
    consumers, graceMs: env.stopGraceSeconds * 1000, interrupt: stopInterrupt, runningTurns: () => runningTurns.size, log,
  });
  consumers = [];
  stopRequested = true;
  for (const wake of [...wakers]) wake();
  await finished;
  clearInterval(catalogTimer);
  liveChannel?.close();
  await queue?.close();
  await catalog.close();
  await stores.close();
  await telemetry.shutdown();
}, (code) => process.exit(code));
