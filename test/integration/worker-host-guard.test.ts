/**
 * The worker host's start guard (rule 10), run as a real process: it refuses a data store address, a
 * key, the config or a cloud credential, naming each variable and never a value; a clean one serves.
 * Source: spec/platform-service.md § Rules 10.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startTestWorkerHost } from './worker-host-process.ts';

const key = Buffer.alloc(32, 7).toString('base64');
const run = (env: Record<string, string>) => spawnSync(bunPath, [join(repoRoot, 'bins/worker-host/main.ts')], { env: { PATH: process.env.PATH!, ...env }, encoding: 'utf8' });

describe('worker-host start guard', () => {
  it('refuses an environment holding store addresses, keys, the config and cloud credentials, naming each and no value', () => {
    const secretValues = { DOCDB_URI: 'mongodb://u:hunter2@db/x', MASTER_KEY: key, PLATFORM_CONFIG: '{"x":"topsecret"}', AWS_SECRET_ACCESS_KEY: 'awsSecretValue1' };
    const result = run({ PLATFORM_WORKER_HOST_KEY: key, ...secretValues });
    expect(result.status).not.toBe(0);
    const firstLine = result.stderr.split('\n')[0];
    for (const name of Object.keys(secretValues)) expect(firstLine).toContain(name);
    for (const value of ['hunter2', key, 'topsecret', 'awsSecretValue1']) expect(result.stderr + result.stdout).not.toContain(value);
  });

  it('requires its own key, naming it', () => {
    const result = run({});
    expect(result.status).not.toBe(0);
    expect(result.stderr.split('\n')[0]).toMatch(/PLATFORM_WORKER_HOST_KEY/);
  });

  it('with a clean environment it starts serving on the port it names (other variables are left alone) and stops on SIGTERM', async () => {
    const host = await startTestWorkerHost({ PLATFORM_WORKER_HOST_KEY: key, SOME_OTHER_VARIABLE: 'left alone' });
    expect(host.lines).toEqual([`[worker-host] serving workers on 127.0.0.1, port ${host.port} (TLS; each connection proves PLATFORM_WORKER_HOST_KEY)`]);
    await host.stop();
    expect(host.child.exitCode).toBe(0);
  });
});
