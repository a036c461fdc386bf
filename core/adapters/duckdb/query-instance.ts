/**
 * The query instance of a query process: an in-memory DuckDB (threads 2, memory_limit 512MiB) that
 * attaches the data database read-only as `data`, then disables external access and locks its
 * configuration, so no file, network, extension or setting is reachable afterwards.
 *
 * Source: spec/semantic-query-service.md § Query validation (engine connection settings), § Limits.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from './sql-text.ts';

/**
 * DuckDB's memory_limit of a query instance in MiB (spec: 512MB). It bounds DuckDB's buffer manager
 * only; the query process's ceiling (memory-ceiling.ts) bounds everything else.
 */
export const engineMemoryLimitMiB = 512;

/**
 * Opens one query instance: in-memory, threads 2, memory_limit {@link engineMemoryLimitMiB},
 * spilling to `spillDirectory`, extension autoload/autoinstall off; attaches `databaseFile` read-only
 * as `data`, then disables external access and locks the configuration (no later SET can undo either).
 *
 * Source: spec/semantic-query-service.md § Query validation
 */
export async function openQueryInstance(databaseFile: string, spillDirectory: string): Promise<DuckDBInstance> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '2',
    memory_limit: `${engineMemoryLimitMiB}MiB`,
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
