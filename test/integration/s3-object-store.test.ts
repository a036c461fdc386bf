/**
 * The S3 object store against a real S3-protocol server (s3rver in a child process): the ObjectStore
 * contract with the default credential chain, with explicit credentials, and under a key prefix;
 * plus paging past 1,000 keys and the error mapping.
 */
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectsCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createS3ObjectStore, type S3ObjectStoreSettings } from '../../core/adapters/s3/index.ts';
import { openObjectStore } from '../../core/adapters/stores/open-stores.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { objectStoreContract } from '../../core/testing/object-store.contract.ts';
import { freePort } from '../helpers/ports.ts';
import { startS3, type RunningS3 } from '../helpers/s3-server.ts';

let s3: RunningS3;
let admin: S3Client;
let buckets = 0;

beforeAll(async () => {
  s3 = await startS3();
  admin = new S3Client({ region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.defaultCredentials });
});
afterAll(async () => {
  admin?.destroy();
  await s3?.stop();
});

/** Settings for a store on `bucket` of the test server. */
function settings(bucket: string, extra: Partial<S3ObjectStoreSettings> = {}): S3ObjectStoreSettings {
  return { kind: 's3', bucket, prefix: '', region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, ...extra };
}

/** A new empty bucket; `cleanup` empties and removes it. */
async function freshBucket(): Promise<{ bucket: string; cleanup(): Promise<void> }> {
  buckets += 1;
  const bucket = `contract-${buckets}`;
  await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  return { bucket, cleanup: () => removeBucket(bucket) };
}

async function removeBucket(bucket: string): Promise<void> {
  for (;;) {
    const page = await admin.send(new ListObjectsV2Command({ Bucket: bucket }));
    const keys = (page.Contents ?? []).map((item) => ({ Key: item.Key as string }));
    if (keys.length === 0) break;
    await admin.send(new DeleteObjectsCommand({ Bucket: bucket, Delete: { Objects: keys } }));
  }
  await admin.send(new DeleteBucketCommand({ Bucket: bucket }));
}

objectStoreContract('s3 (s3rver, default credential chain)', async () => {
  const { bucket, cleanup } = await freshBucket();
  // Neither key nor secret in the settings: the SDK's default chain reads the environment.
  vi.stubEnv('AWS_ACCESS_KEY_ID', s3.defaultCredentials.accessKeyId);
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', s3.defaultCredentials.secretAccessKey);
  return {
    store: createS3ObjectStore(settings(bucket)),
    cleanup: async () => {
      vi.unstubAllEnvs();
      await cleanup();
    },
  };
});

objectStoreContract('s3 (s3rver, explicit credentials)', async () => {
  const { bucket, cleanup } = await freshBucket();
  return { store: createS3ObjectStore(settings(bucket, { credentials: s3.credentials })), cleanup };
});

objectStoreContract('s3 (s3rver, explicit credentials, key prefix)', async () => {
  const { bucket, cleanup } = await freshBucket();
  return { store: createS3ObjectStore(settings(bucket, { prefix: 'installs/one', credentials: s3.credentials })), cleanup };
});

const text = (value: string) => new TextEncoder().encode(value);
const codeOf = (promise: Promise<unknown>) => promise.then(() => 'ok', (e: unknown) => (isPlatformError(e) ? e.code : e));

