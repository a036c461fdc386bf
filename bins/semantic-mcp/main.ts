/**
 * semantic-mcp: serves every semantic project's MCP endpoints (/mcp/<slug>/mcp, /mcp/<slug>/test/mcp).
 * Composition root: reads the environment once, builds adapters, starts listening.
 *
 * Source: ../shared/spec/semantic-query-service.md; ../shared/ARCHITECTURE.md § Processes.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Redis from 'ioredis';
import { preloadDuckDbLibrary } from '../../core/adapters/duckdb/native-library.ts';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { createRateLimiter } from '../../core/adapters/rate-limit/rate-limiter.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openDocumentStore, openObjectStore } from '../../core/adapters/stores/open-stores.ts';
import { ensureSemanticIndexes } from '../../core/semantic/projects.ts';
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
let settings;
try {
  settings = parseSemanticMcpSettings(process.env, tmpdir());
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const docs = await openDocumentStore(settings.stores.documents);
const objects = openObjectStore(settings.stores.objects);
await ensureSemanticIndexes(docs);
const redis = settings.stores.queueUrl ? new Redis(settings.stores.queueUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: false, lazyConnect: false }) : undefined;
const engine = createDuckDbQueryEngine({ objectStore: objects, cacheDir: settings.cacheDir, logger });
const app = createSemanticMcpApp({
  deps: { docs, objects, clock: systemClock, ids: cryptoIds },
  engine,
  logger,
  version: settings.version,
  planeCache: new Map(),
  rateLimiter: createRateLimiter({ points: settings.rateLimitMax, durationSeconds: settings.rateLimitWindowSeconds, keyPrefix: 'cairn:mcp-rate', redis }),
  trustedProxies: settings.trustedProxies,
});
app.listen({ hostname: settings.host, port: settings.port });
logger.info({ host: settings.host, port: settings.port, rateLimitMax: settings.rateLimitMax, sharedRateCount: Boolean(redis) }, `semantic-mcp listening on ${settings.host}:${settings.port}`);

async function stop(): Promise<void> {
  await app.stop();
  await engine.close();
  await docs.close();
  redis?.disconnect();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
