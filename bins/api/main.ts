/**
 * api: the HTTP API (/api/…). Composition root: reads the environment and config once (exiting with a
 * first line naming a bad variable before connecting to anything), opens the stores, runs the data
 * updates at boot, then listens.
 *
 * Source: ../shared/spec/platform-service.md § Endpoints, § Rules 2 and 11–14; ../shared/ARCHITECTURE.md § Processes.
 */
import { hostname, tmpdir } from 'node:os';
import { Elysia } from 'elysia';
import { createObjectStoreGitRepo } from '../../core/adapters/git/index.ts';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { openRedis } from '../../core/adapters/redis/index.ts';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openBootStores, readBootSettings } from '../../core/boot/boot-process.ts';
import { createAlbVerifier } from '../../core/adapters/cloud-alb/index.ts';
import { createOidcVerifier } from '../../core/adapters/oidc/index.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { authRoutes } from './auth-routes.ts';
import { healthRoutes } from './health-routes.ts';
import { apiListenAddress } from './listen-address.ts';
import { requestRules, type SignInVerification } from './request-rules/index.ts';
import { semanticRoutes } from './semantic-routes.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);
const logger = createPinoLogger({ name: 'api' });
const appDir = appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR);
let boot;
let listen;
try {
  boot = readBootSettings('api', process.env, { appDir, tmpDir: tmpdir() });
  listen = apiListenAddress(boot.env, process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
boot.lines.forEach(print);
const { env } = boot;
const instanceId = process.env.PLATFORM_INSTANCE_ID ?? `${hostname()}-${process.pid}`;
let stores: Awaited<ReturnType<typeof openBootStores>>;
try {
  stores = await openBootStores(env, { owner: `api@${instanceId}`, print });
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
const { docs, objects } = stores;
// The per-user counter gets its own connection that fails fast rather than queueing while the store is away.
const rateRedis = env.stores.queueUrl ? await openRedis(env.stores.queueUrl, { maxRetriesPerRequest: 2 }).catch((error: Error) => {
  console.error(error.message);
  process.exit(1);
}) : undefined;
const git = createObjectStoreGitRepo({ objectStore: objects, scratchDir: env.scratchDir });
const oidc = env.signIn.mode === 'oidc' ? createOidcVerifier({ issuer: env.signIn.issuer, clientId: env.signIn.clientId, audience: env.signIn.audience }) : undefined;
const signIn: SignInVerification = env.signIn.mode === 'oidc' ? { mode: 'oidc', verifier: oidc! }
  : env.signIn.mode === 'cloud-alb' ? { mode: 'cloud-alb', verifier: createAlbVerifier({ arn: env.signIn.albArn }) }
  : { mode: 'dev-user' };
// In all-in-one mode the front proxy on loopback is trusted by construction.
const allInOne = listen.allInOne;
const rules = requestRules({
  signIn, identity: env.identity,
  trustedProxies: allInOne ? [...env.trustedProxies, '127.0.0.1', '::1'] : env.trustedProxies,
  allowedOrigins: [env.appBaseUrl, ...env.corsAllowedOrigins].filter((o): o is string => Boolean(o)),
  accessLog: env.accessLog, log: (line) => print(line),
  userRatePerMinute: env.userRatePerMinute, redis: rateRedis, logger,
});
const authorOf = (request: Request) => {
  const principal = rules.principalOf(request);
  return { name: principal?.name ?? principal?.email ?? 'unknown', email: principal?.email ?? 'unknown@localhost' };
};
const app = new Elysia()
  .use(rules.plugin)
  .use(healthRoutes({ version: env.appVersion, embeddedQueue: env.embeddedQueue.enabled ? { lease: createDocumentLease(docs, systemClock), instanceId } : undefined }))
  .use(authRoutes({ signIn: env.signIn, oidcDiscovery: oidc?.discovery, branding: boot.config.branding, logger }))
  .use(semanticRoutes({ deps: { docs, objects, git, clock: systemClock, ids: cryptoIds }, logger, authorOf }))
  .onError(({ code }) => {
    if (code === 'NOT_FOUND') return new Response(JSON.stringify({ error: { code: 'not_found', message: 'No such API route.' } }), { status: 404, headers: { 'content-type': 'application/json' } });
    return undefined;
  });
app.listen({ hostname: listen.host, port: listen.port, maxRequestBodySize: 21 * 1024 * 1024 });
logger.info({ host: listen.host, port: listen.port, signIn: env.signIn.mode }, `api listening on ${listen.host}:${listen.port}`);

async function stop(): Promise<void> {
  await app.stop();
  await stores.close();
  rateRedis?.disconnect();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
