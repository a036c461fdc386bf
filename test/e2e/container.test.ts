/**
 * The container image (Containerfile, scripts/build --image) built and run with podman: as user 4321,
 * read-only, all capabilities dropped, writing only /tmp and /data. /healthz answers through the
 * mapped port, the health check passes, dist/cairn imports a project and the MCP SDK client gets a
 * DuckDB answer from inside the container; a read-only /data stops the entrypoint naming it.
 * The image sets NODE_ENV=production, whose sign-in modes are not part of this build yet: the runs
 * here pass NODE_ENV=development (the built-in dev user).
 * Source: spec/platform-service.md § Processes of the all-in-one container, § Rules 2, 8, 9,
 * § Limits (health check), § Versioning (image labels); docs/architecture.md § Tests and measurements.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildImage, probePodman, waitForStatus, type Podman } from '../helpers/container.ts';
import { freePort } from '../helpers/ports.ts';
import { runCairn } from '../helpers/product.ts';
import { flightsModel, mcpClient, projectDir, queryOutputOf } from '../helpers/semantic-fixtures.ts';

const probe = probePodman();
const tag = 'localhost/cairn:e2e';
const appVersion = '0.0.0-e2e';
const name = `cairn-e2e-${randomBytes(4).toString('hex')}`;
const hardened = ['--read-only', '--cap-drop=ALL', '--user', '4321', '--tmpfs', '/tmp:rw,noexec,nosuid,nodev,mode=1777', '-e', 'NODE_ENV=development'];
let podman: Podman;
let dataDir: string;
let url: string;
let startMs: number;

describe.skipIf(!probe.available)(`container image${probe.available ? '' : ` (skipped: ${probe.reason})`}`, () => {
  beforeAll(async () => {
    if (!probe.available) return;
    podman = probe.podman;
    await buildImage(podman, tag, appVersion);
    dataDir = mkdtempSync(join(tmpdir(), 'cairn-container-data-'));
    chownSync(dataDir, 4321, 4321);
    chmodSync(dataDir, 0o700);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    const started = await podman.run(['run', '-d', '--name', name, ...hardened, '-v', `${dataDir}:/data`, '-p', `127.0.0.1:${port}:8080`, tag]);
    expect(started.status, started.stderr).toBe(0);
    startMs = await waitForStatus(`${url}/healthz`, 200, 120_000, logs);
  }, 30 * 60_000);

  afterAll(async () => {
    if (!probe.available) return;
    await podman.run(['rm', '--force', '--time', '5', name]);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  const logs = async () => (await podman.run(['logs', name])).stdout.split('\n').slice(-60).join('\n');
  const inspect = async (kind: 'image' | 'container', ref: string) => JSON.parse((await podman.run([kind, 'inspect', ref])).stdout)[0];

  it('answers /healthz 200 through the mapped port, running as 4321, read-only, without capabilities', async () => {
    console.log(`[container] /healthz answered 200 ${startMs} ms after podman run returned`);
    const health = await (await fetch(`${url}/api/health`)).json();
    expect(health).toMatchObject({ status: 'ok', version: appVersion });
    const container = await inspect('container', name);
    expect(container.Config.User).toBe('4321');
    expect(container.HostConfig.ReadonlyRootfs).toBe(true);
    const status = (await podman.run(['exec', name, 'cat', '/proc/1/status'])).stdout;
    expect(status).toMatch(/^Uid:\s+4321\s/m);
    expect(status).toMatch(/^CapEff:\s+0+$/m);
  });

  it('passes its health check', async () => {
    const check = await podman.run(['healthcheck', 'run', name]);
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
  });

  it('serves a real DuckDB query from dist/semantic-mcp inside the container through the front proxy', async () => {
    const imported = runCairn(url, ['semantic', 'import', projectDir([flightsModel]), '--project', 'flights', '--publish'], { mode: 'compiled' });
    expect(imported.status, imported.stderr).toBe(0);
    const created = runCairn(url, ['semantic', 'token', 'create', 'flights', '--models', 'flights'], { mode: 'compiled' });
    expect(created.status, created.stderr).toBe(0);
    const client = await mcpClient(`${url}/mcp/flights/mcp`, created.stdout.trim());
    try {
      const result = await client.callTool({ name: 'execute_query', arguments: { modelName: 'flights', sql: 'SELECT COUNT(*) AS n FROM flights' } });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(queryOutputOf(result).rows).toEqual([[3000000]]);
    } finally {
      await client.close();
    }
  }, 120_000);

  it('writes nothing into the image: only /data (and /tmp) changed', async () => {
    const diff = await podman.run(['diff', name]);
    expect(diff.status, diff.stderr).toBe(0);
    expect(diff.stdout.split('\n').filter((line) => line.trim() !== '' && !/^[ACD] \/(data|tmp)(\/|$)/.test(line))).toEqual([]);
    expect(existsSync(join(dataDir, 'docdb.sqlite'))).toBe(true);
    expect(readdirSync(join(dataDir, 'cache', 'native')).some((f) => f.startsWith('libduckdb-'))).toBe(true);
  });

  it('carries the labels, health check, environment, default user and port of the spec', async () => {
    const image = await inspect('image', tag);
    const config = image.Config;
    expect(config.Labels).toMatchObject({ 'org.opencontainers.image.title': 'cairn', 'org.opencontainers.image.version': appVersion });
    expect(config.Labels['org.opencontainers.image.revision']).toMatch(/^([0-9a-f]{40}|unknown)$/);
    expect(config.Labels).toHaveProperty(['org.opencontainers.image.source']);
    expect(image.Healthcheck ?? config.Healthcheck).toMatchObject({ Interval: 30e9, Timeout: 5e9, StartPeriod: 20e9, Retries: 3 });
    expect(config.Env).toEqual(expect.arrayContaining(['NODE_ENV=production', 'BUN_TMPDIR=/data/cache/native', `APP_VERSION=${appVersion}`, 'API_PORT=3001', 'CAIRN_DATA_DIR=/data', 'CAIRN_APP_DIR=/app',
      'PLATFORM_SCRATCH_DIR=/data/scratch', 'PLATFORM_SKILL_REGISTRIES_DIR=/data/skill-registries']));
    expect(Object.keys(config.ExposedPorts)).toEqual(['8080/tcp']);
    expect(config.User).not.toMatch(/^(|0|root)(:|$)/);
    console.log(`[container] image ${tag}: ${(image.Size / 1e6).toFixed(1)} MB`);
  });

  it('runs a given command alone, as any user (rule 2)', async () => {
    const result = await podman.run(['run', '--rm', ...hardened, '--user', '5555', tag, 'cairn', '--help']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/cairn — operate a cairn instance/);
  });

  it('keeps its programs execute-only: a process cannot read them', async () => {
    const result = await podman.run(['run', '--rm', ...hardened, tag, 'sh', '-c', 'cat /app/bin/api >/dev/null && echo readable; cat /usr/bin/caddy >/dev/null && echo readable; true']);
    expect(result.stdout).not.toMatch(/readable/);
    expect(result.stderr).toMatch(/Permission denied/);
  });

  it.each([
    ['mounted read-only', ':ro', []],
    ['owned by another user, from an earlier run', '', ['objects', 'redis']],
  ])('stops with a message naming /data when /data is %s (rule 9)', async (_case, mode, subdirs) => {
    const readOnly = mkdtempSync(join(tmpdir(), 'cairn-container-ro-'));
    for (const dir of subdirs) mkdirSync(join(readOnly, dir));
    chmodSync(readOnly, 0o755);
    const refused = `${name}-refused`;
    try {
      // An entrypoint that does not stop within 30 s is stopped by the timeout (and fails here).
      const result = await podman.run(['run', '--rm', '--name', refused, ...hardened, '-v', `${readOnly}:/data${mode}`, tag], 30_000);
      const output = `${result.stdout}${result.stderr}`;
      expect(result.status, output).not.toBe(0);
      expect(output).toMatch(/ \/data is not writable/);
    } finally {
      await podman.run(['rm', '--force', '--time', '2', refused]);
      rmSync(readOnly, { recursive: true, force: true });
    }
  }, 60_000);
});
