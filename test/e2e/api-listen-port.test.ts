/**
 * Where the API listens (spec § Deployment settings, § Rules 2): in the all-in-one mode
 * (PLATFORM_ALL_IN_ONE=on, set by the entrypoint and by the systemd API unit) on 127.0.0.1:API_PORT,
 * with PORT left to the front proxy; run as a command, on PORT. A real API process each time.
 * Source: spec/platform-service.md § Processes of the all-in-one container, § Rules 2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
const started: { child: ChildProcess; dir: string }[] = [];

beforeAll(async () => { redis = await startRedis(); });
afterAll(async () => {
  for (const { child, dir } of started) {
    if (child.exitCode === null) { const exited = new Promise((r) => child.once('exit', r)); child.kill('SIGTERM'); await exited; }
    rmSync(dir, { recursive: true, force: true });
  }
  await redis?.stop();
});

async function startApi(env: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-api-port-'));
  const child = spawn(bunPath, [join(repoRoot, 'bins/api/main.ts')], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
    env: { PATH: process.env.PATH, HOME: dir, NODE_ENV: 'development', DOCDB_URI: `sqlite:${dir}/docdb.sqlite`, OBJSTORE_ENDPOINT: `file://${dir}/objects`, OBJSTORE_BUCKET: 'cairn', QUEUE_URL: redis.url, PLATFORM_SCRATCH_DIR: join(dir, 'scratch'), API_HOST: '127.0.0.1', ...env },
  });
  started.push({ child, dir });
  const output: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (c: Buffer) => output.push(c.toString()));
  for (let i = 0; i < 150 && !output.join('').includes('api listening on'); i += 1) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return output;
}

const answers = async (port: number) => fetch(`http://127.0.0.1:${port}/api/health`).then((r) => r.status, () => 0);

describe('API listening port', () => {
  it('all-in-one mode: listens on API_PORT and leaves PORT (the front proxy\'s) alone', async () => {
    const [publicPort, apiPort] = [await freePort(), await freePort()];
    const output = await startApi({ PLATFORM_ALL_IN_ONE: 'on', PORT: String(publicPort), API_PORT: String(apiPort) });
    expect(output.join('')).toContain(`api listening on 127.0.0.1:${apiPort}`);
    expect(await answers(apiPort)).toBe(200);
    expect(await answers(publicPort)).toBe(0);
  });

  it('command mode: PORT is the API\'s own port, API_PORT is not read', async () => {
    const [ownPort, apiPort] = [await freePort(), await freePort()];
    const output = await startApi({ PORT: String(ownPort), API_PORT: String(apiPort) });
    expect(output.join('')).toContain(`api listening on 127.0.0.1:${ownPort}`);
    expect(await answers(ownPort)).toBe(200);
    expect(await answers(apiPort)).toBe(0);
  });

  it('refuses a PLATFORM_ALL_IN_ONE that is not on or off, naming it', async () => {
    const output = await startApi({ PLATFORM_ALL_IN_ONE: 'perhaps', PORT: String(await freePort()) });
    expect(output.join('')).toMatch(/^PLATFORM_ALL_IN_ONE must be one of/m);
  });
});
