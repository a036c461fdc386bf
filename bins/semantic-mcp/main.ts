/**
 * semantic-mcp: serves every semantic project's MCP endpoints (/mcp/<slug>/mcp, /mcp/<slug>/test/mcp).
 * Composition root: reads the environment once, builds adapters, starts listening.
 *
 * Source: ../shared/spec/semantic-query-service.md; ../shared/ARCHITECTURE.md § Processes.
 */
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { preloadDuckDbLibrary } from '../../core/adapters/duckdb/native-library.ts';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { createRateLimiter } from '../../core/adapters/rate-limit/rate-limiter.ts';
import { openRedis } from '../../core/adapters/redis/index.ts';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openBootStores, readBootSettings } from '../../core/boot/boot-process.ts';
import { createCallLogWriter } from '../../core/semantic/call-log-writer.ts';
import { createSemanticMcpApp } from './app.ts';
import { parseSemanticMcpSettings } from './settings.ts';

const logger = createPinoLogger({ name: 'semantic-mcp' });
// Compiled executable: load the embedded libduckdb before @duckdb/node-api is first imported (no-op
// from sources). Hence the dynamic import of the engine. Bun extracts the embedded duckdb.node into
// BUN_TMPDIR (read at launch; the image sets it, for a /tmp mounted noexec): the preload makes it.
try {
  const dataDir = process.env.CAIRN_DATA_DIR;
  const native = await preloadDuckDbLibrary({ cacheDir: process.env.CAIRN_NATIVE_CACHE_DIR ?? process.env.BUN_TMPDIR ?? (dataDir ? join(dataDir, 'cache', 'native') : undefined) });
  if (native.loaded) logger.info({ path: native.path, duckdb: native.version, written: native.written, ms: native.ms }, 'DuckDB library loaded');
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const { createDuckDbQueryEngine } = await import('../../core/adapters/duckdb/index.ts');
const print = (line: string) => process.stdout.write(`${line}\n`);
let boot;
let settings;
try {
  boot = readBootSettings('semantic-mcp', process.env, { appDir: appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR), tmpDir: tmpdir() });
  settings = parseSemanticMcpSettings(process.env, boot.env, tmpdir());
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
boot.lines.forEach(print);
// semantic-mcp uses a queue store only when QUEUE_URL is set for it: in the all-in-one mode the embedded
// store belongs to the API and the dispatcher, and one semantic-mcp counts its rate limit in memory.
const env = process.env.QUEUE_URL ? boot.env : { ...boot.env, stores: { ...boot.env.stores, queueUrl: undefined } };
let stores: Awaited<ReturnType<typeof openBootStores>>;
let redis: Awaited<ReturnType<typeof openRedis>> | undefined;
try {
  stores = await openBootStores(env, { owner: `semantic-mcp@${process.env.PLATFORM_INSTANCE_ID ?? hostname()}:${process.pid}`, print });
  // The rate counter gets its own connection that fails fast rather than queueing while the store is away.
  redis = env.stores.queueUrl ? await openRedis(env.stores.queueUrl, { maxRetriesPerRequest: 2 }) : undefined;
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const { docs, objects } = stores;
const engine = createDuckDbQueryEngine({ objectStore: objects, cacheDir: settings.cacheDir, logger });
const semanticDeps = { docs, objects, clock: systemClock, ids: cryptoIds };
// Calls are logged after they are answered; stop() drains the pending writes before closing the stores.
const callLog = createCallLogWriter(semanticDeps, (error, entry) => logger.error({ err: String(error), tool: entry.tool, projectId: entry.projectId }, 'call log write failed'));
const app = createSemanticMcpApp({
  deps: semanticDeps,
  callLog,
  engine,
  logger,
  version: boot.env.appVersion,
  planeCache: new Map(),
  rateLimiter: createRateLimiter({ points: settings.rateLimitMax, durationSeconds: settings.rateLimitWindowSeconds, keyPrefix: 'cairn:mcp-rate', redis }),
  trustedProxies: settings.trustedProxies,
});
app.listen({ hostname: settings.host, port: settings.port });
logger.info({ host: settings.host, port: settings.port, rateLimitMax: settings.rateLimitMax, sharedRateCount: Boolean(redis) }, `semantic-mcp listening on ${settings.host}:${settings.port}`);

async function stop(): Promise<void> {
  await app.stop();
  await callLog.drain();
  await engine.close();
  await stores.close();
  redis?.disconnect();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
