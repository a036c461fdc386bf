/**
 * Writes one scope file (scope-build.ts decides where and when): a DuckDB instance on the new file
 * attaches the data database READ_ONLY as `data`, disables external access and locks its
 * configuration before any view_query runs, then creates one table per dataset from its view_query,
 * each run as one prepared statement (no second statement can be smuggled in), with every ENUM
 * column, also one nested in LIST, ARRAY, STRUCT, MAP or UNION, cast to VARCHAR. Bounded: threads 2,
 * memory_limit 512MiB, and an interrupt after the build's time limit.
 *
 * Source: spec/semantic-query-service.md § What the service does (3), § Query validation.
 */
import {
  DuckDBArrayType,
  type DuckDBConnection,
  DuckDBInstance,
  DuckDBListType,
  DuckDBMapType,
  DuckDBStructType,
  type DuckDBType,
  DuckDBTypeId,
  DuckDBUnionType,
  VARCHAR,
} from '@duckdb/node-api';
import type { Logger } from '../../ports/logger.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { ScopedView } from '../../ports/query-engine.ts';
import { engineMessage, quoteIdentifier, quoteLiteral } from './sql-text.ts';

/** Milliseconds between the repeats of an interrupt a build was asked for, until it has ended. */
const INTERRUPT_REPEAT_MS = 50;

/**
 * What {@link writeScopeTables} builds: the views of one scope over one data database.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export interface ScopeTablesRequest {
  dataKey: string;
  /** The data database (attached READ_ONLY as `data`). */
  dataFile: string;
  scope: string;
  views: readonly ScopedView[];
  /** Interrupts the build once aborted (nobody waits for it any more); the engine's error is thrown as it is. */
  signal?: AbortSignal;
}

/**
 * Creates `file` holding one table per view (named after the dataset) and checkpoints it.
 * @param timeoutMs - the build is interrupted after this many milliseconds
 * @throws PlatformError `view_materialisation_failed` (422) naming the dataset and the engine's error
 *   class only, or the time limit; the engine's text is logged (warn) with the data key and scope
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export async function writeScopeTables(
  file: string,
  request: ScopeTablesRequest,
  timeoutMs: number,
  logger: Logger,
): Promise<void> {
  const instance = await DuckDBInstance.create(file, {
    threads: '2',
    memory_limit: '512MiB',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
  });
  const connection = await instance.connect();
  let timedOut = false;
  // An interrupt that lands between two statements (the probe's prepare and the CREATE TABLE) is lost, and the
  // build would run on to its time limit holding its slot: once asked, it is repeated until the build ends.
  let repeating: ReturnType<typeof setInterval> | undefined;
  const interrupt = () => {
    connection.interrupt();
    repeating ??= setInterval(() => connection.interrupt(), INTERRUPT_REPEAT_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    interrupt();
  }, timeoutMs);
  request.signal?.addEventListener('abort', interrupt, { once: true });
  let dataset = '';
  try {
    await connection.run(`ATTACH ${quoteLiteral(request.dataFile)} AS data (READ_ONLY)`);
    await connection.run('SET enable_external_access = false');
    await connection.run('SET lock_configuration = true');
    for (const view of request.views) {
      request.signal?.throwIfAborted();
      dataset = view.name;
      await createTable(connection, view);
    }
    await connection.run('CHECKPOINT');
  } catch (error) {
    if (!dataset || request.signal?.aborted) throw error;
    throw refusal(logger, request, { dataset, error, timeoutMs: timedOut ? timeoutMs : undefined });
  } finally {
    clearTimeout(timer);
    clearInterval(repeating);
    request.signal?.removeEventListener('abort', interrupt);
    connection.closeSync();
    instance.closeSync();
  }
}

/** `CREATE TABLE "<dataset>" AS <view_query>`, ENUM columns cast to text; prepared, so one statement only. */
async function createTable(connection: DuckDBConnection, view: ScopedView): Promise<void> {
  const query = view.sql.replace(/[\s;]+$/, '');
  const probe = await connection.prepare(query);
  const columns = Array.from({ length: probe.columnCount }, (_, index) => ({
    name: probe.columnName(index),
    type: probe.columnType(index),
  }));
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
    case DuckDBTypeId.ENUM:
      return true;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
      return hasEnum(type.valueType);
    case DuckDBTypeId.MAP:
      return hasEnum(type.keyType) || hasEnum(type.valueType);
    case DuckDBTypeId.STRUCT:
      return type.entryTypes.some(hasEnum);
    case DuckDBTypeId.UNION:
      return type.memberTypes.some(hasEnum);
    default:
      return false;
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
    case DuckDBTypeId.LIST:
      return new DuckDBListType(withoutEnums(type.valueType));
    case DuckDBTypeId.ARRAY:
      return new DuckDBArrayType(withoutEnums(type.valueType), type.length);
    case DuckDBTypeId.MAP:
      return new DuckDBMapType(withoutEnums(type.keyType), withoutEnums(type.valueType));
    case DuckDBTypeId.STRUCT:
      return new DuckDBStructType(type.entryNames, type.entryTypes.map(withoutEnums));
    case DuckDBTypeId.UNION:
      return new DuckDBUnionType(type.memberTags, type.memberTypes.map(withoutEnums));
    default:
      return VARCHAR;
  }
}

/** The view build {@link refusal} answers for. */
interface ViewBuildFailure {
  /** The dataset whose view_query did not build. */
  dataset: string;
  /** What the engine threw: its message goes to the service log, only its error class to the caller. */
  error: unknown;
  /** The view build's time limit in milliseconds, when that is what stopped it; undefined when the build failed. */
  timeoutMs?: number;
}

/**
 * The caller's answer for a view_query that did not build: the dataset and the engine's error
 * class only. The engine's text is computed over every row of the data, hidden ones included (a
 * cast error quotes the value), so it goes to the service log only.
 */
function refusal(
  logger: Logger,
  request: ScopeTablesRequest,
  { dataset, error, timeoutMs }: ViewBuildFailure,
): PlatformError {
  const message = engineMessage(error);
  const { dataKey, scope } = request;
  logger.warn({ dataKey, scope, dataset, error: message }, 'view_query could not be materialised');
  const what = timeoutMs === undefined
    ? `(${errorClass(message)}; the engine's full message is in the service log)`
    : `within ${timeoutMs / 1000} s, the limit of a view build`;
  return new PlatformError(
    'view_materialisation_failed',
    `Dataset "${dataset}" could not be materialised from its view_query ${what}. ` +
      "The model's view_query needs a fix by its modeller (request_improvement can say so).",
    { status: 422, cause: error },
  );
}

/**
 * The error class at the head of a DuckDB message (`Conversion Error: …` → `Conversion Error`), else
 * `engine error`.
 *
 * Source: spec/semantic-query-service.md § Errors
 */
export function errorClass(message: string): string {
  return /^([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)* Error):/.exec(message)?.[1] ?? 'engine error';
}
