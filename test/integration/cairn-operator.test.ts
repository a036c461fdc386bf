/**
 * The `cairn` operator commands that work on the stores directly, run as real processes:
 * config resolve, data-updates list|apply, secrets move (db → cloud secrets manager and back).
 * Source: spec/platform-service.md § Rules 14, § Versioning, § Authentication rule 11.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDbSecretStore } from '../../core/adapters/secrets/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { runProcess } from '../helpers/run-process.ts';
import { startSecretsManagerServer } from '../helpers/secrets-manager-server.ts';

let dir: string;
const masterKey = Buffer.alloc(32, 3);
const cairn = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), ...args], { encoding: 'utf8', env: { PATH: process.env.PATH!, ...env } });

/** Like `cairn` but without blocking this process, which serves the secrets manager the command calls. */
const cairnAsync = (args: string[], env: Record<string, string>) => runProcess(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), ...args], { env: { PATH: process.env.PATH!, ...env } });

beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'cairn-operator-')); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cairn config resolve', () => {
  it('prints the config as one JSON line, or base64, with [config] notes on stderr', () => {
    const config = JSON.stringify({ services: [{ id: 'sales', endpoint: 'https://sales.example/mcp', token: '${{SALES_TOKEN}}' }] });
    const line = cairn(['config', 'resolve'], { PLATFORM_CONFIG: config });
    expect(line.status).toBe(0);
    expect(JSON.parse(line.stdout)).toEqual(JSON.parse(config));
    expect(line.stderr).toMatch(/^\[config\] .*sales.*token.*SALES_TOKEN/m);
    const b64 = cairn(['config', 'resolve', '--base64'], { PLATFORM_CONFIG: config, SALES_TOKEN: 'a-token-of-16-chars' });
    expect(JSON.parse(Buffer.from(b64.stdout.trim(), 'base64').toString())).toEqual(JSON.parse(config));
  });

  it('refuses unknown keys and host settings with a one-line reason', () => {
    const bad = cairn(['config', 'resolve'], { PLATFORM_CONFIG: '{"port": 8080}' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^cairn: .*port/);
  });
});

describe('cairn data-updates', () => {
  it('lists nothing pending on a fresh store and refuses documents without a schemaVersion', async () => {
    const env = { DOCDB_URI: `sqlite:${dir}/docdb.sqlite`, OBJSTORE_BUCKET: 'b' };
    expect(cairn(['data-updates', 'list'], env).stdout).toMatch(/no pending data updates/i);
    const docs = await openSqliteDocumentStore({ path: `${dir}/docdb.sqlite` });
    await docs.collection('semantic_projects').insertOne({ _id: 'written-around-the-platform', slug: 'x' } as never);
    await docs.close();
    const refused = cairn(['data-updates', 'apply'], env);
    expect(refused.status).toBe(1);
    expect(refused.stdout + refused.stderr).toMatch(/\[data-updates\] refusing to start: .*semantic_projects.*without a schemaVersion/);
  });
});

describe('cairn secrets move', () => {
  it('reports, then moves db secrets to the cloud secrets manager without printing a value', async () => {
    const server = await startSecretsManagerServer();
    try {
      const docs = await openSqliteDocumentStore({ path: `${dir}/secrets.sqlite` });
      const db = createDbSecretStore({ docs, masterKey, clock: systemClock, ids: cryptoIds });
      await db.put('cred1', { apiKey: 'very-secret-value-1' });
      await db.put('cred2', { password: 'very-secret-value-2' });
      await docs.close();
      const env = {
        DOCDB_URI: `sqlite:${dir}/secrets.sqlite`, OBJSTORE_BUCKET: 'b', MASTER_KEY: masterKey.toString('base64'),
        PLATFORM_CLOUD_SECRETS_REGION: 'us-east-1', PLATFORM_CLOUD_SECRETS_ENDPOINT: server.endpoint,
        AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test',
      };
      const dry = await cairnAsync(['secrets', 'move', '--from', 'db', '--to', 'cloud-secrets-manager'], env);
      expect(dry.status, dry.stderr).toBe(0);
      expect(dry.stdout).toMatch(/would move 2/);
      expect(server.count('CreateSecret')).toBe(0);
      const moved = await cairnAsync(['secrets', 'move', '--from', 'db', '--to', 'cloud-secrets-manager', '--apply'], env);
      expect(moved.status, moved.stderr).toBe(0);
      expect(moved.stdout.match(/^\[credentials\] moved /gm)).toHaveLength(2);
      expect(moved.stdout + moved.stderr).not.toMatch(/very-secret-value/);
      expect(server.count('CreateSecret')).toBe(2);
      const again = await cairnAsync(['secrets', 'move', '--from', 'db', '--to', 'cloud-secrets-manager', '--apply'], env);
      expect(again.stdout).toMatch(/moved 0, unchanged 2/);
      expect(server.count('ListSecrets')).toBe(0);
    } finally {
      await server.stop();
    }
  });
});
