/**
 * The README's first command on a clean Debian machine (docs/decisions.md D6 § 1): a podman container from a
 * debootstrap bookworm root file system with only Debian's `nodejs` (18) and `npm` (9) added
 * (test/helpers/clean-debian.sh, made once and cached), a copy of this checkout's committed tree (no
 * node_modules, dist or data), and `scripts/start` run as root inside it. It must install what it needs (caddy,
 * redis-server, the npm dependencies with Node 24 and Bun), come up, seed the demo, and print a token
 * that answers an MCP call from the host.
 *
 * The container shares the host's network (`--network host`, the only network podman has here), so
 * the test also takes 127.0.0.1:3001, 3002 and 6379 on the host first: scripts/start must pick other
 * ports, bind the proxy to loopback only, and survive a kill -9 of the API while the demo uploads.
 * PORT is a free port (the host's 8080 may be in use). What is given to the clean machine besides the
 * checkout: the host's CA bundle (read-only, with NODE_EXTRA_CA_CERTS), because this network reaches
 * the npm registry through a TLS-intercepting egress proxy that any machine on it must trust; nothing
 * is cached between runs except the root file system image.
 * Skipped, with the reason, only where podman cannot run.
 * Source: README.md § Two commands; ../shared/TOOLCHAIN.md § Containers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probePodman, type Podman } from '../helpers/container.ts';
import { freePort } from '../helpers/ports.ts';
import { repoRoot } from '../helpers/product.ts';
import { mcpClient, queryOutputOf } from '../helpers/semantic-fixtures.ts';
import { holdPorts, listeningAddresses, pidOf, runStartScript, type StartedScript } from '../helpers/start-script.ts';

const probe = probePodman();
const name = `cairn-clean-machine-${process.pid}`;
const caBundle = '/etc/ssl/certs/ca-certificates.crt';
let podman: Podman;
let start: StartedScript | undefined;
let release: (() => Promise<void>) | undefined;
let checkout: string | undefined;
let publicPort: number;
let killIndex = -1;
const measured: Record<string, number> = {};

/** The clean image (built once per machine by test/helpers/clean-debian.sh). @throws Error with its output */
function cleanImage(): string {
  const started = Date.now();
  const result = spawnSync(join(repoRoot, 'test/helpers/clean-debian.sh'), [], { encoding: 'utf8', env: podman.env, timeout: 20 * 60_000 });
  if (result.status !== 0) throw new Error(`test/helpers/clean-debian.sh failed:\n${result.stdout}\n${result.stderr}`);
  measured.imageMs = Date.now() - started;
  return result.stdout.trim().split('\n').at(-1)!;
}

/**
 * A copy of the checkout as `git clone` would give it: the committed tree of HEAD (`git archive`), so
 * other work in progress in this working tree does not leak in; without git, the working tree minus
 * node_modules, dist, data and .git.
 */
function copyCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-clean-checkout-'));
  const inGit = spawnSync('git', ['-C', repoRoot, 'rev-parse', '--verify', 'HEAD'], { encoding: 'utf8' }).status === 0;
  const copy = inGit
    ? `git -C "$0" archive --format=tar HEAD | tar -C "$1" -x`
    : `tar -C "$0" --exclude=./node_modules --exclude=./dist --exclude=./data --exclude=./.git -c . | tar -C "$1" -x`;
  const result = spawnSync('sh', ['-c', copy, repoRoot, dir], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`copying the checkout failed: ${result.stderr}`);
  return dir;
}

beforeAll(async () => {
  if (!probe.available) return;
  podman = probe.podman;
  const image = cleanImage();
  checkout = copyCheckout();
  release = await holdPorts([3001, 3002, 6379]);
  publicPort = await freePort();
  const ca = existsSync(caBundle) ? ['-v', `${caBundle}:${caBundle}:ro`, '-e', `NODE_EXTRA_CA_CERTS=${caBundle}`] : [];
  const run = ['run', '--rm', '--name', name, '--network', 'host', ...ca, '-v', `${checkout}:/root/cairn`, '-w', '/root/cairn', '-e', `PORT=${publicPort}`, image, 'scripts/start'];
  const started = Date.now();
  start = runStartScript(podman.env as Record<string, string>, ['podman', [...podman.args, ...run]]);
  await start.waitForLine(/^\[start\] uploading data\/flights\.parquet: /, 15 * 60_000);
  measured.untilSeedingMs = Date.now() - started;
  killIndex = start.lines.length;
  const killed = spawnSync('podman', [...podman.args, 'exec', name, 'bash', '-c', `kill -9 ${pidOf(start.lines, 'api')}`], { env: podman.env, encoding: 'utf8' });
  if (killed.status !== 0) throw new Error(`podman exec kill failed: ${killed.stderr}`);
  await start.waitForLine(/^Demo token \(flights\): +cairn_mcp_/, 5 * 60_000);
  measured.untilTokenMs = Date.now() - started;
}, 30 * 60_000);

afterAll(async () => {
  if (start) {
    spawnSync('podman', [...podman.args, 'stop', '-t', '20', name], { env: podman.env });
    await start.stop();
  }
  await release?.();
  if (checkout) rmSync(checkout, { recursive: true, force: true });
  if (Object.keys(measured).length > 0) process.stdout.write(`[clean-machine] measured: ${JSON.stringify(measured)}\n`);
}, 120_000);

describe('scripts/start on a clean Debian machine with only nodejs and npm', () => {
  it('installs caddy, redis-server, bubblewrap and the npm dependencies, '
    + 'and answers /api/health through the proxy', async (ctx) => {
    if (!probe.available) return ctx.skip(probe.reason);
    expect(start!.lines).toContain('[setup] installing Debian packages: caddy redis-server bubblewrap');
    expect(start!.lines).toContain('[setup] installing npm dependencies (npm install with the committed lockfile)');
    expect((await fetch(`http://127.0.0.1:${publicPort}/api/health`)).status).toBe(200);
  });

  it('picks other ports for the taken 3001, 3002 and 6379, and binds the proxy to loopback only', (ctx) => {
    if (!probe.available) return ctx.skip(probe.reason);
    for (const port of [3001, 3002, 6379]) expect(start!.lines.some((l) => l.startsWith(`[start] port ${port} is taken on 127.0.0.1, so `)), String(port)).toBe(true);
    expect(listeningAddresses(publicPort)).toEqual(['127.0.0.1']);
  });

  it('survives a kill -9 of the API during seeding, with no proxy error while booting', (ctx) => {
    if (!probe.available) return ctx.skip(probe.reason);
    expect(start!.lines.some((l) => l.startsWith('[entrypoint] api exited (SIGKILL)'))).toBe(true);
    expect(start!.lines.filter((l) => /start failed|seeding the demo projects failed/.test(l))).toEqual([]);
    expect(start!.lines.slice(0, killIndex).filter((l) => l.startsWith('[proxy] ') && /"level":"error"/.test(l))).toEqual([]);
  });

  it('prints a token that answers an MCP call', async (ctx) => {
    if (!probe.available) return ctx.skip(probe.reason);
    const token = /cairn_mcp_\S+/.exec(start!.lines.find((l) => l.startsWith('Demo token (flights):'))!)![0];
    const client = await mcpClient(`http://127.0.0.1:${publicPort}/mcp/flights/mcp`, token);
    try {
      const answer = await client.callTool({ name: 'execute_query', arguments: { modelName: 'flights', sql: 'SELECT count(*) AS n FROM flights' } });
      expect(queryOutputOf(answer).rows).toEqual([[3_000_000]]);
    } finally {
      await client.close();
    }
  });
});
