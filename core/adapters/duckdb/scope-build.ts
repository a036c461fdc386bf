/**
 * The view barrier by construction: for each (data build, scope) a DuckDB file
 * `<cacheDir>/<data dir>/scopes/<scope>.duckdb` holds one table per dataset with exactly the rows and
 * columns its view_query returns, so rows a view hides are physically absent from what a query sees.
 * No optimizer setting has to hold: a caller's predicate can only ever run on rows the view returned
 * (issue 18 § 1: DuckDB pushes a caller's filter into the base scan beside the view's own filter).
 * ENUM columns (also inside LIST, ARRAY, STRUCT, MAP and UNION) are stored as VARCHAR, so a type
 * never names a value that only a hidden row holds.
 *
 * The builder instance attaches the data database READ_ONLY as `data`, then disables external
 * access and locks its configuration before any view_query runs; each view_query runs as one
 * prepared statement. The file is built under a temporary name, checkpointed and renamed into place
 * (atomic). A new scope of a family (see {@link scopeFamily}) removes the family's older files;
 * a query process that still has one open keeps reading it (Linux keeps unlinked files), and is
 * never handed the new scope because the pool keys processes by data key and scope.
 *
 * Source: ../shared/spec/semantic-query-service.md § What the service does (3), § States (view_query changed).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  DuckDBArrayType, DuckDBInstance, DuckDBListType, DuckDBMapType, DuckDBStructType, DuckDBTypeId, DuckDBUnionType, VARCHAR,
  type DuckDBConnection, type DuckDBType,
} from '@duckdb/node-api';
import type { Logger } from '../../ports/logger.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { ScopedView } from '../../ports/query-engine.ts';
import { cacheDirectoryName } from './data-build.ts';
import { scopeFamily } from './materialise-views.ts';
import { engineMessage, quoteIdentifier, quoteLiteral } from './sql-text.ts';

/** Milliseconds one scope build may take before it is interrupted (default of {@link ScopeBuilderDeps.buildTimeoutMs}). */
export const defaultScopeBuildTimeoutMs = 120_000;

/** Milliseconds a failed build is remembered, so repeated calls do not rebuild a failing view_query. */
const failureMemoryMs = 60_000;

/**
 * Dependencies of {@link createScopeBuilder}.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export interface ScopeBuilderDeps {
  /** Directory holding `<data dir>/scopes/<scope>.duckdb` (the data builder's cache directory). */
  cacheDir: string;
  logger: Logger;
  /** Milliseconds a build may take; then it is interrupted and refused (default 120,000). */
  buildTimeoutMs?: number;
  /** Builds running at once in this process (default 2; each uses 2 threads and at most 512 MiB). */
  maxConcurrentBuilds?: number;
}

/** What a scope file is built from. */
export interface ScopeFileRequest {
  /** The DataSet key (names the data directory). */
  dataKey: string;
  /** The data database built for `dataKey` (attached read-only while building). */
  dataFile: string;
  /** Scope name, `<family>_<12 hex digest>`; an unchanged name promises unchanged views. */
  scope: string;
  views: readonly ScopedView[];
}

/**
 * Gives the materialised file of a scope, building it on first use.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export interface ScopeBuilder {
  /**
   * A lease on the scope's file: the absolute path of `<cacheDir>/<data dir>/scopes/<scope>.duckdb`,
   * whose `main` schema holds one table per view, named after the dataset. A newer scope of the
   * family does not remove the file while it is leased; call `release` once a process has opened it.
   * @throws PlatformError `view_materialisation_failed` (422) naming the dataset and the engine's
   *   error class only (the engine's text may quote a hidden row; it is logged server-side), or
   *   saying the build passed its time limit
   */
  scopeFile(request: ScopeFileRequest): Promise<ScopeLease>;
}

/** A scope file that stays in place until `release` (once; resolves when a retired file is gone). */
export interface ScopeLease {
  path: string;
  release(): Promise<void>;
}

