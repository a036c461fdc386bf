/**
 * Boot of a process that serves platform data (api, dispatcher, semantic-mcp), in the spec's order:
 * read and validate the environment and the config document before connecting to anything, then open
 * the stores, run the data updates at boot, and declare indexes.
 *
 * Source: spec/platform-service.md § Deployment settings, § Rules 11–14, § Data update at boot.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../config/config-document.ts';
import { requireConfigFile } from '../config/config-source.ts';
import type { PlatformConfig } from '../config/config-model.ts';
import type { EnvRecord } from '../config/env-values.ts';
import { parsePlatformEnv } from '../config/platform-env.ts';
import type { DispatchingEnv, ServiceEnv } from '../config/platform-env-model.ts';
import { runDataUpdatesAtBoot } from '../data-update/index.ts';
import { createDocumentLease } from '../lease/document-lease.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Lease } from '../ports/lease.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import { ensureSemanticIndexes } from '../semantic/projects.ts';
import { ensureOrgIndexes } from '../org/organizations.ts';
import { ensureAgentIndexes } from '../agent/hosting-model.ts';
import { ensureConnectionIndexes } from '../connection/index.ts';
import { createRedisLease, openRedis, type RedisConnection } from '../adapters/redis/index.ts';
import { cryptoIds, systemClock } from '../adapters/runtime/system.ts';
import { openDocumentStore, openObjectStore } from '../adapters/stores/open-stores.ts';
import { platformRelease } from './platform-release.ts';

/** Settings of a booting process, before any connection. */
export interface BootSettings<E> {
  env: E;
  config: PlatformConfig;
  /** Exact-text lines to print (warnings, [config] notes). */
  lines: string[];
}

/**
 * Reads the environment and the config document (PLATFORM_CONFIG, PLATFORM_CONFIG_FILE, `<appDir>/config.yaml`).
 * @throws PlatformError `invalid_config` whose first line names the variable
 */
export function readBootSettings(
  role: 'api' | 'dispatcher',
  env: EnvRecord,
  dirs: { appDir: string; tmpDir: string },
): BootSettings<DispatchingEnv>;
export function readBootSettings(
  role: 'semantic-mcp',
  env: EnvRecord,
  dirs: { appDir: string; tmpDir: string },
): BootSettings<ServiceEnv>;
export function readBootSettings(
  role: 'api' | 'dispatcher' | 'semantic-mcp',
  env: EnvRecord,
  dirs: { appDir: string; tmpDir: string },
): BootSettings<ServiceEnv> {
  const parsed = parsePlatformEnv(env, { role, tmpDir: dirs.tmpDir }) as ServiceEnv;
  const named = parsed.configSource.file;
  if (named !== undefined && !parsed.configSource.inline) requireConfigFile(existsSync(named));
  const appConfig = join(dirs.appDir, 'config.yaml');
  const resolved = resolveConfig({
    env,
    production: parsed.production,
    ...(named && existsSync(named) ? { fileText: { path: named, text: readFileSync(named, 'utf8') } } : {}),
    ...(existsSync(appConfig) ? { appDirConfig: { path: appConfig, text: readFileSync(appConfig, 'utf8') } } : {}),
  });
  return { env: parsed, config: resolved.config, lines: [...parsed.warnings, ...resolved.warnings, ...resolved.notes] };
}

/** Open stores of a booted process. */
export interface BootedStores {
  docs: DocumentStore;
  objects: ObjectStore;
  /** The queue store, when QUEUE_URL names one. */
  redis?: RedisConnection;
  /** Locks: the queue store's when there is one, else the document store's. */
  lease: Lease;
  close(): Promise<void>;
}

/**
 * Opens the stores and runs the data updates at boot (under the queue-store lock `data-updates`).
 * @throws PlatformError `data_refused` (first line is the refusal line), `store_unreachable`
 */
export async function openBootStores(
  env: ServiceEnv,
  options: { owner: string; print(line: string): void },
): Promise<BootedStores> {
  const docs = await openDocumentStore(env.stores.documents);
  const objects = openObjectStore(env.stores.objects);
  const redis = env.stores.queueUrl ? await openRedis(env.stores.queueUrl) : undefined;
  const lease = redis ? createRedisLease(redis) : createDocumentLease(docs, systemClock);
  await runDataUpdatesAtBoot(
    {
      docs,
      lease,
      clock: systemClock,
      logger: options.print,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      owner: options.owner,
    },
    platformRelease({ docs, clock: systemClock, ids: cryptoIds }),
    { allowNewerData: env.allowNewerData },
  );
  await ensureSemanticIndexes(docs);
  await ensureOrgIndexes(docs);
  await ensureAgentIndexes(docs);
  await ensureConnectionIndexes({ docs });
  return {
    docs,
    objects,
    redis,
    lease,
    async close() {
      await docs.close();
      redis?.disconnect();
    },
  };
}
