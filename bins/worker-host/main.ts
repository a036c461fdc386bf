/**
 * worker-host: runs the workers its dispatchers send it over TLS, both sides proving
 * PLATFORM_WORKER_HOST_KEY, on PLATFORM_WORKER_HOST_BIND:PLATFORM_WORKER_HOST_PORT (every interface, 7340).
 * The guard of rule 10 comes first: it refuses to start, naming each offending variable and never a value,
 * when its environment holds a data store address, a key, the config, or a cloud credential. Workers run
 * as the local launcher runs them (dist/worker beside this executable, or the sources bundle), with this
 * host's own worker settings (NODE_ENV, APP_VERSION, prompt cache, private URLs, PLATFORM_WORKER_INSPECT)
 * and the limits each dispatching process sends; the dispatching processes keep their own slots.
 *
 * Source: spec/platform-service.md § Rules 10, § Deployment settings (PLATFORM_WORKER_HOST_*),
 * § Operational log lines ([worker-host]).
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appDirectory, isCompiledExecutable } from '../../core/adapters/runtime/app-directory.ts';
import { createWorkerLauncher, workerProgramFor } from '../../core/adapters/worker/index.ts';
import { startWorkerHost } from '../../core/adapters/worker-host/index.ts';
import { parsePlatformEnv } from '../../core/config/platform-env.ts';
import { workerEnvironment } from '../../core/config/worker-environment.ts';
import { startTelemetry } from '../telemetry/start.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);
const appDir = appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR);
let env;
try {
  env = parsePlatformEnv(process.env, { role: 'worker-host', configFileExists: existsSync(join(appDir, 'config.yaml')) });
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
for (const warning of env.warnings) print(`[worker-host] ${warning}`);
const settings = env;
// OpenTelemetry once the guard passed (nothing loaded unless OTEL_* variables ask for it; docs/decisions.md D25 § 1).
const telemetry = await startTelemetry(process.env, 'cairn-worker-host');
try {
  const launcher = createWorkerLauncher({
    program: workerProgramFor({ execPath: process.execPath, compiled: isCompiledExecutable(process.execPath), appDir }),
    environment: (kind, memoryMb) => workerEnvironment(settings, { kind, memoryLimitMb: memoryMb }),
    // The host runs as many workers as its dispatchers send; each dispatching process keeps its own slots.
    slots: { turn: Number.POSITIVE_INFINITY, call: Number.POSITIVE_INFINITY },
    log: print, tempRoot: tmpdir(), inspect: env.workers.inspect,
    // The same isolation as a dispatcher's own workers (bubblewrap namespaces; refused in production without them).
    isolation: env.workers.isolation, production: env.production, path: process.env.PATH,
  });
  const host = await startWorkerHost({ ...env.workerHost, launcher, log: print });
  const bind = env.workerHost.bind === '0.0.0.0' ? 'every interface' : env.workerHost.bind;
  // The stop handlers go in before the serving line: whoever waits for that line may signal at once.
  const stop = () => void host.close().then(() => telemetry.shutdown()).then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  print(`[worker-host] serving workers on ${bind}, port ${host.port} (TLS; each connection proves PLATFORM_WORKER_HOST_KEY)`);
} catch (error) {
  console.error(`[worker-host] could not start: ${(error as Error).message}`);
  process.exit(1);
}
