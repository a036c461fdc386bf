/**
 * The db secret store (PLATFORM_SECRET_STORE=db): each credential's secret fields sealed with
 * AES-256-GCM under MASTER_KEY on its secret record in the document store.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SECRET_STORE, MASTER_KEY); § Authentication rule 11.
 */
import type { Clock } from '../../ports/clock.ts';
import type { BaseDocument, DocumentStore } from '../../ports/document-store.ts';
import type { Ids } from '../../ports/ids.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { SecretStore } from '../../ports/secret-store.ts';
import { fromBase64, toBase64 } from './base64.ts';

/** Collection holding one sealed secret record per credential (`_id` = credential id). */
export const CREDENTIAL_SECRETS_COLLECTION = 'credential_secrets';

/** Stored shape of a sealed secret record (collection {@link CREDENTIAL_SECRETS_COLLECTION}). */
export interface SealedSecretDocument extends BaseDocument {
  /** Shape version of this collection's documents. */
  schemaVersion: 1;
  /** Version written: a new id per put. */
  version: string;
  /** Sealing algorithm. */
  alg: 'AES-256-GCM';
  /** Fingerprint of the master key that sealed it (16 hex characters; not the key). */
  keyId: string;
  /** The 96-bit IV, base64. */
  iv: string;
  /** Ciphertext of the JSON of the fields followed by the 128-bit tag, base64. */
  ciphertext: string;
  /** When this version was written. */
  updatedAt: Date;
}

/** Options of {@link createDbSecretStore}. */
export interface DbSecretStoreOptions {
  /** The document store holding {@link CREDENTIAL_SECRETS_COLLECTION}. */
  docs: DocumentStore;
  /** MASTER_KEY decoded ({@link parseMasterKey}): 32 bytes. Absent (allowed outside production), put and get fail. */
  masterKey?: Uint8Array;
  clock: Clock;
  /** Version ids, IVs and the key fingerprint. */
  ids: Ids;
}

/** Length of MASTER_KEY in bytes (AES-256). */
export const MASTER_KEY_BYTES = 32;

/**
 * Decodes MASTER_KEY.
 * @param base64 - the variable's value (standard or URL-safe base64; surrounding whitespace ignored)
 * @returns the 32 key bytes
 * @throws PlatformError `invalid_config` naming MASTER_KEY (never its value) when it is not base64 of 32 bytes
 *
 * Source: spec/platform-service.md § Deployment settings (MASTER_KEY: 32 bytes, base64); § Limits (master key).
 */
export function parseMasterKey(base64: string): Uint8Array {
  const how = 'make one with `openssl rand -base64 32`';
  const bytes = fromBase64(base64.trim());
  if (bytes === undefined) {
    throw new PlatformError(
      'invalid_config',
      `MASTER_KEY is not valid base64: it must be 32 bytes encoded as base64; ${how}.`,
    );
  }
  if (bytes.length !== MASTER_KEY_BYTES) {
    throw new PlatformError(
      'invalid_config',
      `MASTER_KEY decodes to ${bytes.length} bytes: it must be 32 bytes encoded as base64; ${how}.`,
    );
  }
  return bytes;
}

/**
 * Creates the db secret store. Every put seals the fields' JSON with a fresh random 96-bit IV and the
 * credential id as additional data (a record copied onto another credential does not open), and
 * records the key fingerprint and a new version id. There is no cache: every get reads the record.
 *
 * @returns a {@link SecretStore} of kind `db`; `delete` needs no master key
 * @throws (from put/get) PlatformError `master_key_missing` naming MASTER_KEY when no key was given;
 *   (from get) `secret_unreadable` when the record was sealed under another key or was altered
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_SECRET_STORE=db, MASTER_KEY).
 */
