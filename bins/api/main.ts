/**
 * api: the HTTP API (/api/…). Composition root: reads the environment and config once (exiting with a
 * first line naming a bad variable before connecting to anything), opens the stores, runs the data
 * updates at boot, then listens.
 *
 * Source: ../shared/spec/platform-service.md § Endpoints, § Rules 2 and 11–14; ../shared/ARCHITECTURE.md § Processes.
 */
import { hostname, tmpdir } from 'node:os';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { openRedis } from '../../core/adapters/redis/index.ts';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { openBootStores, readBootSettings } from '../../core/boot/boot-process.ts';
import { apiSignIn, createApiApp } from './app.ts';
import { apiListenAddress } from './listen-address.ts';

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
const app = createApiApp({
  env, config: boot.config, docs, objects, signIn: apiSignIn(env.signIn), allInOne: listen.allInOne, instanceId, rateRedis, logger,
  printAccessLine: print,
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
