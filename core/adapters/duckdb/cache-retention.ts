/**
 * What the semantic cache keeps (docs/decisions.md D18 § 8). The
 * cache holds one directory per data key (`<cacheDir>/<data dir>/`: data.duckdb, the scope files, spill files):
 * - a data key no published or saved plane uses any more (the caller's `liveDataKeys`, read from the stores) is
 *   removed by a sweep, at once when no query holds it, else when its last query ends; a sweep runs when the engine
 *   starts and before every new data build;
 * - a new data build is refused (`semantic_cache_full`) when it would pass the cap: before it starts, when what the
 *   cache holds plus its files' size (the bytes it downloads into the cache while it loads them) is over the cap, and
 *   after it is written, when what the cache holds plus the database's size is. Scope files count toward what the
 *   cache holds; they are not refused themselves (a scope holds at most its data's rows).
 *
 * A query process that has a removed file open keeps reading it (Linux keeps unlinked files), so a removal never
 * breaks a running query; the disk space of such a file returns when its process closes (idle processes are
 * replaced, least recently used first). Only directories that look like data builds are ever removed, so a cache
 * directory pointed at a shared folder by mistake loses nothing else. One semantic-mcp process per cache directory.
 *
 * Source: spec/semantic-query-service.md § What the service does (3); docs/decisions.md D18 § 8.
 */
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../ports/logger.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { DataSet, QueryEngine } from '../../ports/query-engine.ts';
import { cacheDirectoryName } from './data-build.ts';

/**
 * Code of a data build refused because the semantic cache would pass its cap.
 *
 * Source: docs/decisions.md D18 § 8
 */
export const cacheFullCode = 'semantic_cache_full';

/**
 * Dependencies of {@link createCacheRetention}.
 *
 * Source: docs/decisions.md D18 § 8
 */
export interface CacheRetentionDeps {
  cacheDir: string;
  logger: Logger;
  /** Bytes the cache may hold (SEMANTIC_CACHE_MAX_MB × 2^20); default: no cap. */
  maxBytes?: number;
  /** The data keys some published or saved plane uses; absent: nothing is ever removed. */
  liveDataKeys?: () => Promise<ReadonlySet<string>>;
}

/**
 * The cache's retention: holds, sweeps and the cap of new data builds.
 *
 * Source: docs/decisions.md D18 § 8
 */
export interface CacheRetention {
  /** Holds `dataKey`'s directory until the returned function is called (once; later calls do nothing). */
  hold(dataKey: string): () => void;
  /** Removes every unused data directory not held now, and marks the held ones for removal on their last release. */
  sweep(): Promise<void>;
  /**
   * Before `data` is built: sweeps (sparing `data`'s own directory), then refuses when the rest of the cache plus the
   * data files' size would pass the cap. @throws PlatformError `semantic_cache_full` (507)
   */
  admit(data: DataSet): Promise<void>;
  /**
   * Once `data`'s database is written (`bytes` long) and before it is kept: refuses when the rest of the cache plus
   * `bytes` passes the cap. @throws PlatformError `semantic_cache_full` (507)
   */
  keep(data: DataSet, bytes: number): Promise<void>;
}

/** A data directory's entries that say it is one of ours (anything else in the cache directory is left alone). */
const buildEntry = /^(data\.duckdb.*|files|scopes|spill-.*)$/;

/**
 * Creates the retention of `deps.cacheDir` and starts a first sweep in the background when `liveDataKeys` is given.
 *
 * Source: docs/decisions.md D18 § 8
 */
export function createCacheRetention(deps: CacheRetentionDeps): CacheRetention {
  const state: RetentionState = {
    deps,
    holds: new Map(),
    doomed: new Set(),
    maxBytes: deps.maxBytes ?? Number.POSITIVE_INFINITY,
    sweeping: Promise.resolve(),
  };
  if (deps.liveDataKeys) void sweep(state);
  return {
    hold: (dataKey) => hold(state, dataKey),
    sweep: () => sweep(state),
    async admit(data) {
      await sweep(state, cacheDirectoryName(data.key));
      await refuseOver(state, data, data.files.reduce((sum, file) => sum + file.size, 0), 'its files need');
    },
    keep: (data, bytes) => refuseOver(state, data, bytes, 'its database takes'),
  };
}

/** What a retention's methods share: holds by directory, the held directories to remove, the running sweep. */
interface RetentionState {
  deps: CacheRetentionDeps;
  /** Queries holding each data directory. */
  holds: Map<string, number>;
  /** Held directories no plane uses: removed on their last release. */
  doomed: Set<string>;
  /** The cap in bytes (infinite: none). */
  maxBytes: number;
  /** The last sweep queued: sweeps run one after another. */
  sweeping: Promise<void>;
}

