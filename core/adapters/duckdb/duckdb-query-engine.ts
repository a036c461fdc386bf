/**
 * The QueryEngine on DuckDB (@duckdb/node-api). Parsing and the builds stay in this process: a data
 * database per DataSet key, built once from the object store, and a scope file per (data key, scope)
 * holding only the rows and columns of the scope's view_queries (scope-build.ts: the view is a barrier
 * by construction). Execution runs in query processes (children of semantic-mcp, see process-pool.ts
 * and query-process.ts), each holding a query instance of one scope file (attached read-only as the
 * `data` catalog, external access off, configuration locked, threads 2, memory_limit 512MiB) and
 * running one query at a time, so the time limit stops the work (the child is killed when it does not
 * stop), the memory ceiling holds for values, and a runaway query costs only its caller. In the child
 * queries run with search_path `data.main`: bare dataset names bind straight to the scope file's tables.
 *
 * Source: spec/semantic-query-service.md § What the service does (3, 4), § Query validation, § Limits.
 */
import { inEngineSpan } from './engine-spans.ts';
import { join } from 'node:path';
import { pid } from 'node:process';
import type { Logger } from '../../ports/logger.ts';
import type { ObjectStore } from '../../ports/object-store.ts';
import type { ExecuteRequest, QueryEngine, QueryResult } from '../../ports/query-engine.ts';
import { type CacheRetention, createCacheRetention, holdingDataWhileQuerying } from './cache-retention.ts';
import { cacheDirectoryName, createDataBuilder, type DataBuilder } from './data-build.ts';
import { createDuckDbParser } from './parser.ts';
import { createQueryProcessPool, type QueryProcessPool, type ShareLimits } from './process-pool.ts';
import { cancelledError } from './query-execution.ts';
import type { QueryProcessCommand } from './query-process.ts';
import type { BuildLimits } from './build-slots.ts';
import { createScopeBuilder, type ScopeBuilder } from './scope-build.ts';

/**
 * Dependencies of {@link createDuckDbQueryEngine}.
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export interface DuckDbQueryEngineDeps {
  /** Holds the data files' bytes (`DataFile.objectKey`). */
  objectStore: ObjectStore;
  /** Local directory for built data databases and spill files (`<cacheDir>/<data key>/…`). */
  cacheDir: string;
  logger: Logger;
  /** How to start a query process (semantic-mcp's own executable with its query-process flag). */
  queryProcess: QueryProcessCommand;
  /** Query processes alive at most (default 4); beyond, callers wait, served round-robin across projects. */
  maxProcesses?: number;
  /** Fair shares per project and token and the longest wait for a process (defaults: pool-shares.ts). */
  shareLimits?: Partial<ShareLimits>;
  /** Milliseconds a timed-out query gets to stop after the interrupt before its process is killed (default 500). */
  interruptGraceMs?: number;
  /** Set RLIMIT_DATA on query processes with prlimit (default true); the RSS watchdog runs either way. */
  kernelMemoryLimit?: boolean;
  /** Milliseconds a scope file build may take before it is interrupted (default 120,000; scope-build.ts). */
  scopeBuildTimeoutMs?: number;
  /** Bytes the cache may hold: a data build that would pass it is refused (default: no cap; cache-retention.ts). */
  maxCacheBytes?: number;
  /** The data keys some published or saved plane uses: the others' builds are removed (absent: none is). */
  liveDataKeys?: () => Promise<ReadonlySet<string>>;
  /**
   * Scope builds at once and their shares per project and organization (defaults: build-slots.ts; the longest wait
   * for a build to start defaults to `shareLimits.maxWaitMs`, the longest wait for a query process).
   */
  buildLimits?: Partial<BuildLimits>;
}

/** The pool key of a scope: processes are bound to one scope file of one data key (JSON, so both parts stay apart). */
function poolKey(dataKey: string, scope: string): string {
  return JSON.stringify([dataKey, scope]);
}

function dataKeyOf(key: string): string {
  return (JSON.parse(key) as [string, string])[0];
}

