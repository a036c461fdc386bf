/**
 * `cairn secrets move` between the two real secret stores: db (sealed under MASTER_KEY in a SQLite
 * document store) and cloud (the SDK against the local Secrets Manager protocol server).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { secretsMoveCommand } from '../../bins/cairn/secrets-command.ts';
import { createCloudSecretStore } from '../../core/adapters/secrets/cloud-secret-store.ts';
import { createDbSecretStore, parseMasterKey } from '../../core/adapters/secrets/db-secret-store.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { SecretStore } from '../../core/ports/secret-store.ts';
import { startSecretsManagerServer, type SecretsManagerServer } from '../helpers/secrets-manager-server.ts';

const masterKey = parseMasterKey(btoa('k'.repeat(32)));
const values = { 'cred-a': { apiKey: 'sk-aaaa-secret' }, 'cred-b': { user: 'bot', password: 'hunter2-secret' }, 'cred-c': { token: 'ghp_cccc_secret' } };
const allValues = Object.values(values).flatMap((v) => Object.values(v));

let server: SecretsManagerServer;
let dir: string;
let docs: DocumentStore;
let db: SecretStore;
let cloud: SecretStore;
let lines: string[];
let run = 0;

beforeAll(async () => {
  server = await startSecretsManagerServer();
});
afterAll(async () => {
  await server.stop();
});
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-secrets-move-'));
  docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  db = createDbSecretStore({ docs, masterKey, clock: systemClock, ids: cryptoIds });
  cloud = createCloudSecretStore({ region: 'us-east-1', prefix: `cairn/move-${(run += 1)}/`, endpoint: server.endpoint, clock: systemClock, credentials: { accessKeyId: 'AKID', secretAccessKey: 'x' } });
  lines = [];
  for (const [id, fields] of Object.entries(values)) await db.put(id, fields);
});
afterEach(async () => {
  await docs.close();
  await rm(dir, { recursive: true, force: true });
  expect(server.violations).toEqual([]);
});

const ids = ['cred-a', 'cred-b', 'cred-c', 'cred-gone'];
const move = (from: SecretStore, to: SecretStore, apply: boolean) =>
  secretsMoveCommand({ from, to, credentialIds: ids, apply, log: (line) => lines.push(line), environmentOf: (id) => (id === 'cred-a' ? 'production' : undefined) });

describe('cairn secrets move', () => {
  it('dry run lists what would move and writes nothing', async () => {
    const result = await move(db, cloud, false);
    expect(result).toEqual({ moved: [], wouldMove: ['cred-a', 'cred-b', 'cred-c'], unchanged: [], missing: ['cred-gone'], failed: [] });
    expect(lines).toEqual([
      'would move cred-a (not yet in the cloud-secrets-manager store)',
      'would move cred-b (not yet in the cloud-secrets-manager store)',
      'would move cred-c (not yet in the cloud-secrets-manager store)',
      'skipped cred-gone: no secret in the db store',
      'dry run: 3 credentials would move from the db store to the cloud-secrets-manager store; 0 unchanged, 1 without a secret, 0 failed; stop the service, then run again with --apply to move them',
    ]);
    expect(server.count('CreateSecret') + server.count('PutSecretValue')).toBe(0);
  });

  it('with apply copies each credential, reports each moved with a [credentials] line, and never prints a value', async () => {
    const result = await move(db, cloud, true);
    expect(result.moved).toEqual(['cred-a', 'cred-b', 'cred-c']);
    for (const [id, fields] of Object.entries(values)) expect(await cloud.get(id)).toEqual(fields);
    expect(lines.filter((l) => l.startsWith('[credentials] '))).toEqual([
      '[credentials] moved credential cred-a in environment production by operator (cairn secrets move)',
      '[credentials] moved credential cred-b in environment - by operator (cairn secrets move)',
      '[credentials] moved credential cred-c in environment - by operator (cairn secrets move)',
    ]);
    expect(lines.filter((l) => l.startsWith('moved cred-'))).toHaveLength(3);
    expect(lines.at(-1)).toBe('moved 3 credentials from the db store to the cloud-secrets-manager store; 0 unchanged, 1 without a secret, 0 failed');
    for (const value of allValues) expect(lines.join('\n')).not.toContain(value);
    expect(await db.get('cred-a')).toEqual(values['cred-a']);
  });

  it('running again reports only the credentials changed since', async () => {
    await move(db, cloud, true);
    lines = [];
    expect(await move(db, cloud, true)).toMatchObject({ moved: [], unchanged: ['cred-a', 'cred-b', 'cred-c'] });
    await db.put('cred-b', { user: 'bot', password: 'rotated-secret' });
    lines = [];
    const dry = await move(db, cloud, false);
    expect(dry.wouldMove).toEqual(['cred-b']);
    expect(lines[0]).toBe('would move cred-b (changed since it was last moved)');
    const applied = await move(db, cloud, true);
    expect(applied).toMatchObject({ moved: ['cred-b'], unchanged: ['cred-a', 'cred-c'] });
    expect(await cloud.get('cred-b')).toEqual({ user: 'bot', password: 'rotated-secret' });
    expect(server.secrets.get(`cairn/move-${run}/cred-b`)!.versions).toHaveLength(2);
    expect(lines.join('\n')).not.toContain('rotated-secret');
  });

  it('moves back from the cloud store to the db store', async () => {
    await move(db, cloud, true);
    const otherDocs = await openSqliteDocumentStore({ path: join(dir, 'other.sqlite') });
    const otherDb = createDbSecretStore({ docs: otherDocs, masterKey, clock: systemClock, ids: cryptoIds });
    const result = await secretsMoveCommand({ from: cloud, to: otherDb, credentialIds: ids, apply: true, log: () => {} });
    expect(result.moved).toEqual(['cred-a', 'cred-b', 'cred-c']);
    expect(await otherDb.get('cred-c')).toEqual(values['cred-c']);
    await otherDocs.close();
  });

  it('goes on past a credential that fails and reports its code', async () => {
    const noKey = createDbSecretStore({ docs, clock: systemClock, ids: cryptoIds });
    const result = await secretsMoveCommand({ from: db, to: noKey, credentialIds: ['cred-a'], apply: true, log: (l) => lines.push(l) });
    expect(result.failed).toEqual([{ credentialId: 'cred-a', code: 'master_key_missing' }]);
    expect(lines[0]).toMatch(/^failed cred-a: master_key_missing: /);
  });
});
