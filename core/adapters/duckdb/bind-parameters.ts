/**
 * Binding of execute_query's string params to a prepared statement with the types DuckDB infers
 * for each placeholder: the string is converted by DuckDB itself (TRY_CAST) so `WHERE n > $1`
 * with '5' compares numbers, and a string that does not convert is refused before the query runs.
 *
 * Source: ../shared/spec/semantic-query-service.md § Tools (execute_query: params).
 */
import { DuckDBTypeId, VARCHAR, type DuckDBConnection, type DuckDBPreparedStatement, type DuckDBType } from '@duckdb/node-api';
import { PlatformError } from '../../ports/platform-error.ts';

/**
 * Binds `params[0]` to $1, `params[1]` to $2 … (extra params are ignored).
 * @param connection - the statement's connection (runs the conversions)
 * @throws PlatformError `query_invalid_params` (400) when fewer params than placeholders are given
 *   or a param does not convert to its placeholder's type (names $n and the type)
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query)
 */
export async function bindParameters(connection: DuckDBConnection, prepared: DuckDBPreparedStatement, params: readonly string[]): Promise<void> {
  const count = prepared.parameterCount;
  if (params.length < count) {
    throw new PlatformError('query_invalid_params', `The query has ${count} placeholder(s) but ${params.length} param(s) were given; pass one string per placeholder in params.`, { status: 400 });
  }
  for (let index = 1; index <= count; index += 1) {
    await bindOne(connection, prepared, index, params[index - 1]);
  }
}

async function bindOne(connection: DuckDBConnection, prepared: DuckDBPreparedStatement, index: number, text: string): Promise<void> {
  const type = inferredType(prepared, index);
  if (!type) {
    prepared.bindVarchar(index, text);
    return;
  }
  const reader = await connection.runAndReadAll(`SELECT TRY_CAST($1 AS ${type.toString()})`, [text], [VARCHAR]);
  const converted = reader.getRows()[0][0];
  if (converted === null) {
    const shown = text.length > 80 ? `${text.slice(0, 80)}…` : text;
    throw new PlatformError('query_invalid_params', `Parameter $${index} must be ${describeType(type)}; "${shown}" does not convert to ${type.toString()}.`, { status: 400 });
  }
  prepared.bindValue(index, converted, type);
}

/** The placeholder's type when DuckDB infers one other than VARCHAR, else undefined (bind as VARCHAR). */
function inferredType(prepared: DuckDBPreparedStatement, index: number): DuckDBType | undefined {
  const typeId = prepared.parameterTypeId(index);
  if (typeId === DuckDBTypeId.INVALID || typeId === DuckDBTypeId.ANY || typeId === DuckDBTypeId.VARCHAR || typeId === DuckDBTypeId.SQLNULL) {
    return undefined;
  }
  try {
    return prepared.parameterType(index);
  } catch {
    return undefined;
  }
}

const integerTypes = new Set<DuckDBTypeId>([
  DuckDBTypeId.TINYINT, DuckDBTypeId.SMALLINT, DuckDBTypeId.INTEGER, DuckDBTypeId.BIGINT, DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT, DuckDBTypeId.USMALLINT, DuckDBTypeId.UINTEGER, DuckDBTypeId.UBIGINT, DuckDBTypeId.UHUGEINT,
]);

/** A human description with an example of the expected form. */
function describeType(type: DuckDBType): string {
  if (integerTypes.has(type.typeId)) return `an integer (${type.toString()}), e.g. "42"`;
  if (type.typeId === DuckDBTypeId.DECIMAL || type.typeId === DuckDBTypeId.DOUBLE || type.typeId === DuckDBTypeId.FLOAT) {
    return `a number (${type.toString()}), e.g. "3.25"`;
  }
  if (type.typeId === DuckDBTypeId.DATE) return 'a DATE, e.g. "2024-01-31"';
  if (type.typeId === DuckDBTypeId.BOOLEAN) return 'a BOOLEAN: "true" or "false"';
  if (type.toString().startsWith('TIMESTAMP')) return `a ${type.toString()}, e.g. "2024-01-31 13:45:00"`;
  return `a ${type.toString()} value`;
}
