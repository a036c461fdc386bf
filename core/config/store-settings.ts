/**
 * Store settings every process reads: document store, object store, queue store.
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI, OBJSTORE_*, QUEUE_URL).
 */
import type { Static } from '@sinclair/typebox';
import { requireObjectStoreKeyPair } from './boot-rules.ts';
import { type EnvRecord, flag, invalid, optional, required, url } from './env-values.ts';
import type {
  DocumentStoreSettings as DocumentStoreSchema,
  ObjectStoreSettings as ObjectStoreSchema,
  StoreSettings as StoreSchema,
} from './platform-env-model.ts';

/** Where documents live: embedded SQLite file or MongoDB. Source: spec/platform-service.md § Deployment settings
 * (DOCDB_URI) */
export type DocumentStoreSettings = Static<typeof DocumentStoreSchema>;

/** Where objects live: a local directory (embedded) or S3. Source: spec/platform-service.md § Deployment settings
 * (OBJSTORE_*) */
export type ObjectStoreSettings = Static<typeof ObjectStoreSchema>;

/**
 * All store settings; `queueUrl` (redis:// or rediss://) is undefined when none is configured.
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI, OBJSTORE_*, QUEUE_URL)
 */
export type StoreSettings = Static<typeof StoreSchema>;

/**
 * Parses DOCDB_URI, OBJSTORE_* and QUEUE_URL.
 * @throws PlatformError `invalid_config` naming the first bad variable
 *
 * Source: spec/platform-service.md § Deployment settings (DOCDB_URI, OBJSTORE_*, QUEUE_URL)
 */
export function parseStoreSettings(env: EnvRecord): StoreSettings {
  return {
    documents: parseDocuments(env),
    objects: parseObjects(env),
    queueUrl: url(env, 'QUEUE_URL', ['redis', 'rediss'])?.toString(),
  };
}

function parseDocuments(env: EnvRecord): DocumentStoreSettings {
  const uri = required(
    env,
    'DOCDB_URI',
    'set a MongoDB connection string (mongodb:// or mongodb+srv://) or sqlite:<path> for the embedded store',
  );
  if (uri.startsWith('sqlite:')) {
    const path = uri.slice('sqlite:'.length);
    if (!path) throw invalid('DOCDB_URI', 'needs a file path after sqlite:');
    return { kind: 'sqlite', path };
  }
  if (uri.startsWith('mongodb://') || uri.startsWith('mongodb+srv://')) return { kind: 'mongodb', uri };
  throw invalid('DOCDB_URI', 'must start with mongodb://, mongodb+srv:// or sqlite:');
}

function parseObjects(env: EnvRecord): ObjectStoreSettings {
  const bucket = required(
    env,
    'OBJSTORE_BUCKET',
    'name the bucket (or, with a file:// endpoint, the directory under it) that holds every object',
  );
  const prefix = optional(env, 'OBJSTORE_PREFIX') ?? '';
  const keyId = optional(env, 'OBJSTORE_ACCESS_KEY_ID');
  const secret = optional(env, 'OBJSTORE_SECRET_ACCESS_KEY');
  requireObjectStoreKeyPair(env);
  const endpoint = url(env, 'OBJSTORE_ENDPOINT', ['http', 'https', 'file']);
  const forcePathStyle = flag(env, 'OBJSTORE_FORCE_PATH_STYLE', false);
  if (endpoint?.protocol === 'file:') {
    return { kind: 'fs', root: decodeURIComponent(endpoint.pathname), bucket, prefix };
  }
  return {
    kind: 's3',
    bucket,
    prefix,
    forcePathStyle,
    region: optional(env, 'OBJSTORE_REGION') ?? 'us-east-1',
    ...(endpoint ? { endpoint: endpoint.toString() } : {}),
    ...(keyId && secret ? { credentials: { accessKeyId: keyId, secretAccessKey: secret } } : {}),
  };
}