describe('createS3ObjectStore against s3rver', () => {
  it('keeps keys under the prefix, where a store with another prefix does not see them', async () => {
    const { bucket, cleanup } = await freshBucket();
    const one = createS3ObjectStore(settings(bucket, { prefix: 'tenant-a', credentials: s3.credentials }));
    const sameOne = createS3ObjectStore(settings(bucket, { prefix: '/tenant-a/', credentials: s3.credentials }));
    const other = createS3ObjectStore(settings(bucket, { prefix: 'tenant-ab', credentials: s3.credentials }));
    const whole = createS3ObjectStore(settings(bucket, { credentials: s3.credentials }));
    await one.put('docs/x.txt', text('x'));
    await other.put('docs/y.txt', text('y'));
    expect(await whole.list('')).toEqual(['tenant-a/docs/x.txt', 'tenant-ab/docs/y.txt']);
    expect(await sameOne.list('')).toEqual(['docs/x.txt']);
    expect(await other.list('')).toEqual(['docs/y.txt']);
    expect(await other.get('docs/x.txt')).toBeNull();
    await cleanup();
  });

  it('is what openObjectStore opens for S3 settings', async () => {
    const { bucket, cleanup } = await freshBucket();
    const store = openObjectStore(settings(bucket, { prefix: 'via-open-stores', credentials: s3.credentials }));
    await store.put('a/b.txt', text('opened'));
    expect(await createS3ObjectStore(settings(bucket, { credentials: s3.credentials })).list('')).toEqual(['via-open-stores/a/b.txt']);
    await cleanup();
  });

  it('lists more than 1,000 keys by following ListObjectsV2 pages', async () => {
    const { bucket, cleanup } = await freshBucket();
    const store = createS3ObjectStore(settings(bucket, { prefix: 'paged', credentials: s3.credentials }));
    const keys = Array.from({ length: 1205 }, (_, i) => `k/${String(i).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 25) {
      await Promise.all(keys.slice(i, i + 25).map((key) => store.put(key, text(key))));
    }
    expect(await store.list('')).toEqual(keys);
    expect(await store.list('k/1')).toEqual(keys.filter((key) => key.startsWith('k/1')));
    await cleanup();
  }, 180_000);

  it('signs with the explicit credentials: an unknown key is refused with object_store_failed, never echoing the secret', async () => {
    // s3rver checks the access key id but not V4 signatures, so an unknown key id is what it can refuse.
    const { bucket, cleanup } = await freshBucket();
    vi.stubEnv('AWS_ACCESS_KEY_ID', s3.defaultCredentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', s3.defaultCredentials.secretAccessKey);
    const secretAccessKey = 'secret-do-not-print';
    const store = createS3ObjectStore(settings(bucket, { credentials: { accessKeyId: 'AKUNKNOWN', secretAccessKey } }));
    const error = await store.put('k', text('v')).catch((e: unknown) => e);
    vi.unstubAllEnvs();
    expect(isPlatformError(error, 'object_store_failed')).toBe(true);
    expect((error as Error).message).toMatch(/InvalidAccessKeyId/);
    expect((error as Error).message).not.toContain(secretAccessKey);
    await cleanup();
  });

  it('runs on Bun: put, get, head, list and delete', async () => {
    const { bucket, cleanup } = await freshBucket();
    const root = resolve(import.meta.dirname, '../..');
    const script = `
      import { createS3ObjectStore } from './core/adapters/s3/index.ts';
      const store = createS3ObjectStore(${JSON.stringify(settings(bucket, { prefix: 'bun', credentials: s3.credentials }))});
      await store.put('a/b.txt', new TextEncoder().encode('from bun'));
      const text = new TextDecoder().decode(await store.get('a/b.txt'));
      const head = await store.head('a/b.txt');
      const keys = await store.list('');
      await store.delete('a/b.txt');
      console.log(JSON.stringify({ bun: typeof Bun !== 'undefined', text, head, keys, after: await store.get('a/b.txt') }));
    `;
    const result = spawnSync(join(root, 'node_modules/.bin/bun'), ['-e', script], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout.trim().split('\n').pop() as string)).toEqual({ bun: true, text: 'from bun', head: { size: 8 }, keys: ['a/b.txt'], after: null });
    await cleanup();
  });

  it('reports a missing bucket as object_store_failed rather than a missing object', async () => {
    const store = createS3ObjectStore(settings('no-such-bucket', { credentials: s3.credentials }));
    expect(await codeOf(store.get('k'))).toBe('object_store_failed');
    expect(await codeOf(store.list(''))).toBe('object_store_failed');
  });

  it('reports an endpoint nobody listens on as store_unreachable', async () => {
    const endpoint = `http://127.0.0.1:${await freePort()}`;
    const store = createS3ObjectStore(settings('b', { endpoint, credentials: s3.credentials }));
    expect(await codeOf(store.head('k'))).toBe('store_unreachable');
  });

  it('refuses keys the embedded store refuses with invalid_key', async () => {
    const store = createS3ObjectStore(settings(s3.bucket, { credentials: s3.credentials }));
    for (const key of ['', '/abs', 'a//b', '../x', 'a/./b']) expect(await codeOf(store.put(key, text('v'))), key).toBe('invalid_key');
  });
});
