/**
 * The entrypoint prints one warning line when its front proxy listens beyond loopback while sign-in is
 * the dev user (every request acts as the owner): the container's default (every interface), or
 * scripts/start with HOST=0.0.0.0. Run with a stand-in front proxy (CAIRN_CADDY=/bin/true), so nothing
 * of the instance is actually exposed while the test runs.
 * Source: spec/platform-service.md § Processes of the all-in-one container; docs/decisions.md D6 § 1.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';

/** Entrypoint output until its first `started proxy` line, then stopped. */
async function firstLines(env: Record<string, string>): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-exposure-'));
  const child = spawn(bunPath, [join(repoRoot, 'bins/entrypoint/main.ts')], {
    env: { PATH: process.env.PATH, CAIRN_DATA_DIR: dataDir, CAIRN_CADDY: '/bin/true', PORT: String(await freePort()), API_PORT: String(await freePort()), SEMANTIC_MCP_PORT: String(await freePort()), CAIRN_EMBEDDED_QUEUE_PORT: String(await freePort()), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  await new Promise<void>((resolve) => {
    for (const stream of [child.stdout, child.stderr]) stream.on('data', (c: Buffer) => {
      lines.push(...c.toString().split('\n').filter(Boolean));
      if (lines.some((l) => l.startsWith('[entrypoint] started proxy'))) resolve();
    });
    child.once('exit', () => resolve());
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
  return lines;
}

const warning = /^\[entrypoint\] warning: the front proxy listens on (\S+) \(beyond loopback\) and sign-in is dev-user/;

describe('entrypoint: dev-user exposure warning', () => {
  it('warns once when the front proxy binds every interface under dev-user (the container default)', async () => {
    const lines = await firstLines({});
    expect(lines.filter((l) => warning.test(l))).toHaveLength(1);
    expect(warning.exec(lines.find((l) => warning.test(l))!)![1]).toMatch(/^0\.0\.0\.0:\d+$/);
  }, 60_000);

  it('stays quiet on loopback (scripts/start\'s default)', async () => {
    const lines = await firstLines({ CAIRN_PROXY_BIND: '127.0.0.1' });
    expect(lines.some((l) => l.startsWith('[entrypoint] front proxy on 127.0.0.1:'))).toBe(true);
    expect(lines.filter((l) => warning.test(l))).toEqual([]);
  }, 60_000);
});
