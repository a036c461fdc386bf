/**
 * Conversion of DuckDB values to the JSON values of a QueryResult.
 *
 * Source: ../shared/spec/semantic-query-service.md § Tools (execute_query); core/ports/query-engine.ts (QueryResult).
 */
import { Buffer } from 'node:buffer';
import {
  DuckDBArrayType,
  DuckDBBlobValue,
  DuckDBDecimalValue,
  DuckDBListType,
  DuckDBMapType,
  DuckDBStructType,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  DuckDBTypeId,
  DuckDBUnionType,
  type DuckDBArrayValue,
  type DuckDBListValue,
  type DuckDBMapValue,
  type DuckDBStructValue,
  type DuckDBType,
  type DuckDBUnionValue,
  type DuckDBValue,
} from '@duckdb/node-api';

const maxExactInteger = BigInt(Number.MAX_SAFE_INTEGER);
/** Doubles carry 15 significant decimal digits exactly (DBL_DIG). */
const maxExactDecimalDigits = 15;

/**
 * One DuckDB value as JSON: integers beyond ±(2^53−1) and DECIMALs with more than 15 significant
 * digits as strings (else numbers); NaN/±Infinity as strings; DATE `YYYY-MM-DD`; TIMESTAMP
 * ISO-8601 (`YYYY-MM-DDTHH:MM:SS[.ffffff]`, TIMESTAMPTZ in UTC with `Z`); TIME, INTERVAL, UUID,
 * ENUM, BIT as strings; BLOB as base64; LIST/ARRAY as arrays; STRUCT as objects; MAP as
 * `[{ key, value }]`; UNION as its member's value.
 * @param value - the engine's value (null for SQL NULL)
 * @param type - the column (or element) type
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query)
 */
export function toJsonValue(value: DuckDBValue, type: DuckDBType): unknown {
  if (value === null || value === undefined) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return Boolean(value);
    case DuckDBTypeId.TINYINT: case DuckDBTypeId.SMALLINT: case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT: case DuckDBTypeId.USMALLINT: case DuckDBTypeId.UINTEGER:
      return Number(value);
    case DuckDBTypeId.BIGINT: case DuckDBTypeId.UBIGINT: case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT: case DuckDBTypeId.BIGNUM:
      return integerToJson(value as bigint);
    case DuckDBTypeId.FLOAT: case DuckDBTypeId.DOUBLE:
      return Number.isFinite(value) ? value : String(value);
    case DuckDBTypeId.DECIMAL:
      return decimalToJson(value as DuckDBDecimalValue);
    case DuckDBTypeId.TIMESTAMP: case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS: case DuckDBTypeId.TIMESTAMP_NS:
      return isoTimestamp(String(value), '');
    case DuckDBTypeId.TIMESTAMP_TZ:
      return utcTimestamp(value as DuckDBTimestampTZValue);
    case DuckDBTypeId.BLOB:
      return Buffer.from((value as DuckDBBlobValue).bytes).toString('base64');
    default:
      return nestedToJson(value, type);
  }
}

/** LIST, ARRAY, STRUCT, MAP, UNION recursively; every other type as its text. */
function nestedToJson(value: DuckDBValue, type: DuckDBType): unknown {
  if (type instanceof DuckDBListType || type instanceof DuckDBArrayType) {
    return (value as DuckDBListValue | DuckDBArrayValue).items.map((item) => toJsonValue(item, type.valueType));
  }
  if (type instanceof DuckDBStructType) {
    const { entries } = value as DuckDBStructValue;
    return Object.fromEntries(type.entryNames.map((name, index) => [name, toJsonValue(entries[name], type.entryTypes[index])]));
  }
  if (type instanceof DuckDBMapType) {
    return (value as DuckDBMapValue).entries.map((entry) => ({
      key: toJsonValue(entry.key, type.keyType),
      value: toJsonValue(entry.value, type.valueType),
    }));
  }
  if (type instanceof DuckDBUnionType) {
    const union = value as DuckDBUnionValue;
    return toJsonValue(union.value, type.memberTypeForTag(union.tag));
  }
  return String(value);
}

function integerToJson(value: bigint): number | string {
  const big = BigInt(value);
  return big <= maxExactInteger && big >= -maxExactInteger ? Number(big) : big.toString();
}

/** A number when the decimal round-trips through a double (≤ 15 significant digits, |v| ≤ 2^53−1). */
function decimalToJson(value: DuckDBDecimalValue): number | string {
  const text = value.toString();
  const digits = (value.value < 0n ? -value.value : value.value).toString().replace(/0+$/, '').length;
  const number = Number(text);
  return digits <= maxExactDecimalDigits && Math.abs(number) <= Number.MAX_SAFE_INTEGER ? number : text;
}

/** `YYYY-MM-DD HH:MM:SS…` → `YYYY-MM-DDTHH:MM:SS…` + `suffix`; other texts (infinity, BC) unchanged. */
function isoTimestamp(text: string, suffix: string): string {
  return /^\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(text) ? `${text.replace(' ', 'T')}${suffix}` : text;
}

function utcTimestamp(value: DuckDBTimestampTZValue): string {
  const utc = new DuckDBTimestampValue(value.micros).toString();
  return isoTimestamp(utc, 'Z');
}
