/**
 * The cloud secret store through the real `@aws-sdk/client-secrets-manager` client against the local
 * Secrets Manager protocol server (test/helpers/secrets-manager-server.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSecretPrefix, createCloudSecretStore } from '../../core/adapters/secrets/cloud-secret-store.ts';
import { secretStoreContract } from '../../core/testing/secret-store.contract.ts';
import { startSecretsManagerServer, type SecretsManagerServer } from '../helpers/secrets-manager-server.ts';

const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret-access-key' };

function manualClock() {
  let nowMs = Date.parse('2026-01-01T00:00:00Z');
  return { now: () => new Date(nowMs), advance: (ms: number) => { nowMs += ms; } };
}

let server: SecretsManagerServer;
beforeAll(async () => {
  server = await startSecretsManagerServer();
});
afterAll(async () => {
  await server.stop();
});

let run = 0;
/** A store on its own prefix, so cases never see each other's secrets on the shared server. */
function openStore(options: { kmsKeyId?: string } = {}) {
  const clock = manualClock();
  const prefix = `cairn/test-${(run += 1)}/credentials/`;
  const store = createCloudSecretStore({ region: 'us-east-1', prefix, endpoint: server.endpoint, clock, credentials, ...options });
  return { store, clock, prefix };
}

secretStoreContract('cloud-secrets-manager (local protocol server)', async () => {
  const { store, clock } = openStore();
  const firstViolation = server.violations.length;
  return {
    store,
    advance: clock.advance,
    requests: () => server.count(),
    violations: () => server.violations.slice(firstViolation),
    cleanup: async () => {},
  };
}, { readCache: true });

describe('cloud secret store', () => {
  it('names each secret <prefix><credential id>, creates it on the first write with the KMS key and puts a new version after', async () => {
    const { store, prefix } = openStore({ kmsKeyId: 'alias/cairn-secrets' });
    const before = server.requests.length;
    const first = await store.put('cred-1', { token: 'one' });
    const second = await store.put('cred-1', { token: 'two' });
    const ops = server.requests.slice(before).map((r) => `${r.operation} ${String(r.body.Name ?? r.body.SecretId)}`);
    expect(ops).toEqual([`CreateSecret ${prefix}cred-1`, `PutSecretValue ${prefix}cred-1`]);
    const secret = server.secrets.get(`${prefix}cred-1`)!;
    expect(secret.kmsKeyId).toBe('alias/cairn-secrets');
    expect(secret.versions.map((v) => v.versionId)).toEqual([first.version, second.version]);
    expect(JSON.parse(secret.versions[1].secretString)).toEqual({ token: 'two' });
  });

  it('a fresh process (no memory of the secret) updates an existing secret with a new version', async () => {
    const { store, prefix } = openStore();
    await store.put('cred-1', { token: 'one' });
    const restarted = createCloudSecretStore({ region: 'us-east-1', prefix, endpoint: server.endpoint, clock: manualClock(), credentials });
    const { version } = await restarted.put('cred-1', { token: 'two' });
    expect(server.secrets.get(`${prefix}cred-1`)!.versions.at(-1)!.versionId).toBe(version);
    expect(await restarted.get('cred-1')).toEqual({ token: 'two' });
  });

  it('schedules deletion with a 7-day recovery window and reads null after', async () => {
    const { store, prefix } = openStore();
    await store.put('cred-1', { token: 'x' });
    await store.delete('cred-1');
    const deletes = server.requests.filter((r) => r.operation === 'DeleteSecret' && r.body.SecretId === `${prefix}cred-1`);
    expect(deletes.map((r) => r.body)).toEqual([{ SecretId: `${prefix}cred-1`, RecoveryWindowInDays: 7 }]);
    expect(server.secrets.get(`${prefix}cred-1`)!.recoveryWindowInDays).toBe(7);
    const other = createCloudSecretStore({ region: 'us-east-1', prefix, endpoint: server.endpoint, clock: manualClock(), credentials });
    expect(await other.get('cred-1')).toBeNull();
  });

  it('refuses a credential id a secret name cannot hold, before any request', async () => {
    const { store } = openStore();
    const before = server.count();
    await expect(store.put('../other', { token: 'x' })).rejects.toMatchObject({ code: 'invalid_credential_id' });
    await expect(store.get('a/b')).rejects.toMatchObject({ code: 'invalid_credential_id' });
    expect(server.count()).toBe(before);
  });

  it('reports a service failure as secret_store_unavailable without the value', async () => {
    const store = createCloudSecretStore({ region: 'us-east-1', prefix: 'p/', endpoint: 'http://127.0.0.1:1', clock: manualClock(), credentials });
    const error = (await store.put('cred-1', { token: 'sk-secret-value' }).catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: 'secret_store_unavailable' });
    expect(error.message).toContain('cred-1');
    expect(error.message).not.toContain('sk-secret-value');
  });

  it('never called ListSecrets and sent only signed secretsmanager.<Op> requests', () => {
    expect(server.count('ListSecrets')).toBe(0);
    expect(server.violations).toEqual([]);
  });
});

describe('PLATFORM_CLOUD_SECRETS_PREFIX', () => {
  it('accepts a prefix ending in / of at most 200 characters', () => {
    expect(() => checkSecretPrefix('cairn/credentials/')).not.toThrow();
    expect(() => checkSecretPrefix(`${'a'.repeat(199)}/`)).not.toThrow();
  });

  it.each([
    ['not ending in /', 'cairn/credentials', 'must end in /'],
    ['longer than 200 characters', `${'a'.repeat(200)}/`, 'at most 200 characters'],
    ['empty', '', 'must end in /'],
    ['with a space', 'cairn creds/', 'may hold only'],
  ])('refuses one %s with invalid_config naming the variable', (_, prefix, why) => {
    expect(() => createCloudSecretStore({ region: 'us-east-1', prefix, clock: manualClock(), credentials })).toThrow(expect.objectContaining({ code: 'invalid_config', message: expect.stringContaining(why) }));
    expect(() => checkSecretPrefix(prefix)).toThrow(/^PLATFORM_CLOUD_SECRETS_PREFIX /);
  });
});
