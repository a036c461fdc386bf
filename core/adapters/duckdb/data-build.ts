/**
 * Builds, once per DataSet key, the DuckDB database file that query instances attach read-only as
 * the `data` catalog: each data file is downloaded from the object store, its SHA-256 checked, and
 * loaded as a table named after the file's stem (`flights-3m.parquet` → `"flights-3m"`); `.duckdb`
 * files contribute every table of their main schema. The file is built under a temporary name and
 * renamed into place (atomic), so readers never see a partial database.
 *
 * Source: spec/semantic-query-service.md § What the service does (3, 4).
 */
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import type { Logger } from '../../ports/logger.ts';
import type { ObjectStore } from '../../ports/object-store.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { DataFile, DataSet } from '../../ports/query-engine.ts';
import { engineMessage, quoteIdentifier, quoteLiteral } from './sql-text.ts';

/**
 * Dependencies of {@link createDataBuilder}.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export interface DataBuilderDeps {
  objectStore: ObjectStore;
  /** Directory holding `<key>/data.duckdb` (created when missing). */
  cacheDir: string;
  logger: Logger;
  /** Asked before and after each new build (cache-retention.ts); absent: every build is kept. */
  limit?: DataBuildLimit;
}

/**
 * What a new build asks of the cache: `admit` before it downloads anything, `keep` once its database is written
 * (`bytes` long) and before it is renamed into place; either refuses by throwing (the build is then removed).
 *
 * Source: docs/decisions.md D18 § 8
 */
export interface DataBuildLimit {
  admit(data: DataSet): Promise<void>;
  keep(data: DataSet, bytes: number): Promise<void>;
}

/**
 * Gives the path of a DataSet's database file, building it on first use.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export interface DataBuilder {
  /**
   * @returns the absolute path of `<cacheDir>/<key>/data.duckdb`
   * @throws PlatformError `data_file_invalid` naming the file (missing, digest mismatch, unsupported
   *   extension, load failure with the engine's reason, or a table-name clash naming both files);
   *   `semantic_cache_full` (507) when `limit` refuses the build
   */
  databaseFile(data: DataSet): Promise<string>;
}

const loaders: Record<string, (path: string) => string> = {
  parquet: (path) => `read_parquet(${quoteLiteral(path)})`,
  csv: (path) => `read_csv_auto(${quoteLiteral(path)})`,
  tsv: (path) => `read_csv_auto(${quoteLiteral(path)}, delim = '\t')`,
  json: (path) => `read_json_auto(${quoteLiteral(path)})`,
  jsonl: (path) => `read_json_auto(${quoteLiteral(path)}, format = 'newline_delimited')`,
  ndjson: (path) => `read_json_auto(${quoteLiteral(path)}, format = 'newline_delimited')`,
};

