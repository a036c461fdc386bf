/**
 * Query instances, one per data key: an in-memory DuckDB (threads 2, memory_limit 512MiB) that
 * attaches the data database read-only as `data`, then disables external access and locks its
 * configuration, so no file, network, extension or setting is reachable afterwards. At most
 * `maxInstances` stay open; the least recently used idle one is closed first.
 *
 * Source: ../shared/spec/semantic-query-service.md § Query validation (engine connection settings), § Limits.
 */
import { rm } from 'node:fs/promises';
import { DuckDBInstance } from '@duckdb/node-api';
import type { Logger } from '../../ports/logger.ts';
import { quoteLiteral } from './sql-text.ts';

/**
 * A query instance in use; `release` once the work on it has finished.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface InstanceLease {
  instance: DuckDBInstance;
  release(): void;
}

interface PooledInstance {
  opening: Promise<DuckDBInstance>;
  users: number;
  spillDirectory: string;
}

/**
 * Options of {@link createInstancePool}.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface InstancePoolOptions {
  logger: Logger;
  /** Instances kept open at most (idle ones beyond are closed, least recently used first). */
  maxInstances: number;
}

/**
 * The pool of query instances.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface InstancePool {
  /**
   * The instance of `dataKey` (opened on first use over `databaseFile`), moved to most recently used.
   * @param spillDirectory - where the instance may spill to disk (removed when it closes)
   */
  acquire(dataKey: string, databaseFile: string, spillDirectory: string): Promise<InstanceLease>;
  /** Closes every instance. */
  close(): Promise<void>;
}

/**
 * Creates the pool.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function createInstancePool(options: InstancePoolOptions): InstancePool {
  return new LruInstancePool(options);
}

/** Entries in a Map kept in recency order: re-inserted on use, evicted from the front. */
class LruInstancePool implements InstancePool {
  private readonly entries = new Map<string, PooledInstance>();

  constructor(private readonly options: InstancePoolOptions) {}

  async acquire(dataKey: string, databaseFile: string, spillDirectory: string): Promise<InstanceLease> {
    const entry = this.entries.get(dataKey) ?? { opening: openQueryInstance(databaseFile, spillDirectory), users: 0, spillDirectory };
    this.entries.delete(dataKey);
    this.entries.set(dataKey, entry);
    entry.users += 1;
    let instance: DuckDBInstance;
    try {
      instance = await entry.opening;
    } catch (error) {
      entry.users -= 1;
      if (this.entries.get(dataKey) === entry) await this.closeEntry(dataKey, entry);
      throw error;
    }
    await this.evictIdle();
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      entry.users -= 1;
      void this.evictIdle();
    };
    return { instance, release };
  }

  async close(): Promise<void> {
    await Promise.all([...this.entries].map(([dataKey, entry]) => this.closeEntry(dataKey, entry)));
  }

  /** Closes idle instances, least recently used first, until at most maxInstances remain. */
  private async evictIdle(): Promise<void> {
    for (const [dataKey, entry] of this.entries) {
      if (this.entries.size <= this.options.maxInstances) return;
      if (entry.users === 0) await this.closeEntry(dataKey, entry);
    }
  }

  private async closeEntry(dataKey: string, entry: PooledInstance): Promise<void> {
    this.entries.delete(dataKey);
    try {
      (await entry.opening).closeSync();
    } catch {
      // an instance that failed to open has nothing to close
    }
    await rm(entry.spillDirectory, { recursive: true, force: true });
    this.options.logger.info({ dataKey }, 'query instance closed');
  }
}

/**
 * Opens one query instance: in-memory, threads 2, memory_limit 512MiB, spilling to
 * `spillDirectory`, extension autoload/autoinstall off; attaches `databaseFile` read-only as
 * `data`, then disables external access and locks the configuration (no later SET can undo either).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export async function openQueryInstance(databaseFile: string, spillDirectory: string): Promise<DuckDBInstance> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '2',
    memory_limit: '512MiB',
    temp_directory: spillDirectory,
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    await connection.run(`ATTACH ${quoteLiteral(databaseFile)} AS data (READ_ONLY)`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  connection.closeSync();
  return instance;
}
