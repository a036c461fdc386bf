/**
 * Binding of execute_query's string params to a prepared statement with the types DuckDB infers
 * for each placeholder: the string is converted by DuckDB itself (TRY_CAST) so `WHERE n > $1`
 * with '5' compares numbers, and a string that does not convert is refused before the query runs.
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query: params).
 */
import {
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
} from '@duckdb/node-api';
import { PlatformError } from '../../ports/platform-error.ts';

/** Conversion statements kept per connection, at most (the least recently used is freed first). */
const maxCastStatements = 32;

/**
 * The prepared conversions of one connection, `SELECT TRY_CAST($1::VARCHAR AS <type>)` by type text: each is
 * prepared on first use and then only executed, so a typed param costs one execution per query instead of a
 * prepare and an execution (~0.3 ms less each). {@link CastStatements.clear} frees them; call it when the
 * connection's search_path changes (a type's name may then mean another type).
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query: params); docs/decisions.md D18 (per-call waste)
 */
export class CastStatements {
  private readonly byType = new Map<string, DuckDBPreparedStatement>();

  constructor(private readonly connection: DuckDBConnection) {}

  /**
   * The value of `text` converted to `type` as the engine's TRY_CAST converts it (null when it does not):
   * a plain decimal integer of at most 18 digits for an integer type that holds it is converted here (the
   * engine's answer is that same number), everything else by the engine.
   */
  async convert(type: DuckDBType, text: string): Promise<DuckDBValue> {
    const integer = plainInteger(type.typeId, text);
    if (integer !== undefined) return integer;
    const key = type.toString();
    let statement = this.byType.get(key);
    if (statement) {
      this.byType.delete(key);
    } else {
      statement = await this.connection.prepare(`SELECT TRY_CAST($1::VARCHAR AS ${key})`);
      if (this.byType.size >= maxCastStatements) this.evictOldest();
    }
    this.byType.set(key, statement);
    statement.bindVarchar(1, text);
    return (await statement.runAndReadAll()).getRows()[0][0];
  }

  /** Conversions prepared now (one per type text). */
  get size(): number {
    return this.byType.size;
  }

  /** Frees every prepared conversion. */
  clear(): void {
    for (const statement of this.byType.values()) statement.destroySync();
    this.byType.clear();
  }

  private evictOldest(): void {
    const [oldest, statement] = this.byType.entries().next().value as [string, DuckDBPreparedStatement];
    statement.destroySync();
    this.byType.delete(oldest);
  }
}

/**
 * Binds `params[0]` to $1, `params[1]` to $2 … (extra params are ignored).
 * @param casts - the conversions of the statement's connection
 * @throws PlatformError `query_invalid_params` (400) when fewer params than placeholders are given
 *   or a param does not convert to its placeholder's type (names $n and the type)
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query)
 */
export async function bindParameters(
  casts: CastStatements,
  prepared: DuckDBPreparedStatement,
  params: readonly string[],
): Promise<void> {
  const count = prepared.parameterCount;
  if (params.length < count) {
    throw new PlatformError(
      'query_invalid_params',
      `The query has ${count} placeholder(s) but ${params.length} param(s) were given; pass one string per ` +
        `placeholder in params.`,
      { status: 400 },
    );
  }
  for (let index = 1; index <= count; index += 1) {
    await bindOne(casts, prepared, index, params[index - 1]);
  }
}

async function bindOne(
  casts: CastStatements,
  prepared: DuckDBPreparedStatement,
  index: number,
  text: string,
): Promise<void> {
  const type = inferredType(prepared, index);
  if (!type) {
    prepared.bindVarchar(index, text);
    return;
  }
  const converted = await casts.convert(type, text);
  if (converted === null) {
    const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new PlatformError(
      'query_invalid_params',
      `Parameter $${index} must be ${describeType(type)}; "${shown}" does not convert to ${type.toString()}.`,
      { status: 400 },
    );
  }
  prepared.bindValue(index, converted, type);
}

/** Integer types whose TRY_CAST gives a JS number, with their range. */
const numberRanges = new Map<DuckDBTypeId, [number, number]>([
  [DuckDBTypeId.TINYINT, [-128, 127]],
  [DuckDBTypeId.SMALLINT, [-32_768, 32_767]],
  [DuckDBTypeId.INTEGER, [-2_147_483_648, 2_147_483_647]],
  [DuckDBTypeId.UTINYINT, [0, 255]],
  [DuckDBTypeId.USMALLINT, [0, 65_535]],
  [DuckDBTypeId.UINTEGER, [0, 4_294_967_295]],
]);
/** Integer types whose TRY_CAST gives a bigint (every 18-digit integer fits the signed ones). */
const bigintTypes = new Set([DuckDBTypeId.BIGINT, DuckDBTypeId.HUGEINT, DuckDBTypeId.UBIGINT, DuckDBTypeId.UHUGEINT]);
const unsignedTypes = new Set([DuckDBTypeId.UBIGINT, DuckDBTypeId.UHUGEINT]);

/**
 * `text` as the engine's value of integer type `typeId` when it is a plain decimal integer (optional minus,
 * 1 to 18 digits) within the type's range; undefined otherwise (then the engine converts it).
 */
function plainInteger(typeId: DuckDBTypeId, text: string): number | bigint | undefined {
  if (!/^-?[0-9]{1,18}$/.test(text)) return undefined;
  const range = numberRanges.get(typeId);
  if (range) {
    const value = Number(text) + 0; // -0 → 0
    return value >= range[0] && value <= range[1] ? value : undefined;
  }
  if (!bigintTypes.has(typeId) || (unsignedTypes.has(typeId) && text.startsWith('-'))) return undefined;
  return BigInt(text);
}

/** The placeholder's type when DuckDB infers one other than VARCHAR, else undefined (bind as VARCHAR). */
function inferredType(prepared: DuckDBPreparedStatement, index: number): DuckDBType | undefined {
  const typeId = prepared.parameterTypeId(index);
  if (
    typeId === DuckDBTypeId.INVALID || typeId === DuckDBTypeId.ANY || typeId === DuckDBTypeId.VARCHAR ||
    typeId === DuckDBTypeId.SQLNULL
  ) {
    return undefined;
  }
  try {
    return prepared.parameterType(index);
  } catch {
    return undefined;
  }
}

const integerTypes = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
]);

/** A human description with an example of the expected form. */
function describeType(type: DuckDBType): string {
  if (integerTypes.has(type.typeId)) return `an integer (${type.toString()}), e.g. "42"`;
  if (
    type.typeId === DuckDBTypeId.DECIMAL || type.typeId === DuckDBTypeId.DOUBLE || type.typeId === DuckDBTypeId.FLOAT
  ) {
    return `a number (${type.toString()}), e.g. "3.25"`;
  }
  if (type.typeId === DuckDBTypeId.DATE) return 'a DATE, e.g. "2024-01-31"';
  if (type.typeId === DuckDBTypeId.BOOLEAN) return 'a BOOLEAN: "true" or "false"';
  if (type.toString().startsWith('TIMESTAMP')) return `a ${type.toString()}, e.g. "2024-01-31 13:45:00"`;
  return `a ${type.toString()} value`;
}
