/**
 * The parts a dispatcher's work is built on: the collections' indexes, the job queue, the retention sweep, the tool
 * catalog with organizations' credentials, the worker launcher, the queue store's clock, the live channel.
 *
 * Source: spec/platform-service.md § Processes, § Rules 3; docs/decisions.md D22 § 4, D25 § 2.
 */
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { semanticCollectionOwners } from '../../core/boot/service-owners.ts';
import {
  credentialCatalog,
  deploymentTokenRule,
  offersOf,
  organizationCounter,
} from '../../core/boot/collection-access.ts';
import { openSecretStore } from '../../core/boot/secret-store.ts';
import { createOAuthClient } from '../../core/adapters/oauth/index.ts';
import { collectionCredentials, ensureCollectionIndexes } from '../../core/collection/index.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { createServiceCatalog } from '../../core/adapters/mcp-services/index.ts';
import { createBullJobQueue, createRedisTextDeltas, createStoreClock } from '../../core/adapters/redis/index.ts';
import { isCompiledExecutable } from '../../core/adapters/runtime/app-directory.ts';
import { createWorkerLauncher, workerProgramFor } from '../../core/adapters/worker/index.ts';
import { createRemoteWorkerLauncher } from '../../core/adapters/worker-host/index.ts';
import { FAIR_QUEUES } from '../../core/boot/fair-queues.ts';
import { observeDispatcherQueues } from '../../core/boot/queue-depths.ts';
import { enqueueTurnJob } from '../../core/session/turn-jobs.ts';
import { ensureDesignIndexes } from '../../core/design/design-runtime.ts';
import { ensureCallbackIndexes } from '../../core/trigger/callback-addresses.ts';
import { ensureEvaluationIndexes } from '../../core/evaluation/evaluation-runs.ts';
import { publishedWorkflows } from '../../core/session/build-workflows.ts';
import { workerEnvironment } from '../../core/config/worker-environment.ts';
import { ensureSessionIndexes } from '../../core/session/session-indexes.ts';
import { ensureDecisionLinkIndexes } from '../../core/session/decision-links.ts';
import { ensureDeliveryIndexes } from '../../core/session/delivery-claims.ts';
import type { Clock } from '../../core/ports/clock.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import { failedJobQueueOptions, startRetention } from './retention-sweep.ts';

import type { DispatcherSettings } from './dispatcher-settings.ts';

/** Declares the indexes of the collections the dispatcher's work reads (idempotent). */
async function ensureWorkIndexes(settings: DispatcherSettings): Promise<void> {
  const { docs } = settings.started.stores;
  await ensureSessionIndexes(docs);
  await ensureDecisionLinkIndexes(docs);
  await ensureDeliveryIndexes(docs);
  await ensureCallbackIndexes(docs);
  await ensureEvaluationIndexes(docs);
  await ensureDesignIndexes(docs);
}

/**
 * The job queue on the queue store (undefined without one). Failed jobs are kept within the retention settings, each
 * recorded in failed_jobs without its payload; the retention sweep (one dispatcher at a time) removes what is past
 * its retention (./retention-sweep.ts). The gauge cairn.queue.depth is read from the queue store at each metrics
 * collection only (docs/decisions.md D25 § 2).
 */
function openQueue(settings: DispatcherSettings): JobQueue | undefined {
  const { boot: { env }, stores } = settings.started;
  const queue = stores.redis
    ? createBullJobQueue({
      connection: stores.redis,
      onError: (error) => settings.logger.warn({ err: error.message }, 'queue store error'),
      fairQueues: FAIR_QUEUES,
      ...failedJobQueueOptions({ docs: stores.docs, clock: systemClock, retention: env.retention }),
    })
    : undefined;
  if (queue) observeDispatcherQueues(queue);
  return queue;
}

/**
 * The tool catalog of the config's services, warmed, and the timer that looks at it every 5 s. A service that fails
 * discovery (e.g. semantic-mcp still starting beside us) is tried again after 5 s (logged once per outage). Each call
 * carries its organization's credential for the collection, and an organization is offered only the collections it
 * connected or whose service token is its own (core/boot/collection-access.ts; docs/decisions.md D22 § 4).
 */
