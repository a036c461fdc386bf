/**
 * How S3 errors map to the object store's answers: "no such object" to null, everything else to a
 * PlatformError that names the operation and key but never a credential.
 *
 * Source: core/ports/object-store.ts (get and head answer null for a missing object).
 */
import { PlatformError } from '../../ports/platform-error.ts';

/** The fields the AWS SDK puts on its service and transport errors. */
interface SdkErrorShape {
  name?: string;
  Code?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * True when `error` says the object does not exist: NoSuchKey, NotFound (HEAD has no body), or any
 * other 404 except NoSuchBucket (a missing bucket is a configuration error, not a missing object).
 *
 * Source: core/ports/object-store.ts; spec/platform-service.md § Deployment settings (OBJSTORE_*).
 */
export function isMissingObject(error: unknown): boolean {
  const shape = (error ?? {}) as SdkErrorShape;
  if (shape.name === 'NoSuchBucket' || shape.Code === 'NoSuchBucket') return false;
  return shape.name === 'NoSuchKey' || shape.name === 'NotFound' || shape.Code === 'NoSuchKey' ||
    shape.$metadata?.httpStatusCode === 404;
}

/**
 * The PlatformError for a failed S3 call.
 * @param operation - what was attempted, e.g. `put` or `list`
 * @param key - the full object key or list prefix
 * @returns PlatformError `store_unreachable` (status 503) when no HTTP answer came back (network, DNS,
 *   credentials not found); otherwise `object_store_failed` (status 502) carrying the S3 error name
 *
 * Source: core/ports/object-store.ts; spec/platform-service.md § Deployment settings (OBJSTORE_*).
 */
export function s3Failure(operation: string, key: string, error: unknown): PlatformError {
  const shape = (error ?? {}) as SdkErrorShape;
  const name = shape.name ?? shape.Code ?? 'Error';
  const status = shape.$metadata?.httpStatusCode;
  if (status === undefined) {
    return new PlatformError(
      'store_unreachable',
      `The object store could not be reached for ${operation} ${
        JSON.stringify(key)
      } (${name}); check OBJSTORE_ENDPOINT, OBJSTORE_REGION and the credentials.`,
      { status: 503, cause: error },
    );
  }
  return new PlatformError(
    'object_store_failed',
    `The object store refused ${operation} ${JSON.stringify(key)}: ${name} (HTTP ${status}).`,
    {
      status: 502,
      cause: error,
    },
  );
}
