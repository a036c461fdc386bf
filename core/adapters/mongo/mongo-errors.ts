/**
 * MongoDB errors mapped to the document store's codes, and a connection string with its credentials
 * removed for messages.
 *
 * Source: core/ports/document-store.ts (duplicate_key on a unique violation);
 * docs/architecture.md § Conventions (one error base; messages never hold a secret).
 */
import { PlatformError } from '../../ports/platform-error.ts';

/** Server error codes the adapter maps (https://www.mongodb.com/docs/manual/reference/error-codes/). */
const CODES = {
  badValue: 2,
  typeMismatch: 14,
  immutableField: 66,
  cannotCreateIndex: 67,
  indexOptionsConflict: 85,
  indexKeySpecsConflict: 86,
  duplicateKey: 11000,
} as const;

/**
 * The PlatformError for a failed operation on collection `name`, or `error` itself when it is none
 * the port names. A lost connection becomes `store_unreachable` (503).
 * @param kind - what was running: `read` maps BadValue to `invalid_filter`, `write` maps update errors
 *   to `invalid_update`, `index` maps index errors to `index_conflict` / `invalid_index`
 *
 * Source: core/ports/document-store.ts; docs/architecture.md § Conventions.
 */
export function mongoFailure(error: unknown, name: string, kind: 'read' | 'write' | 'index'): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const text = (error as Error | null)?.message ?? String(error);
  if (/^Mongo(ServerSelection|Network|NetworkTimeout|TopologyClosed)Error$/.test((error as Error | null)?.name ?? '')) {
    return new PlatformError(
      'store_unreachable',
      `The document store could not be reached (${(error as Error).name}).`,
      { status: 503, cause: error },
    );
  }
  if (code === CODES.duplicateKey) {
    return new PlatformError('duplicate_key', `A document with the same _id or unique index key exists in ${name}.`, {
      status: 409,
      cause: error,
    });
  }
  if (kind === 'index' && (code === CODES.indexOptionsConflict || code === CODES.indexKeySpecsConflict)) {
    return new PlatformError(
      'index_conflict',
      `An index on the same keys exists in ${name} with other options; drop it first.`,
      { status: 409, cause: error },
    );
  }
  if (kind === 'index' && (code === CODES.cannotCreateIndex || code === CODES.badValue)) {
    return new PlatformError('invalid_index', `The index cannot be created: ${text}`, { status: 400, cause: error });
  }
  if (code === CODES.badValue && kind === 'read') {
    return new PlatformError('invalid_filter', `The filter is not a valid MongoDB query: ${text}`, {
      status: 400,
      cause: error,
    });
  }
  if (kind === 'write' && (code === CODES.badValue || code === CODES.typeMismatch || code === CODES.immutableField)) {
    return new PlatformError('invalid_update', `The update cannot be applied: ${text}`, { status: 400, cause: error });
  }
  return error;
}

/**
 * `uri` without user name, password and options, e.g. `mongodb://db1:27017,db2:27017/cairn`, for messages.
 *
 * Source: core/ports/document-store.ts; docs/architecture.md § Conventions.
 */
export function redactMongoUri(uri: string): string {
  const match = /^(mongodb(?:\+srv)?:\/\/)(?:[^@/]*@)?([^/?]*)(\/[^?]*)?/.exec(uri);
  return match ? `${match[1]}${match[2]}${match[3] ?? ''}` : 'the DOCDB_URI connection string';
}

/**
 * Removes the user name and password of `uri` from `text` wherever they occur (decoded or not).
 *
 * Source: core/ports/document-store.ts; docs/architecture.md § Conventions.
 */
export function scrubCredentials(text: string, uri: string): string {
  const userInfo = /^mongodb(?:\+srv)?:\/\/([^@/]*)@/.exec(uri)?.[1];
  if (!userInfo) return text;
  let scrubbed = text;
  for (const raw of [userInfo, ...userInfo.split(':')]) {
    if (raw.length < 3) continue;
    const variants = new Set([raw, safeDecode(raw)]);
    for (const secret of variants) scrubbed = scrubbed.split(secret).join('***');
  }
  return scrubbed;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
