import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../ports/document-store.ts';
import { createMemoryDocumentStore } from '../../testing/memory-document-store.ts';
import { secretStoreContract } from '../../testing/secret-store.contract.ts';
import { cryptoIds } from '../runtime/system.ts';
import { openSqliteDocumentStore } from '../sqlite/index.ts';
import { toBase64 } from './base64.ts';
import {
  createDbSecretStore,
  CREDENTIAL_SECRETS_COLLECTION,
  parseMasterKey,
  type SealedSecretDocument,
} from './db-secret-store.ts';

const masterKey = parseMasterKey(toBase64(new Uint8Array(32).map((_, i) => i * 7 + 1)));
const otherKey = parseMasterKey(toBase64(new Uint8Array(32).fill(9)));

function manualClock(start = new Date('2026-01-01T00:00:00Z')) {
  let nowMs = start.getTime();
  return {
    now: () => new Date(nowMs),
    advance: (ms: number) => {
      nowMs += ms;
    },
  };
}

secretStoreContract('db (in-memory documents)', async () => {
  const clock = manualClock();
  const docs = createMemoryDocumentStore();
  return {
    store: createDbSecretStore({ docs, masterKey, clock, ids: cryptoIds }),
    advance: clock.advance,
    cleanup: () => docs.close(),
  };
});

secretStoreContract('db (SQLite file)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-db-secrets-'));
  const clock = manualClock();
  const docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  return {
    store: createDbSecretStore({ docs, masterKey, clock, ids: cryptoIds }),
    advance: clock.advance,
    cleanup: async () => {
      await docs.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

function records(docs: DocumentStore) {
  return docs.collection<SealedSecretDocument>(CREDENTIAL_SECRETS_COLLECTION);
}

describe('db secret store', () => {
  it(
    'stores only ciphertext: schemaVersion 1, AES-256-GCM, key id, a fresh 96-bit IV per write, no value in the ' +
      'record',
    async () => {
      const docs = createMemoryDocumentStore();
      const store = createDbSecretStore({ docs, masterKey, clock: manualClock(), ids: cryptoIds });
      const first = await store.put('cred-1', { apiKey: 'sk-very-secret-value' });
      const record = await records(docs).findOne({ _id: 'cred-1' });
      expect(record).toMatchObject({
        _id: 'cred-1',
        schemaVersion: 1,
        alg: 'AES-256-GCM',
        version: first.version,
        updatedAt: new Date('2026-01-01T00:00:00Z'),
      });
      expect(record!.keyId).toMatch(/^[0-9a-f]{16}$/);
      expect(atob(record!.iv)).toHaveLength(12);
      expect(JSON.stringify(record)).not.toContain('sk-very-secret-value');
      expect(JSON.stringify(record)).not.toContain('apiKey');
      await store.put('cred-1', { apiKey: 'sk-very-secret-value' });
      const again = await records(docs).findOne({ _id: 'cred-1' });
      expect(again!.iv).not.toBe(record!.iv);
      expect(again!.ciphertext).not.toBe(record!.ciphertext);
      expect(again!.version).not.toBe(record!.version);
    },
  );

  it(
    'without a master key, put and get fail with master_key_missing naming ' + 'MASTER_KEY; delete still works',
    async () => {
      const docs = createMemoryDocumentStore();
      const store = createDbSecretStore({ docs, clock: manualClock(), ids: cryptoIds });
      await expect(store.put('cred-1', { token: 'x' })).rejects.toMatchObject({
        code: 'master_key_missing',
        message: expect.stringContaining('MASTER_KEY'),
      });
      await expect(store.get('cred-1')).rejects.toMatchObject({ code: 'master_key_missing' });
      await expect(store.delete('cred-1')).resolves.toBeUndefined();
    },
  );

  it('refuses to open a record sealed under another key, or copied onto another credential', async () => {
    const docs = createMemoryDocumentStore();
    await createDbSecretStore({ docs, masterKey, clock: manualClock(), ids: cryptoIds }).put('cred-1', { token: 'x' });
    const wrongKey = createDbSecretStore({ docs, masterKey: otherKey, clock: manualClock(), ids: cryptoIds });
    await expect(wrongKey.get('cred-1')).rejects.toMatchObject({
      code: 'secret_unreadable',
      message: expect.stringContaining('MASTER_KEY'),
    });
    const { _id, ...sealed } = (await records(docs).findOne({ _id: 'cred-1' }))!;
    expect(_id).toBe('cred-1');
    await records(docs).insertOne({ _id: 'cred-2', ...sealed });
    const store = createDbSecretStore({ docs, masterKey, clock: manualClock(), ids: cryptoIds });
    await expect(store.get('cred-2')).rejects.toMatchObject({ code: 'secret_unreadable' });
    await expect(store.get('cred-1')).resolves.toEqual({ token: 'x' });
  });

  it('reads what another instance with the same key wrote (restart)', async () => {
    const docs = createMemoryDocumentStore();
    await createDbSecretStore({ docs, masterKey, clock: manualClock(), ids: cryptoIds }).put('cred-1', { token: 'x' });
    const restarted = createDbSecretStore({
      docs,
      masterKey: parseMasterKey(toBase64(masterKey)),
      clock: manualClock(),
      ids: cryptoIds,
    });
    expect(await restarted.get('cred-1')).toEqual({ token: 'x' });
  });
});

describe('parseMasterKey', () => {
  it('accepts 32 bytes of standard or URL-safe base64, padded or not, around whitespace', () => {
    const bytes = new Uint8Array(32).map((_, i) => 255 - i);
    const standard = toBase64(bytes);
    expect(parseMasterKey(standard)).toEqual(bytes);
    expect(parseMasterKey(`  ${standard}\n`)).toEqual(bytes);
    expect(parseMasterKey(standard.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'))).toEqual(bytes);
  });

  it.each([
    ['16 bytes', toBase64(new Uint8Array(16).fill(65))],
    ['33 bytes', toBase64(new Uint8Array(33).fill(65))],
    ['not base64', 'this is not base64 at all!!'],
    ['empty', ''],
  ])('refuses %s with invalid_config naming MASTER_KEY and never echoing the value', (_, value) => {
    let error: unknown;
    try {
      parseMasterKey(value);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'invalid_config', message: expect.stringMatching(/^MASTER_KEY /) });
    if (value !== '') expect((error as Error).message).not.toContain(value);
  });
});