async function openCatalog(settings: DispatcherSettings) {
  const { boot, stores: { docs }, owner } = settings.started;
  const { print } = settings;
  const secrets = openSecretStore(boot.env.secretStore, { docs, clock: systemClock, ids: cryptoIds });
  await ensureCollectionIndexes(docs);
  const tokenRule = deploymentTokenRule(
    semanticCollectionOwners({ docs, ids: cryptoIds }, boot.config.services),
    organizationCounter(docs, systemClock),
  );
  // A connection's OAuth refresh is made by one dispatcher at a time, under its lease on the document store every
  // dispatcher shares (core/collection/oauth-refresh.ts).
  const credentials = collectionCredentials({
    docs,
    clock: systemClock,
    secrets,
    offers: offersOf(boot.config),
    oauth: createOAuthClient(),
    lease: createDocumentLease(docs, systemClock),
    owner,
    log: print,
    ...tokenRule,
  });
  const catalog = credentialCatalog(
    createServiceCatalog({ services: boot.config.services, log: print, retryAfterMs: 5_000 }),
    credentials,
  );
  void catalog.warm();
  // Retries are due on the next look at the catalog: look every 5 s so a late service is offered before a turn needs
  // it.
  const catalogTimer = setInterval(() => {
    void catalog.tools().catch(() => undefined);
  }, 5_000);
  return { catalog, catalogTimer };
}

/** Workers run on the worker host when PLATFORM_WORKER_HOST names one (this process keeps its slots), else here. */
function workerLauncherOf(settings: DispatcherSettings) {
  const { env } = settings.started.boot;
  const { print } = settings;
  const workerSlots = { turn: env.workers.turn.slots, call: env.workers.call.slots };
  return env.remoteWorkerHost
    ? createRemoteWorkerLauncher({
      host: env.remoteWorkerHost.hostname,
      port: env.remoteWorkerHost.port,
      key: env.remoteWorkerHost.key,
      slots: workerSlots,
      log: print,
    })
    : createWorkerLauncher({
      program: workerProgramFor({
        execPath: process.execPath,
        compiled: isCompiledExecutable(process.execPath),
        appDir: settings.appDir,
      }),
      environment: (kind, memoryMb) => workerEnvironment(env, { kind, memoryLimitMb: memoryMb }),
      slots: workerSlots,
      log: print,
      inspect: env.workers.inspect,
      // Each worker in its own namespaces (no network, no other process in sight); refused in production without them.
      isolation: env.workers.isolation,
      production: env.production,
      path: settings.workerPath,
    });
}

/**
 * Times of turns and heartbeats come from the queue store's clock, which every dispatcher shares: staleness compares
 * one clock, not each machine's (core/adapters/redis/store-clock.ts). Without a queue store, or when it cannot
 * answer, the local clock.
 */
async function storeClockOf(settings: DispatcherSettings): Promise<Clock> {
  const { redis } = settings.started.stores;
  const { logger } = settings;
  return redis
    ? await createStoreClock(redis, { onError: (error) => logger.warn({ err: error.message }, 'queue store clock') })
      .catch((error: Error) => {
        logger.warn({ err: error.message }, 'queue store clock unavailable: local clock');
        return systemClock;
      })
    : systemClock;
}

/**
 * Opens the parts: indexes declared, the queue, the retention sweep started, the catalog warmed, the launcher, the
 * published builds' cache, the store clock, the stores every session use case works on, the live channel, and the
 * enqueuer of turns.
 */
export async function openWorkParts(settings: DispatcherSettings) {
  const { boot: { env }, stores, owner } = settings.started;
  const { docs, objects, lease } = stores;
  const { logger } = settings;
  await ensureWorkIndexes(settings);
  const queue = openQueue(settings);
  const retention = await startRetention(
    { docs, objects, clock: systemClock, lease, owner, retention: env.retention, log: (line) => logger.info({}, line) },
    (error) => logger.error({ err: error.message }, 'retention sweep failed'),
  );
  const { catalog, catalogTimer } = await openCatalog(settings);
  const launcher = workerLauncherOf(settings);
  const builds = publishedWorkflows({ docs, objects });
  const storeClock = await storeClockOf(settings);
  /** The stores every session use case of this process works on. */
  const store = { docs, objects, clock: storeClock, ids: cryptoIds };
  const liveChannel = stores.redis
    ? createRedisTextDeltas(stores.redis, (error) => logger.warn({ err: error.message }, 'live channel publish failed'))
    : undefined;
  const enqueueTurn = async (turnId: string) => {
    if (queue) await enqueueTurnJob({ queue, docs }, turnId);
  };
  return { queue, retention, catalog, catalogTimer, launcher, builds, storeClock, store, liveChannel, enqueueTurn };
}