/**
 * Creates a builder. Concurrent builds of one file in this process share one promise; another
 * process building the same file is harmless (both rename complete files into place).
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function createScopeBuilder(deps: ScopeBuilderDeps): ScopeBuilder {
  const building = new Map<string, Promise<string>>();
  const failed = new Map<string, { error: unknown; until: number }>();
  const slots = createSlots(deps.maxConcurrentBuilds ?? 2);
  const files = createLeases();
  const build = (request: ScopeFileRequest, target: string): Promise<string> => {
    if (existsSync(target)) return Promise.resolve(target);
    const failure = failed.get(target);
    if (failure && failure.until > Date.now()) return Promise.reject(failure.error);
    let pending = building.get(target);
    if (!pending) {
      pending = slots.run(() => buildScope(deps, request, target, files))
        .catch((error: unknown) => {
          if (error instanceof PlatformError) failed.set(target, { error, until: Date.now() + failureMemoryMs });
          throw error;
        })
        .finally(() => building.delete(target));
      building.set(target, pending);
    }
    return pending;
  };
  return {
    async scopeFile(request) {
      const target = join(deps.cacheDir, cacheDirectoryName(request.dataKey), 'scopes', `${cacheDirectoryName(request.scope)}.duckdb`);
      const release = files.take(target);
      try {
        return { path: await build(request, target), release };
      } catch (error) {
        await release();
        throw error;
      }
    },
  };
}

type Leases = ReturnType<typeof createLeases>;

/** Leased files of this process; a superseded file is removed once its last lease ends. */
function createLeases() {
  const counts = new Map<string, number>();
  const superseded = new Set<string>();
  return {
    take(path: string): () => Promise<void> {
      counts.set(path, (counts.get(path) ?? 0) + 1);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        const left = (counts.get(path) ?? 1) - 1;
        if (left > 0) return void counts.set(path, left);
        counts.delete(path);
        if (superseded.delete(path)) await rm(path, { force: true }).catch(() => undefined);
      };
    },
    /** Removes `path` now, or when its last lease ends. */
    retire(path: string): Promise<void> {
      if (!counts.has(path)) return rm(path, { force: true });
      superseded.add(path);
      return Promise.resolve();
    },
  };
}

async function buildScope(deps: ScopeBuilderDeps, request: ScopeFileRequest, target: string, files: Leases): Promise<string> {
  const directory = dirname(target);
  await mkdir(directory, { recursive: true });
  const temporary = `${target}.${randomUUID()}.tmp`;
  const started = performance.now();
  try {
    await materialise(deps, request, temporary);
    await rename(temporary, target);
    deps.logger.info({ dataKey: request.dataKey, scope: request.scope, ms: Math.round(performance.now() - started) }, 'scope file built');
    await removeFamily(files, target, request.scope);
    return target;
  } finally {
    await Promise.all([temporary, `${temporary}.wal`, `${temporary}.tmp`].map((path) => rm(path, { recursive: true, force: true })));
  }
}

async function materialise(deps: ScopeBuilderDeps, request: ScopeFileRequest, file: string): Promise<void> {
  const instance = await DuckDBInstance.create(file, {
    threads: '2',
    memory_limit: '512MiB',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
  });
  const connection = await instance.connect();
  const timeoutMs = deps.buildTimeoutMs ?? defaultScopeBuildTimeoutMs;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    connection.interrupt();
  }, timeoutMs);
  try {
    await connection.run(`ATTACH ${quoteLiteral(request.dataFile)} AS data (READ_ONLY)`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
    for (const view of request.views) {
      try {
        await createTable(connection, view);
      } catch (error) {
        throw refusal(deps.logger, request, view.name, error, timedOut ? timeoutMs : undefined);
      }
    }
    await connection.run('CHECKPOINT');
  } finally {
    clearTimeout(timer);
    connection.closeSync();
    instance.closeSync();
  }
}

/** `CREATE TABLE "<dataset>" AS <view_query>`, with ENUM columns cast to text; prepared, so one statement only. */
async function createTable(connection: DuckDBConnection, view: ScopedView): Promise<void> {
  const query = view.sql.replace(/[\s;]+$/, '');
  const probe = await connection.prepare(query);
  const columns = Array.from({ length: probe.columnCount }, (_, index) => ({ name: probe.columnName(index), type: probe.columnType(index) }));
  probe.destroySync();
  const table = quoteIdentifier(view.name);
  let sql = `CREATE TABLE ${table} AS ${query}\n`;
  if (columns.some((column) => hasEnum(column.type))) {
    const aliases = columns.map((_, index) => quoteIdentifier(`c${index}`));
    const select = columns.map((column, index) => {
      const value = `s.${aliases[index]}`;
      const text = hasEnum(column.type) ? `CAST(${value} AS ${withoutEnums(column.type).toString()})` : value;
      return `${text} AS ${quoteIdentifier(column.name)}`;
    });
    sql = `CREATE TABLE ${table} AS SELECT ${select.join(', ')} FROM (\n${query}\n) AS s(${aliases.join(', ')})`;
  }
  const prepared = await connection.prepare(sql);
  try {
    await prepared.run();
  } finally {
    prepared.destroySync();
  }
}

