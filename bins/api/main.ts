/**
 * api: the HTTP API (/api/…). Composition root: reads the environment and config once (exiting with a
 * first line naming a bad variable before connecting to anything), opens the stores, runs the data
 * updates at boot, then listens.
 *
 * Source: spec/platform-service.md § Endpoints, § Rules 2 and 11–14; docs/architecture.md § Processes.
 */
import { FAIR_QUEUES } from '../../core/boot/fair-queues.ts';
import { maxHeaderSize } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { createBullJobQueue, createRedisTextDeltas, openRedis } from '../../core/adapters/redis/index.ts';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { startRole, stopOnSignals } from '../../core/boot/start-role.ts';
import { stopServer } from '../../core/boot/stop-server.ts';
import { apiSignIn, createApiApp } from './app.ts';
import { apiCollections, apiSkillRegistries } from './app-parts.ts';
import { startCollections } from '../../core/boot/collection-access.ts';
import { apiListenAddress } from './listen-address.ts';
import { startTelemetry } from '../telemetry/start.ts';

// OpenTelemetry first (nothing loaded unless OTEL_* variables ask for it; docs/decisions.md D25 § 1).
const telemetry = await startTelemetry(process.env, 'cairn-api');

const print = (line: string) => process.stdout.write(`${line}\n`);
const logger = createPinoLogger({ name: 'api' });
const instanceId = process.env.PLATFORM_INSTANCE_ID ?? `${hostname()}-${process.pid}`;
const { boot, settings: listen, stores } = await startRole('api', {
  env: process.env,
  dirs: { appDir: appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR), tmpDir: tmpdir() },
  instanceId,
  print,
  printError: (line) => console.error(line),
  exit: (code) => process.exit(code),
  settings: (booted) => apiListenAddress(booted.env, process.env),
});
const { env } = boot;
const { docs, objects } = stores;
// The per-user counter gets its own connection that fails fast rather than queueing while the store is away.
const rateRedis = env.stores.queueUrl ? await openRedis(env.stores.queueUrl, { maxRetriesPerRequest: 2 }).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
}) : undefined;
// Jobs this process adds carry the failed-job bound of the retention settings (core/config/retention-settings.ts).
const keepFailed = { count: env.retention.failedJobs.kept, ageSeconds: env.retention.failedJobs.days * 86_400 };
const queue = stores.redis ? createBullJobQueue({
  connection: stores.redis, keepFailed, onError: (error) => logger.warn({ err: error.message }, 'queue store error'),
  fairQueues: FAIR_QUEUES,
}) : undefined;
// Live text of model calls reaches the AG-UI streams over the queue store's pub/sub (a subscriber connection of its own);
// the same channel carries the change notifications streams and MCP calls wait on (core/session/change-watch.ts).
const textDeltas = stores.redis ? createRedisTextDeltas(stores.redis, (error) => logger.warn({ err: error.message }, 'live text subscription failed')) : undefined;
// Skill registries: cloned or fast-forwarded in the background once the API listens (never waited for); one that
// cannot be reached logs a warning and is served from its last clone (spec § Rules 16).
const skillRegistries = apiSkillRegistries({ env, config: boot.config, logger });
// Organizations' collection connections: connections of an app whose client id changed are asked to reconnect, an
// interrupted Disconnect is completed, and the line saying whom the services' own tokens serve (D22 § 4).
const collections = apiCollections({ env, config: boot.config, logger, docs });
await startCollections(collections, boot.config.services.length);
const app = createApiApp({
  env, config: boot.config, docs, objects, signIn: apiSignIn(env.signIn), allInOne: listen.allInOne, instanceId, rateRedis, logger, queue, textDeltas,
  changes: textDeltas,
  printAccessLine: print, skillRegistries, collections, tracing: telemetry.traces,
});
app.listen({ hostname: listen.host, port: listen.port, maxRequestBodySize: 21 * 1024 * 1024 });
logger.info({ host: listen.host, port: listen.port, signIn: env.signIn.mode }, `api listening on ${listen.host}:${listen.port}`);
void skillRegistries.update();
// Spec § Limits: request header lines up to 32 KiB. Bun takes it only as a start flag (the entrypoint passes it,
// scripts/build bakes it into the executable); say so when this process was started without it.
if (maxHeaderSize < 32 * 1024) {
  const hint = 'request headers are limited below 32 KiB: start the API with --max-http-header-size=32768';
  logger.warn({ maxHeaderSize }, hint);
}

stopOnSignals(process, async () => {
  await stopServer(app);
  textDeltas?.close();
  await queue?.close();
  await stores.close();
  rateRedis?.disconnect();
  await telemetry.shutdown();
}, (code) => process.exit(code));
