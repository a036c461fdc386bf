/**
 * worker-host: runs the workers its dispatchers send it over TLS (PLATFORM_WORKER_HOST_KEY). The guard
 * of rule 10 is real: it refuses to start, naming each offending variable and never a value, when its
 * environment holds a data store address, a key, the config, or a cloud credential. Serving workers
 * arrives with the worker issue; until then a clean environment still refuses to start, saying so.
 *
 * Source: ../shared/spec/platform-service.md § Rules 10, § Deployment settings (PLATFORM_WORKER_HOST_*).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { parsePlatformEnv } from '../../core/config/platform-env.ts';

const appDir = appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR);
try {
  const env = parsePlatformEnv(process.env, { role: 'worker-host', configFileExists: existsSync(join(appDir, 'config.yaml')) });
  console.error(`[worker-host] this release does not run workers yet (worker host on ${env.workerHost.bind}:${env.workerHost.port} is not served); refusing to start.`);
  process.exit(1);
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
