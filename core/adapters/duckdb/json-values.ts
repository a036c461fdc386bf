/**
 * Conversion of DuckDB values to the JSON values of a QueryResult. The conversion of a column is
 * chosen once from its type ({@link jsonConverter}) and then applied to each of its values, so a
 * result pays the type dispatch per column, not per value.
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query); core/ports/query-engine.ts (QueryResult).
 */
import { Buffer } from 'node:buffer';
import {
  DuckDBArrayType,
  type DuckDBArrayValue,
  DuckDBBlobValue,
  DuckDBDecimalValue,
  DuckDBListType,
  type DuckDBListValue,
  DuckDBMapType,
  type DuckDBMapValue,
  DuckDBStructType,
  type DuckDBStructValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  type DuckDBType,
  DuckDBTypeId,
  DuckDBUnionType,
  type DuckDBUnionValue,
  type DuckDBValue,
} from '@duckdb/node-api';

const maxExactInteger = BigInt(Number.MAX_SAFE_INTEGER);
/** Doubles carry 15 significant decimal digits exactly (DBL_DIG). */
const maxExactDecimalDigits = 15;
const microsPerDay = 86_400_000_000;

/**
 * Converts one value of a column to JSON; SQL NULL (null) gives null.
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query)
 */
export type JsonConverter = (value: DuckDBValue) => unknown;

/**
 * The converter of values of `type`, chosen once: integers beyond ±(2^53−1) and DECIMALs with more
 * than 15 significant digits as strings (else numbers); NaN/±Infinity as strings; DATE `YYYY-MM-DD`;
 * TIMESTAMP ISO-8601 (`YYYY-MM-DDTHH:MM:SS[.ffffff]`, TIMESTAMPTZ in UTC with `Z`); TIME, INTERVAL,
 * UUID, ENUM, BIT as strings; BLOB as base64; LIST/ARRAY as arrays; STRUCT as objects; MAP as
 * `[{ key, value }]`; UNION as its member's value.
 * @param type - the column (or element) type
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query)
 */
export function jsonConverter(type: DuckDBType): JsonConverter {
  const convert = nonNullConverter(type);
  return (value) => (value === null || value === undefined ? null : convert(value));
}

/**
 * One DuckDB value as JSON, as {@link jsonConverter} converts it (for a single value; a column
 * should take its converter once).
 * @param value - the engine's value (null for SQL NULL)
 * @param type - the column (or element) type
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query)
 */
export function toJsonValue(value: DuckDBValue, type: DuckDBType): unknown {
  return jsonConverter(type)(value);
}

type NonNullConverter = (value: NonNullable<DuckDBValue>) => unknown;

function nonNullConverter(type: DuckDBType): NonNullConverter {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return (value) => Boolean(value);
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
      return (value) => Number(value);
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
    case DuckDBTypeId.BIGNUM:
      return (value) => integerToJson(value as bigint);
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return (value) => (Number.isFinite(value) ? value : String(value));
    case DuckDBTypeId.DECIMAL:
      return (value) => decimalToJson(value as DuckDBDecimalValue);
    case DuckDBTypeId.VARCHAR:
      return (value) => value;
    case DuckDBTypeId.TIMESTAMP:
      return timestampConverter();
    case DuckDBTypeId.TIMESTAMP_S:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_NS:
      return (value) => isoTimestamp(String(value), '');
    case DuckDBTypeId.TIMESTAMP_TZ:
      return (value) => utcTimestamp(value as DuckDBTimestampTZValue);
    case DuckDBTypeId.BLOB:
      return (value) => Buffer.from((value as DuckDBBlobValue).bytes).toString('base64');
    default:
      return nestedConverter(type);
  }
}

