/**
 * semantic-mcp: serves every semantic project's MCP endpoints (/mcp/<slug>/mcp, /mcp/<slug>/test/mcp).
 * Composition root: reads the environment once, builds adapters, starts listening.
 * With `--query-process` the same executable is one of its own query processes instead (stdio
 * protocol, no server, no stores, no secrets): that role is decided before anything else boots, so
 * a child loads only the DuckDB library and the query-process code.
 *
 * Source: spec/semantic-query-service.md; docs/architecture.md § Processes.
 */
import { join } from 'node:path';
import { preloadDuckDbLibrary } from '../../core/adapters/duckdb/native-library.ts';
import { isQueryProcess, queryProcessCommand } from './query-process-command.ts';

const queryProcess = isQueryProcess(process.argv);
// Compiled executable: load the embedded libduckdb before @duckdb/node-api is first imported (no-op
// from sources). Hence the dynamic imports of the engine. Bun extracts the embedded duckdb.node into
// BUN_TMPDIR (read at launch; the image sets it, for a /tmp mounted noexec): the preload makes it.
let native: Awaited<ReturnType<typeof preloadDuckDbLibrary>>;
try {
  const dataDir = process.env.CAIRN_DATA_DIR;
  native = await preloadDuckDbLibrary({ cacheDir: process.env.CAIRN_NATIVE_CACHE_DIR ?? process.env.BUN_TMPDIR ?? (dataDir ? join(dataDir, 'cache', 'native') : undefined) });
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
if (queryProcess) {
  // A query process: the protocol on stdin/stdout until the parent closes stdin (or kills it).
  const { serveQueryProcess } = await import('../../core/adapters/duckdb/query-process-server.ts');
  await serveQueryProcess(process.stdin, process.stdout);
  process.exit(0);
}
// OpenTelemetry (not in a query process; nothing loaded unless OTEL_* variables ask for it; docs/decisions.md D25 § 1).
const { startTelemetry } = await import('../telemetry/start.ts');
const telemetry = await startTelemetry(process.env, 'cairn-semantic-mcp');
const [
  { hostname, tmpdir }, { createPinoLogger }, { createRateLimiter }, { openRedis }, { appDirectory },
  { cryptoIds, systemClock }, { startRole, stopOnSignals }, { createCallLogWriter }, { improvementsPerTokenPerDay },
  { ownHostNames },
  { createSemanticMcpApp, TOKEN_RATE_FACTOR }, { parseSemanticMcpSettings }, { createDuckDbQueryEngine },
  { watchPublishes }, { liveDataKeys },
] = await Promise.all([
  import('node:os'),
  import('../../core/adapters/log/pino-logger.ts'),
  import('../../core/adapters/rate-limit/rate-limiter.ts'),
  import('../../core/adapters/redis/index.ts'),
  import('../../core/adapters/runtime/app-directory.ts'),
  import('../../core/adapters/runtime/system.ts'),
  import('../../core/boot/start-role.ts'),
  import('../../core/semantic/call-log-writer.ts'),
  import('../../core/semantic/tools/tool-context.ts'),
  import('../../core/auth/own-hosts.ts'),
  import('./app.ts'),
  import('./settings.ts'),
  import('../../core/adapters/duckdb/index.ts'),
  import('../../core/semantic/publish-watch.ts'),
  import('../../core/semantic/live-data.ts'),
]);
const logger = createPinoLogger({ name: 'semantic-mcp' });
if (native.loaded) logger.info({ path: native.path, duckdb: native.version, written: native.written, ms: native.ms }, 'DuckDB library loaded');
const exit = (code: number): never => process.exit(code);
/** The queue store semantic-mcp uses itself: only one QUEUE_URL names (never the embedded store). */
const ownQueueUrl = (env: { stores: { queueUrl?: string } }) => (process.env.QUEUE_URL ? env.stores.queueUrl : undefined);
const { boot, settings, stores } = await startRole('semantic-mcp', {
  env: process.env,
  dirs: { appDir: appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR), tmpDir: tmpdir() },
  instanceId: process.env.PLATFORM_INSTANCE_ID ?? `${hostname()}-${process.pid}`,
  print: (line) => process.stdout.write(`${line}\n`),
  printError: (line) => console.error(line),
  exit,
  settings: (booted) => parseSemanticMcpSettings(process.env, booted.env, tmpdir()),
  // A queue store only when QUEUE_URL is set for it: in the all-in-one mode the embedded store belongs
  // to the API and the dispatcher, and one semantic-mcp counts its rate limit in memory.
  storesEnv: (env) => ({ ...env, stores: { ...env.stores, queueUrl: ownQueueUrl(env) } }),
});
const queueUrl = ownQueueUrl(boot.env);
// The rate counter gets its own connection that fails fast rather than queueing while the store is away.
const redis = queueUrl ? await openRedis(queueUrl, { maxRetriesPerRequest: 2 }).catch((error: Error) => {
  console.error(error.message);
  return exit(1);
}) : undefined;
const { docs, objects } = stores;
// Queries run in child processes of this executable (one data key each, killed on timeout or past
// their memory ceiling); they get the data database's path, never a secret or a store connection.
const engine = createDuckDbQueryEngine({
  objectStore: objects, cacheDir: settings.cacheDir, logger,
  queryProcess: queryProcessCommand(process.execPath, process.argv, process.execArgv, process.env),
  // Fair shares per project and token (docs/decisions.md D18 § 2): see settings.ts.
  maxProcesses: settings.queryProcesses, shareLimits: settings.shareLimits,
  // The cache keeps only the data some published or saved plane uses, and at most SEMANTIC_CACHE_MAX_MB (docs/decisions.md D18 § 8).
  maxCacheBytes: settings.cacheMaxBytes, liveDataKeys: () => liveDataKeys({ docs, objects, ids: cryptoIds }),
});
const semanticDeps = { docs, objects, clock: systemClock, ids: cryptoIds };
// Calls are logged after they are answered; the stop drains the pending writes before closing the stores.
const callLog = createCallLogWriter(semanticDeps, {
  onError: (error, entry) => logger.error({ err: String(error), tool: entry.tool, projectId: entry.projectId }, 'call log write failed'),
  defer: (work) => setImmediate(work),
});
const planeCache = new Map();
const app = createSemanticMcpApp({
  deps: semanticDeps,
  callLog,
  engine,
  logger,
  version: boot.env.appVersion,
  planeCache,
  // request_improvement per token and day (docs/decisions.md D18 § 4), shared by the replicas when a queue store is
  // configured.
  improvementLimiter: createRateLimiter({
    points: improvementsPerTokenPerDay, durationSeconds: 86_400, keyPrefix: 'cairn:mcp-improvements', redis,
  }),
  rateLimiter: createRateLimiter({ points: settings.rateLimitMax, durationSeconds: settings.rateLimitWindowSeconds, keyPrefix: 'cairn:mcp-rate', redis }),
  // A token's calls for every organization and agent it names, together (docs/decisions.md D17 § 6): TOKEN_RATE_FACTOR
  // × the limit.
  tokenRateLimiter: createRateLimiter({
    points: settings.rateLimitMax * TOKEN_RATE_FACTOR, durationSeconds: settings.rateLimitWindowSeconds,
    keyPrefix: 'cairn:mcp-token-rate', redis,
  }),
  trustedProxies: settings.trustedProxies,
  // DNS rebinding: only the platform's own host names are answered, as at the API (docs/decisions.md D18 § 5).
  hostNames: ownHostNames([boot.env.appBaseUrl, ...boot.env.corsAllowedOrigins].filter((o): o is string => Boolean(o))),
});
app.listen({ hostname: settings.host, port: settings.port });
// Builds at publish (docs/decisions.md D18 § 7): the API publishes, this process builds each new production build's
// models in the background, so a newcomer's first question does not wait for them; publishes of the minute before
// this process started are built too (a restart during a publish).
const publishes = watchPublishes(semanticDeps, { engine, logger, planeCache, since: new Date(Date.now() - 60_000) });
logger.info({ host: settings.host, port: settings.port, rateLimitMax: settings.rateLimitMax, sharedRateCount: Boolean(redis) }, `semantic-mcp listening on ${settings.host}:${settings.port}`);

stopOnSignals(process, async () => {
  // In-flight calls get a bounded grace, then open connections close (core/boot/stop-server.ts).
  const { stopServer } = await import('../../core/boot/stop-server.ts');
  await stopServer(app);
  await callLog.drain();
  await publishes.stop();
  await engine.close();
  await stores.close();
  redis?.disconnect();
  await telemetry.shutdown();
}, exit);