/**
 * Creates the DuckDB query engine.
 * - `parse`: json_serialize_sql on a dedicated in-memory instance of this process.
 * - `execute`: builds the data database on first use (`data_file_invalid`) and the scope file on the
 *   first call of a scope (the call waits, at most the longest wait for its build to start, then `query_busy`, and
 *   its build stops when no caller waits any more; `view_materialisation_failed` names the dataset and the
 *   engine's error class only), takes a query process of that scope file from the pool (waiting for
 *   room), and runs the request there under the deadline
 *   (`query_timeout`, `query_memory_exceeded`, `query_rejected`, `query_failed` with the engine's
 *   text, `query_invalid_params`). The deadline starts when the process takes the request. Run-time
 *   engine text may quote row values; it is safe to return because the instance holds only the rows
 *   the scope's views return.
 * - `prepareScope`: starts the data build and queues the scope file's build without waiting (failures are
 *   left for `execute`, which reports them; a refused build is remembered while its scope is unchanged,
 *   see scope-build.ts).
 * - `close`: kills every query process and waits for them.
 * - the cache (cache-retention.ts): a data build no published or saved plane uses (`liveDataKeys`) is removed, once
 *   the last query holding it has ended; a new data build that would pass `maxCacheBytes` is refused
 *   (`semantic_cache_full`).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function createDuckDbQueryEngine(deps: DuckDbQueryEngineDeps): QueryEngine {
  const parts = createEngineParts(deps);
  const { retention, builder, scopes, pool } = parts;
  const parser = createDuckDbParser();

  // A data build no plane uses any more is removed once its last query has ended (cache-retention.ts).
  return holdingDataWhileQuerying(retention, {
    parse: (sql, partition) => parser.parse(sql, partition),

    execute: (request: ExecuteRequest): Promise<QueryResult> => executeQuery(parts, request),

    prepareScope({ data, scope, views }, owner) {
      void builder.databaseFile(data)
        .then((dataFile) => scopes.prepare({ dataKey: data.key, dataFile, scope, views, share: owner }))
        .catch(() => undefined);
    },

    async close() {
      parser.close();
      await pool.close();
    },
  });
}

/** What the engine's methods share: its logger, the cache's retention, the data and scope builders, the pool. */
interface EngineParts {
  logger: Logger;
  retention: CacheRetention;
  builder: DataBuilder;
  scopes: ScopeBuilder;
  pool: QueryProcessPool;
}

/** Builds the engine's parts from its dependencies (defaults: 4 query processes). */
function createEngineParts(deps: DuckDbQueryEngineDeps): EngineParts {
  const logger = deps.logger.child({ component: 'duckdb' });
  const retention = createCacheRetention({
    cacheDir: deps.cacheDir,
    logger,
    maxBytes: deps.maxCacheBytes,
    liveDataKeys: deps.liveDataKeys,
  });
  const builder = createDataBuilder({
    objectStore: deps.objectStore,
    cacheDir: deps.cacheDir,
    logger,
    limit: retention,
  });
  const scopes = createScopeBuilder({
    cacheDir: deps.cacheDir,
    logger,
    buildTimeoutMs: deps.scopeBuildTimeoutMs,
    limits: { maxWaitMs: deps.shareLimits?.maxWaitMs, ...deps.buildLimits },
  });
  let spillCounter = 0;
  const pool = createQueryProcessPool({
    command: deps.queryProcess,
    logger,
    maxProcesses: deps.maxProcesses ?? 4,
    limits: deps.shareLimits,
    graceMs: deps.interruptGraceMs,
    kernelLimit: deps.kernelMemoryLimit,
    spillDirectory: (key) => {
      spillCounter += 1;
      return join(deps.cacheDir, cacheDirectoryName(dataKeyOf(key)), `spill-${pid}-${spillCounter}`);
    },
  });
  return { logger, retention, builder, scopes, pool };
}

/**
 * Runs `request`: the data database and the scope file (built on first use), a query process of that scope file,
 * the query there under its deadline; a caller gone away cancels it.
 */
async function executeQuery(parts: EngineParts, request: ExecuteRequest): Promise<QueryResult> {
  const { logger, builder, scopes, pool } = parts;
  const { signal, caller } = request;
  if (signal?.aborted) throw cancelledError();
  const databaseFile = await builder.databaseFile(request.data);
  const { scope, sql, params, maxRows, maxBytes } = request;
  // The scope file: built on a scope's first query, else at once (docs/decisions.md D25: a span either way).
  const scopeFile = await inEngineSpan('duckdb scope', { 'db.operation.name': 'CREATE' }, () =>
    scopes.scopeFile({
      dataKey: request.data.key,
      dataFile: databaseFile,
      scope,
      views: request.views,
      share: caller && { projectId: caller.projectId, orgId: caller.orgId },
      signal,
    }));
  const process = await pool.acquire(poolKey(request.data.key, scope), scopeFile.path, { share: caller, signal })
    .finally(scopeFile.release);
  if (signal?.aborted) {
    pool.release(process, true);
    logger.info({ ...caller }, 'query cancelled before it ran: its caller went away');
    throw cancelledError();
  }
  // Bare names bind straight to the scope file's tables (search_path data.main): through views over them
  // (`SELECT * FROM data."<dataset>"`) the prepare took about twice as long (docs/decisions.md D18, per-call
  // waste).
  const query = { scope, views: [], searchPath: 'data.main', sql, params, maxRows, maxBytes };
  const execution = process.execute(query, request.timeoutMs);
  const cancel = () => {
    const message = 'query cancelled while running: its caller went away; interrupted';
    logger.info({ ...caller, pid: process.pid }, message);
    execution.cancel();
  };
  signal?.addEventListener('abort', cancel, { once: true });
  void execution.done.then((reusable) => {
    signal?.removeEventListener('abort', cancel);
    pool.release(process, reusable);
  });
  // Only a read-only SELECT runs (the query process refuses anything else); the text stays off the span.
  return inEngineSpan('SELECT', { 'db.operation.name': 'SELECT' }, () => execution.result);
}