/** LIST, ARRAY, STRUCT, MAP, UNION with their element converters chosen once; every other type as its text. */
function nestedConverter(type: DuckDBType): NonNullConverter {
  if (type instanceof DuckDBListType || type instanceof DuckDBArrayType) {
    const item = jsonConverter(type.valueType);
    return (value) => (value as DuckDBListValue | DuckDBArrayValue).items.map(item);
  }
  if (type instanceof DuckDBStructType) {
    const entries = type.entryNames.map((name, index) => [name, jsonConverter(type.entryTypes[index])] as const);
    return (value) => {
      const fields = (value as DuckDBStructValue).entries;
      return Object.fromEntries(entries.map(([name, convert]) => [name, convert(fields[name])]));
    };
  }
  if (type instanceof DuckDBMapType) {
    const key = jsonConverter(type.keyType);
    const item = jsonConverter(type.valueType);
    return (value) =>
      (value as DuckDBMapValue).entries.map((entry) => (
        { key: key(entry.key), value: item(entry.value) }
      ));
  }
  if (type instanceof DuckDBUnionType) {
    const members = new Map<string, JsonConverter>();
    return (value) => {
      const union = value as DuckDBUnionValue;
      let member = members.get(union.tag);
      if (!member) {
        member = jsonConverter(type.memberTypeForTag(union.tag));
        members.set(union.tag, member);
      }
      return member(union.value);
    };
  }
  return (value) => String(value);
}

function integerToJson(value: bigint): number | string {
  const big = typeof value === 'bigint' ? value : BigInt(value);
  return big <= maxExactInteger && big >= -maxExactInteger ? Number(big) : big.toString();
}

/** A number when the decimal round-trips through a double (≤ 15 significant digits, |v| ≤ 2^53−1). */
function decimalToJson(value: DuckDBDecimalValue): number | string {
  const text = value.toString();
  const digits = (value.value < 0n ? -value.value : value.value).toString().replace(/0+$/, '').length;
  const number = Number(text);
  return digits <= maxExactDecimalDigits && Math.abs(number) <= Number.MAX_SAFE_INTEGER ? number : text;
}

/**
 * TIMESTAMP (microseconds) as `YYYY-MM-DDTHH:MM:SS[.ffffff]` (fraction without trailing zeros), the
 * engine's text with `T`. From 1970 to 2255 (0 … 2^53−1 µs) by arithmetic on doubles, which are exact there,
 * remembering the date text of the last day seen (a column's rows often share days); else through the
 * engine's text.
 */
function timestampConverter(): NonNullConverter {
  let lastDay = Number.NaN;
  let lastDate = '';
  return (value) => {
    const { micros } = value as DuckDBTimestampValue;
    if (micros < 0n || micros > maxExactInteger) return isoTimestamp(value.toString(), '');
    const exact = Number(micros);
    const day = Math.floor(exact / microsPerDay);
    if (day !== lastDay) {
      lastDay = day;
      lastDate = new Date(day * 86_400_000).toISOString().slice(0, 10);
    }
    const inDay = exact - day * microsPerDay;
    const fraction = inDay % 1_000_000;
    const seconds = (inDay - fraction) / 1_000_000;
    const hours = Math.floor(seconds / 3600);
    const minutes = Math.floor(seconds / 60) % 60;
    const time = `${lastDate}T${twoDigits(hours)}:${twoDigits(minutes)}:${twoDigits(seconds % 60)}`;
    return fraction === 0 ? time : `${time}.${String(fraction).padStart(6, '0').replace(/0+$/, '')}`;
  };
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : String(value);
}

/** `YYYY-MM-DD HH:MM:SS…` → `YYYY-MM-DDTHH:MM:SS…` + `suffix`; other texts (infinity, BC) unchanged. */
function isoTimestamp(text: string, suffix: string): string {
  return /^\d{4,}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(text) ? `${text.replace(' ', 'T')}${suffix}` : text;
}

function utcTimestamp(value: DuckDBTimestampTZValue): string {
  const utc = new DuckDBTimestampValue(value.micros).toString();
  return isoTimestamp(utc, 'Z');
}
