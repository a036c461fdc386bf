/**
 * api: the HTTP API (/api/…). Composition root: reads the environment once, builds adapters, listens.
 *
 * Source: ../shared/spec/platform-service.md § Endpoints; ../shared/ARCHITECTURE.md § Processes.
 */
import { tmpdir } from 'node:os';
import { Elysia } from 'elysia';
import { createObjectStoreGitRepo } from '../../core/adapters/git/index.ts';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openDocumentStore, openObjectStore } from '../../core/adapters/stores/open-stores.ts';
import { flag, optional } from '../../core/config/env-values.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { ensureSemanticIndexes } from '../../core/semantic/projects.ts';
import { healthRoutes } from './health-routes.ts';
import { semanticRoutes } from './semantic-routes.ts';
import { parseApiSettings } from './settings.ts';

const logger = createPinoLogger({ name: 'api' });
let settings;
let embeddedQueue: { instanceId: string } | undefined;
try {
  settings = parseApiSettings(process.env, tmpdir());
  embeddedQueue = flag(process.env, 'PLATFORM_EMBEDDED_QUEUE', false) ? { instanceId: optional(process.env, 'PLATFORM_INSTANCE_ID') ?? 'unknown' } : undefined;
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const docs = await openDocumentStore(settings.stores.documents);
const objects = openObjectStore(settings.stores.objects);
await ensureSemanticIndexes(docs);
const git = createObjectStoreGitRepo({ objectStore: objects, scratchDir: settings.scratchDir });
const version = settings.version;
const app = new Elysia()
  .use(healthRoutes({ version, embeddedQueue: embeddedQueue && { lease: createDocumentLease(docs, systemClock), instanceId: embeddedQueue.instanceId } }))
  .use(semanticRoutes({ deps: { docs, objects, git, clock: systemClock, ids: cryptoIds }, logger, author: { name: 'Dev User', email: 'dev@localhost' } }))
  .onError(({ code }) => {
    if (code === 'NOT_FOUND') return new Response(JSON.stringify({ error: { code: 'not_found', message: 'No such API route.' } }), { status: 404, headers: { 'content-type': 'application/json' } });
    return undefined;
  });
app.listen({ hostname: settings.host, port: settings.port, maxRequestBodySize: 21 * 1024 * 1024 });
logger.info({ host: settings.host, port: settings.port, signIn: settings.signIn }, `api listening on ${settings.host}:${settings.port}`);

async function stop(): Promise<void> {
  await app.stop();
  await docs.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