/**
 * Creates a builder. Concurrent builds of one key in this process share one promise; another
 * process building the same key is harmless (both rename complete files into place).
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function createDataBuilder(deps: DataBuilderDeps): DataBuilder {
  const building = new Map<string, Promise<string>>();
  return {
    databaseFile(data) {
      const directory = join(deps.cacheDir, cacheDirectoryName(data.key));
      const target = join(directory, 'data.duckdb');
      if (existsSync(target)) return Promise.resolve(target);
      let pending = building.get(target);
      if (!pending) {
        pending = buildDatabase(deps, data, directory, target).finally(() => building.delete(target));
        building.set(target, pending);
      }
      return pending;
    },
  };
}

/**
 * The key itself when it is a safe directory name, else its SHA-256.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function cacheDirectoryName(key: string): string {
  return /^[A-Za-z0-9_-]{1,128}$/.test(key) ? key : createHash('sha256').update(key).digest('hex');
}

async function buildDatabase(deps: DataBuilderDeps, data: DataSet, directory: string, target: string): Promise<string> {
  const filesDirectory = join(directory, 'files');
  await mkdir(filesDirectory, { recursive: true });
  const temporary = join(directory, `data.duckdb.${randomUUID()}.tmp`);
  const started = performance.now();
  try {
    await deps.limit?.admit(data);
    const paths = await downloadFiles(deps.objectStore, data.files, filesDirectory);
    await loadTables(temporary, filesDirectory, data.files, paths);
    await deps.limit?.keep(data, (await stat(temporary)).size);
    await rename(temporary, target);
    deps.logger.info(
      { dataKey: data.key, files: data.files.length, ms: Math.round(performance.now() - started) },
      'data database built',
    );
    return target;
  } finally {
    await Promise.all(
      [temporary, `${temporary}.wal`, `${temporary}.tmp`].map((path) => rm(path, { recursive: true, force: true })),
    );
    await rm(filesDirectory, { recursive: true, force: true });
  }
}

async function downloadFiles(store: ObjectStore, files: DataFile[], directory: string): Promise<string[]> {
  const paths: string[] = [];
  for (const file of files) {
    if (!/^[^/\\]+$/.test(file.name) || file.name === '.' || file.name === '..') {
      throw invalidFile(file.name, 'the name is not a plain file name');
    }
    const bytes = await store.get(file.objectKey);
    if (!bytes) throw invalidFile(file.name, 'its bytes are missing from the object store; upload the file again');
    const digest = createHash('sha256').update(bytes).digest('hex');
    if (digest !== file.sha256.toLowerCase()) {
      throw invalidFile(file.name, 'its bytes do not match the recorded SHA-256; upload the file again');
    }
    const path = join(directory, file.name);
    await writeFile(path, bytes);
    paths.push(path);
  }
  return paths;
}

async function loadTables(
  databasePath: string,
  filesDirectory: string,
  files: DataFile[],
  paths: string[],
): Promise<void> {
  const instance = await DuckDBInstance.create(databasePath, {
    threads: '2',
    memory_limit: '512MiB',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    await connection.run(`SET allowed_directories = [${quoteLiteral(`${filesDirectory}/`)}]`);
    await connection.run('SET enable_external_access = false');
    const owners = new Map<string, string>();
    for (const [index, file] of files.entries()) await loadFile(connection, file, paths[index], owners);
    await connection.run('CHECKPOINT');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

async function loadFile(
  connection: DuckDBConnection,
  file: DataFile,
  path: string,
  owners: Map<string, string>,
): Promise<void> {
  const dot = file.name.lastIndexOf('.');
  const extension = dot > 0 ? file.name.slice(dot + 1).toLowerCase() : '';
  if (extension === 'duckdb') return copyDuckDbTables(connection, file, path, owners);
  const loader = loaders[extension];
  if (!loader) {
    throw invalidFile(
      file.name,
      'its type is not supported; use .parquet, .csv, .tsv, .json, .jsonl, .ndjson or .duckdb',
    );
  }
  const table = file.name.slice(0, dot);
  claimTable(owners, table, file.name);
  await runForFile(connection, file.name, `CREATE TABLE ${quoteIdentifier(table)} AS SELECT * FROM ${loader(path)}`);
}

async function copyDuckDbTables(
  connection: DuckDBConnection,
  file: DataFile,
  path: string,
  owners: Map<string, string>,
): Promise<void> {
  const alias = `source_${owners.size}_${randomUUID().replaceAll('-', '')}`;
  await runForFile(connection, file.name, `ATTACH ${quoteLiteral(path)} AS ${quoteIdentifier(alias)} (READ_ONLY)`);
  try {
    const reader = await connection.runAndReadAll(
      "SELECT table_name FROM duckdb_tables() WHERE database_name = $1 AND schema_name = 'main' ORDER BY table_name",
      [alias],
    );
    for (const [table] of reader.getRows() as [string][]) {
      claimTable(owners, table, file.name);
      const source = `${quoteIdentifier(alias)}.main.${quoteIdentifier(table)}`;
      await runForFile(connection, file.name, `CREATE TABLE ${quoteIdentifier(table)} AS SELECT * FROM ${source}`);
    }
  } finally {
    await connection.run(`DETACH ${quoteIdentifier(alias)}`);
  }
}

/** Records that `fileName` defines `table`; DuckDB names are case-insensitive, so clashes are too. */
function claimTable(owners: Map<string, string>, table: string, fileName: string): void {
  const owner = owners.get(table.toLowerCase());
  if (owner !== undefined) {
    const files = owner === fileName
      ? `Data file "${fileName}" defines`
      : `Data files "${owner}" and "${fileName}" both define`;
    throw new PlatformError(
      'data_file_invalid',
      `${files} table "${table}"; rename one of them so every table name is unique.`,
      { status: 422 },
    );
  }
  owners.set(table.toLowerCase(), fileName);
}

async function runForFile(connection: DuckDBConnection, fileName: string, sql: string): Promise<void> {
  try {
    await connection.run(sql);
  } catch (error) {
    throw invalidFile(fileName, `it could not be loaded: ${engineMessage(error)}`);
  }
}

function invalidFile(fileName: string, reason: string): PlatformError {
  return new PlatformError('data_file_invalid', `Data file "${fileName}" is invalid: ${reason}`, { status: 422 });
}