/** Holds `dataKey`'s directory until the returned function is called (once); removes it then if it is doomed. */
function hold(state: RetentionState, dataKey: string): () => void {
  const { holds, doomed } = state;
  const directory = cacheDirectoryName(dataKey);
  holds.set(directory, (holds.get(directory) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (holds.get(directory) ?? 1) - 1;
    if (left > 0) return void holds.set(directory, left);
    holds.delete(directory);
    if (doomed.delete(directory)) void remove(state, directory);
  };
}

/** Removes one data directory; a failure is logged, never thrown. */
function remove(state: RetentionState, directory: string): Promise<void> {
  return rm(join(state.deps.cacheDir, directory), { recursive: true, force: true }).catch((error: unknown) => {
    state.deps.logger.warn({ directory, err: String(error) }, 'unused data build could not be removed');
  });
}

/** Queues a sweep after the running one (`spare` left alone); a failure to list is logged and keeps everything. */
function sweep(state: RetentionState, spare?: string): Promise<void> {
  state.sweeping = state.sweeping.then(() => sweepOnce(state, spare)).catch((error: unknown) => {
    state.deps.logger.warn({ err: String(error) }, 'unused data builds could not be listed; kept for now');
  });
  return state.sweeping;
}

/** Removes the data directories no plane uses and none holds; marks the held ones as doomed. */
async function sweepOnce(state: RetentionState, spare?: string): Promise<void> {
  const { deps, holds, doomed } = state;
  if (!deps.liveDataKeys) return;
  const live = new Set([...await deps.liveDataKeys()].map(cacheDirectoryName));
  for (const directory of doomed) if (live.has(directory)) doomed.delete(directory);
  const removed: string[] = [];
  for (const directory of await dataDirectories(deps.cacheDir)) {
    if (live.has(directory) || directory === spare) continue;
    if (holds.has(directory)) doomed.add(directory);
    else {
      await remove(state, directory);
      removed.push(directory);
    }
  }
  if (removed.length > 0) deps.logger.info({ removed }, 'unused data builds removed');
}

/**
 * Refuses `data` when the rest of the cache plus `bytes` passes the cap.
 * @throws PlatformError `semantic_cache_full`
 */
async function refuseOver(state: RetentionState, data: DataSet, bytes: number, what: string): Promise<void> {
  const { deps, maxBytes } = state;
  if (!Number.isFinite(maxBytes)) return;
  const own = cacheDirectoryName(data.key);
  const held = await directoryBytes(deps.cacheDir, (name) => name === own);
  if (held + bytes <= maxBytes) return;
  deps.logger.warn({ dataKey: data.key, cacheBytes: held, buildBytes: bytes, maxBytes }, 'semantic cache full');
  throw cacheFull(bytes, maxBytes, what);
}

/**
 * `engine` whose `execute` holds its data key's directory until the query has ended (answered or failed).
 *
 * Source: docs/decisions.md D18 § 8 (removed once its last query has ended)
 */
export function holdingDataWhileQuerying(retention: CacheRetention, engine: QueryEngine): QueryEngine {
  return {
    ...engine,
    async execute(request) {
      const release = retention.hold(request.data.key);
      try {
        return await engine.execute(request);
      } finally {
        release();
      }
    },
  };
}

/** The directories of `cacheDir` that hold a data build (or nothing at all: a build that never completed). */
async function dataDirectories(cacheDir: string): Promise<string[]> {
  const entries = await readdir(cacheDir, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || !/^[A-Za-z0-9_-]{1,128}$/.test(entry.name)) continue;
    const inside = await readdir(join(cacheDir, entry.name)).catch(() => undefined);
    if (inside && inside.every((name) => buildEntry.test(name))) found.push(entry.name);
  }
  return found;
}

/** Bytes of the files under `root`, recursively, leaving out the top-level entries `skip` names. */
async function directoryBytes(root: string, skip: (name: string) => boolean): Promise<number> {
  let total = 0;
  const entries = await readdir(root, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    if (skip(entry.name)) continue;
    const path = join(root, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(path, () => false);
    else if (entry.isFile()) total += await stat(path).then((s) => s.size, () => 0);
  }
  return total;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toLocaleString('en-US', { maximumFractionDigits: 1 });

function cacheFull(bytes: number, maxBytes: number, what: string): PlatformError {
  return new PlatformError(
    cacheFullCode,
    `The data of this model cannot be built: ${what} ${mib(bytes)} MiB, and with the data already in the ` +
      `semantic cache that would pass its cap of ${mib(maxBytes)} MiB (SEMANTIC_CACHE_MAX_MB), even after removing ` +
      `every build no published or saved model uses. Ask the operator to raise SEMANTIC_CACHE_MAX_MB (with the disk ` +
      `space it needs), or make the project's data files smaller.`,
    { status: 507 },
  );
}
