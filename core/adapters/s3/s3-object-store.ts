/**
 * The production {@link ObjectStore}: one S3 bucket (AWS or any S3-compatible endpoint) through
 * `@aws-sdk/client-s3`, optionally under a key prefix so several installs share one bucket.
 *
 * Source: spec/platform-service.md § Deployment settings (OBJSTORE_*);
 * docs/architecture.md § Ports and adapters (ObjectStore).
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import type { ObjectStoreSettings } from '../../config/store-settings.ts';
import type { ObjectStore } from '../../ports/object-store.ts';
import { compareKeys, objectKeySegments } from '../fs-objects/object-key.ts';
import { isMissingObject, s3Failure } from './s3-errors.ts';

/**
 * The S3 branch of {@link ObjectStoreSettings}.
 *
 * Source: spec/platform-service.md § Deployment settings (OBJSTORE_*).
 */
export type S3ObjectStoreSettings = Extract<ObjectStoreSettings, { kind: 's3' }>;

/**
 * Creates an object store over `settings.bucket`. No request is made until the first call.
 *
 * - Keys follow the embedded store's rules (`invalid_key`), so what a single-machine install refuses
 *   production refuses too; keys live at `<prefix>/<key>` in the bucket (a prefix is a folder:
 *   `tenant-a` and `tenant-a/` are the same).
 * - Credentials: `settings.credentials` when given (both or neither is checked at boot), else the
 *   SDK's default chain of the host (environment, profile, container or instance role).
 * - With a custom `endpoint`, checksums are sent and checked only when the operation requires them:
 *   S3-compatible servers do not all know the SDK's default CRC32 trailers.
 * - `list` pages through ListObjectsV2 (1,000 keys per page) and returns every key, sorted by UTF-8 bytes.
 *
 * @param settings - bucket, prefix, region, endpoint, forcePathStyle, credentials (from OBJSTORE_*)
 * @returns the store; get/head answer null for a missing object, delete of a missing object succeeds
 * @throws (from its methods) PlatformError `invalid_key` (400), `store_unreachable` (503) when S3 gives
 *   no answer, `object_store_failed` (502) when it refuses
 *
 * Source: spec/platform-service.md § Deployment settings (OBJSTORE_*).
 */
export function createS3ObjectStore(settings: S3ObjectStoreSettings): ObjectStore {
  const client = new S3Client(s3ClientConfig(settings));
  const Bucket = settings.bucket;
  const base = normalisePrefix(settings.prefix);
  const full = (key: string) => {
    objectKeySegments(key);
    return `${base}${key}`;
  };
  return {
    async put(key, body, options) {
      const Key = full(key);
      const input = {
        Bucket,
        Key,
        Body: body,
        ContentLength: body.byteLength,
        ContentType: options?.contentType ?? 'application/octet-stream',
      };
      await client.send(new PutObjectCommand(input)).catch((error: unknown) => {
        throw s3Failure('put', Key, error);
      });
    },
    get: async (key) => getObject(client, Bucket, full(key)),
    head: async (key) => headObject(client, Bucket, full(key)),
    async delete(key) {
      const Key = full(key);
      await client.send(new DeleteObjectCommand({ Bucket, Key })).catch((error: unknown) => {
        if (!isMissingObject(error)) throw s3Failure('delete', Key, error);
      });
    },
    async list(prefix) {
      const keys = await listAll(client, Bucket, `${base}${prefix}`);
      return keys.map((key) => key.slice(base.length)).sort(compareKeys);
    },
  };
}

async function getObject(client: S3Client, Bucket: string, Key: string): Promise<Uint8Array | null> {
  try {
    const answer = await client.send(new GetObjectCommand({ Bucket, Key }));
    return answer.Body ? await answer.Body.transformToByteArray() : new Uint8Array(0);
  } catch (error) {
    if (isMissingObject(error)) return null;
    throw s3Failure('get', Key, error);
  }
}

async function headObject(client: S3Client, Bucket: string, Key: string): Promise<{ size: number } | null> {
  try {
    const answer = await client.send(new HeadObjectCommand({ Bucket, Key }));
    return { size: answer.ContentLength ?? 0 };
  } catch (error) {
    if (isMissingObject(error)) return null;
    throw s3Failure('head', Key, error);
  }
}

/**
 * The S3Client configuration for `settings`.
 *
 * Source: spec/platform-service.md § Deployment settings (OBJSTORE_*).
 */
export function s3ClientConfig(settings: S3ObjectStoreSettings): S3ClientConfig {
  return {
    region: settings.region,
    forcePathStyle: settings.forcePathStyle,
    ...(settings.endpoint
      ? {
        endpoint: settings.endpoint,
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }
      : {}),
    ...(settings.credentials
      ? {
        credentials: {
          accessKeyId: settings.credentials.accessKeyId,
          secretAccessKey: settings.credentials.secretAccessKey,
        },
      }
      : {}),
  };
}

/**
 * `''` for no prefix, else the prefix without leading/trailing slashes plus one `/`.
 *
 * Source: spec/platform-service.md § Deployment settings (OBJSTORE_*).
 */
export function normalisePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+|\/+$/g, '');
  return trimmed === '' ? '' : `${trimmed}/`;
}

/** Every key under `prefix`, following continuation tokens. */
async function listAll(client: S3Client, Bucket: string, Prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix, ContinuationToken })).catch(
      (error: unknown) => {
        throw s3Failure('list', Prefix, error);
      },
    );
    for (const item of page.Contents ?? []) if (item.Key !== undefined) keys.push(item.Key);
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken !== undefined);
  return keys;
}