/** True when `type` is an ENUM or holds one at any depth. */
function hasEnum(type: DuckDBType): boolean {
  switch (type.typeId) {
    case DuckDBTypeId.ENUM: return true;
    case DuckDBTypeId.LIST: case DuckDBTypeId.ARRAY: return hasEnum(type.valueType);
    case DuckDBTypeId.MAP: return hasEnum(type.keyType) || hasEnum(type.valueType);
    case DuckDBTypeId.STRUCT: return type.entryTypes.some(hasEnum);
    case DuckDBTypeId.UNION: return type.memberTypes.some(hasEnum);
    default: return false;
  }
}

/**
 * `type` with every ENUM node replaced by VARCHAR (the rest of the tree unchanged).
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function withoutEnums(type: DuckDBType): DuckDBType {
  if (!hasEnum(type)) return type;
  switch (type.typeId) {
    case DuckDBTypeId.LIST: return new DuckDBListType(withoutEnums(type.valueType));
    case DuckDBTypeId.ARRAY: return new DuckDBArrayType(withoutEnums(type.valueType), type.length);
    case DuckDBTypeId.MAP: return new DuckDBMapType(withoutEnums(type.keyType), withoutEnums(type.valueType));
    case DuckDBTypeId.STRUCT: return new DuckDBStructType(type.entryNames, type.entryTypes.map(withoutEnums));
    case DuckDBTypeId.UNION: return new DuckDBUnionType(type.memberTags, type.memberTypes.map(withoutEnums));
    default: return VARCHAR;
  }
}

/**
 * The caller's answer for a view_query that did not build: the dataset and the engine's error
 * class only. The engine's text is computed over every row of the data, hidden ones included (a
 * cast error quotes the value), so it goes to the service log only.
 */
function refusal(logger: Logger, request: ScopeFileRequest, dataset: string, error: unknown, timeoutMs?: number): PlatformError {
  const message = engineMessage(error);
  logger.warn({ dataKey: request.dataKey, scope: request.scope, dataset, error: message }, 'view_query could not be materialised');
  const what = timeoutMs === undefined
    ? `(${errorClass(message)}; the engine's full message is in the service log)`
    : `within ${timeoutMs / 1000} s, the limit of a view build`;
  return new PlatformError(
    'view_materialisation_failed',
    `Dataset "${dataset}" could not be materialised from its view_query ${what}. The model's view_query needs a fix by its modeller (request_improvement can say so).`,
    { status: 422, cause: error },
  );
}

/**
 * The error class at the head of a DuckDB message (`Conversion Error: …` → `Conversion Error`), else `engine error`.
 *
 * Source: spec/semantic-query-service.md § Errors
 */
export function errorClass(message: string): string {
  return /^([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)* Error):/.exec(message)?.[1] ?? 'engine error';
}

/** Retires the other files of `scope`'s family beside `target` (older versions of the same model's views). */
async function removeFamily(files: Leases, target: string, scope: string): Promise<void> {
  const family = scopeFamily(scope);
  const directory = dirname(target);
  for (const entry of await readdir(directory)) {
    if (!entry.endsWith('.duckdb')) continue;
    const path = join(directory, entry);
    if (path !== target && scopeFamily(entry.slice(0, -'.duckdb'.length)) === family) await files.retire(path);
  }
}

/** At most `count` tasks at once, the rest in arrival order. */
function createSlots(count: number): { run<T>(task: () => Promise<T>): Promise<T> } {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    async run(task) {
      if (running >= count) await new Promise<void>((resolve) => waiting.push(resolve));
      else running += 1;
      try {
        return await task();
      } finally {
        const next = waiting.shift();
        if (next) next();
        else running -= 1;
      }
    },
  };
}