export function createDbSecretStore(options: DbSecretStoreOptions): SecretStore {
  const records = () => options.docs.collection<SealedSecretDocument>(CREDENTIAL_SECRETS_COLLECTION);
  let key: Promise<{ cryptoKey: CryptoKey; keyId: string }> | undefined;
  const masterKey = () => {
    if (options.masterKey === undefined) {
      throw new PlatformError(
        'master_key_missing',
        'No MASTER_KEY is set, so credentials cannot be stored or used: set MASTER_KEY to 32 bytes encoded as ' +
          'base64 and restart.',
        { status: 503 },
      );
    }
    key ??= importMasterKey(options.masterKey, options.ids);
    return key;
  };
  return {
    kind: 'db',
    async put(credentialId, fields) {
      const { cryptoKey, keyId } = await masterKey();
      const iv = options.ids.randomBytes(12);
      const plain = new TextEncoder().encode(JSON.stringify(fields));
      const sealed = await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv: iv as BufferSource, additionalData: aad(credentialId) },
        cryptoKey,
        plain,
      );
      const version = options.ids.newId();
      const record = {
        schemaVersion: 1 as const,
        version,
        alg: 'AES-256-GCM' as const,
        keyId,
        iv: toBase64(iv),
        ciphertext: toBase64(new Uint8Array(sealed)),
        updatedAt: options.clock.now(),
      };
      await records().updateOne({ _id: credentialId }, { $set: record }, { upsert: true });
      return { version };
    },
    async get(credentialId) {
      const { cryptoKey, keyId } = await masterKey();
      const record = await records().findOne({ _id: credentialId });
      if (record === null) return null;
      return openRecord(record, cryptoKey, keyId);
    },
    async delete(credentialId) {
      await records().deleteOne({ _id: credentialId });
    },
  };
}

/** Imports the raw key for AES-GCM and computes its fingerprint. */
async function importMasterKey(raw: Uint8Array, ids: Ids): Promise<{ cryptoKey: CryptoKey; keyId: string }> {
  if (raw.length !== MASTER_KEY_BYTES) {
    throw new PlatformError('invalid_config', 'MASTER_KEY must be 32 bytes encoded as base64.');
  }
  const cryptoKey = await crypto.subtle.importKey('raw', raw as BufferSource, { name: 'AES-GCM' }, false, [
    'encrypt',
    'decrypt',
  ]);
  const label = new TextEncoder().encode('cairn master key id\0');
  const keyId = (await ids.sha256Hex(new Uint8Array([...label, ...raw]))).slice(0, 16);
  return { cryptoKey, keyId };
}

/** Opens a sealed record. @throws PlatformError `secret_unreadable` */
async function openRecord(
  record: SealedSecretDocument,
  cryptoKey: CryptoKey,
  keyId: string,
): Promise<Record<string, string>> {
  if (record.keyId !== keyId) {
    throw new PlatformError(
      'secret_unreadable',
      `The secret of credential ${record._id} was sealed under master key ${record.keyId}, but MASTER_KEY is key ` +
        `${keyId}: set the MASTER_KEY it was written with.`,
    );
  }
  const iv = fromBase64(record.iv);
  const ciphertext = fromBase64(record.ciphertext);
  try {
    if (iv === undefined || ciphertext === undefined) throw new Error('not base64');
    const plain = await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: iv as BufferSource, additionalData: aad(record._id) },
      cryptoKey,
      ciphertext as BufferSource,
    );
    return JSON.parse(new TextDecoder().decode(plain)) as Record<string, string>;
  } catch (error) {
    throw new PlatformError(
      'secret_unreadable',
      `The secret of credential ${record._id} does not open under MASTER_KEY (key ${keyId}): the record was ` +
        `altered or copied from another credential.`,
      { cause: error },
    );
  }
}

/** Additional authenticated data binding a sealed value to its credential. */
function aad(credentialId: string): BufferSource {
  return new TextEncoder().encode(`${CREDENTIAL_SECRETS_COLLECTION}:${credentialId}`) as BufferSource;
}
