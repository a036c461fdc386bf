/**
 * The QueryEngine on DuckDB (@duckdb/node-api): a data database per DataSet key (built once from
 * the object store), a query instance per key (read-only `data` catalog, external access off,
 * threads 2, memory_limit 512MiB, at most `maxInstances` open), scoped views re-materialised on
 * every call, and queries run with search_path set to the scope.
 *
 * Source: ../shared/spec/semantic-query-service.md § What the service does (3, 4), § Query validation, § Limits.
 */
import { join } from 'node:path';
import { pid } from 'node:process';
import type { Logger } from '../../ports/logger.ts';
import type { ObjectStore } from '../../ports/object-store.ts';
import type { ExecuteRequest, QueryEngine, QueryResult } from '../../ports/query-engine.ts';
import { cacheDirectoryName, createDataBuilder } from './data-build.ts';
import { createInstancePool } from './instance-pool.ts';
import { createKeyedLock } from './keyed-lock.ts';
import { materialiseViews } from './materialise-views.ts';
import { createDuckDbParser } from './parser.ts';
import { startQuery } from './run-query.ts';

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
  /** Query instances kept open at most (default 4); the least recently used idle one is closed. */
  maxInstances?: number;
}

/**
 * Creates the DuckDB query engine.
 * - `parse`: json_serialize_sql on a dedicated in-memory instance.
 * - `execute`: builds the data database on first use (`data_file_invalid`), re-materialises the
 *   scope's views under a per-(data, scope) lock (`view_materialisation_failed`), then runs the SQL
 *   on a fresh connection (`query_timeout`, `query_failed`, `query_invalid_params`).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export function createDuckDbQueryEngine(deps: DuckDbQueryEngineDeps): QueryEngine {
  const logger = deps.logger.child({ component: 'duckdb' });
  const builder = createDataBuilder({ objectStore: deps.objectStore, cacheDir: deps.cacheDir, logger });
  const pool = createInstancePool({ logger, maxInstances: deps.maxInstances ?? 4 });
  const locks = createKeyedLock();
  const parser = createDuckDbParser();
  let spillCounter = 0;

  return {
    parse: (sql) => parser.parse(sql),

    async execute(request: ExecuteRequest): Promise<QueryResult> {
      const databaseFile = await builder.databaseFile(request.data);
      spillCounter += 1;
      const spillDirectory = join(deps.cacheDir, cacheDirectoryName(request.data.key), `spill-${pid}-${spillCounter}`);
      const lease = await pool.acquire(request.data.key, databaseFile, spillDirectory);
      const lockKey = `${request.data.key}\n${request.scope}`;
      const started = startQuery(lease.instance, request, (steps) =>
        locks.run(lockKey, async () => {
          await materialiseViews(lease.instance, request.scope, request.views);
          return steps();
        }),
      );
      void started.finished.finally(() => lease.release());
      return started.result;
    },

    async close() {
      parser.close();
      await pool.close();
    },
  };
}
