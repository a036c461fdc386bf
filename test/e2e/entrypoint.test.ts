/**
 * End to end: the all-in-one entrypoint restarts a killed API or dispatcher 2 s later, a second
 * container on the same data waits for the single-dispatcher lease with /healthz 503, and takes it
 * once the first stops; stopping the entrypoint stops every process it started.
 * Source: spec/platform-service.md § Processes, § Rules 1 and 3, § Single-dispatcher lease.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProduct, type RunningProduct } from '../helpers/product.ts';
import { DISPATCHER_NICENESS } from '../../bins/entrypoint/supervisor.ts';
import { autogroupOf } from '../../core/adapters/runtime/process-scheduling.ts';

let dataDir: string;
let first: RunningProduct;
let second: RunningProduct | undefined;

const pidOf = (product: RunningProduct, tag: string) => {
  const lines = product.output.filter((l) => l.startsWith(`[entrypoint] started ${tag} (pid `));
  return Number(/pid (\d+)/.exec(lines.at(-1) ?? '')?.[1]);
};
const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
const healthz = async (product: RunningProduct) => (await fetch(`${product.url}/healthz`)).status;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-shared-data-'));
  first = await startProduct({ CAIRN_DATA_DIR: dataDir });
  await until('the lease', async () => ((await healthz(first)) === 200 ? true : undefined));
}, 120_000);

afterAll(async () => {
  await second?.stop();
  await first?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('entrypoint', () => {
  it('wires its ports and says it runs its own queue store', () => {
    expect(first.output.some((l) => /^\[entrypoint\] front proxy on 127\.0\.0\.1:\d+; api on 127\.0\.0\.1:\d+/.test(l))).toBe(true);
    expect(first.output.some((l) => l.startsWith('[entrypoint] running its own queue store on 127.0.0.1:'))).toBe(true);
    expect(first.output.some((l) => l.startsWith('[redis-like store] '))).toBe(true);
  });

  it('runs the dispatcher (and so its workers) at a lower priority than the API', () => {
    // Field 19 of /proc/<pid>/stat is the niceness (after the command name in parentheses).
    const niceness = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[16]);
    expect(niceness(pidOf(first, 'dispatcher'))).toBe(DISPATCHER_NICENESS);
    expect(niceness(pidOf(first, 'api'))).toBe(0);
    // It leads a session of its own (field 6: session id), whose scheduling group (where the kernel groups by
    // session) has its niceness too: its workers, in that session, cannot outweigh the API's group.
    const session = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[3]);
    expect(session(pidOf(first, 'dispatcher'))).toBe(pidOf(first, 'dispatcher'));
    const group = autogroupOf(pidOf(first, 'dispatcher'));
    if (group) {
      expect(group.niceness).toBe(DISPATCHER_NICENESS);
      expect(autogroupOf(pidOf(first, 'api'))).toMatchObject({ niceness: 0 });
    }
  });

  it.each(['api', 'dispatcher'])('starts the %s again 2 s after it is killed, and /healthz answers again', async (tag) => {
    const pid = pidOf(first, tag);
    process.kill(pid, 'SIGKILL');
    await until(`${tag} to restart`, () => (pidOf(first, tag) !== pid ? true : undefined));
    expect(first.output.some((l) => l.startsWith(`[entrypoint] ${tag} exited (SIGKILL); starting it again in 2 s`))).toBe(true);
    await until('/healthz 200', async () => ((await healthz(first).catch(() => 0)) === 200 ? true : undefined));
  }, 60_000);

  it('a second container on the same data waits for the lease with /healthz 503, then takes it when the first stops', async () => {
    second = await startProduct({ CAIRN_DATA_DIR: dataDir });
    await until('the waiting line', () => (second!.output.some((l) => l.includes('waiting for the single-dispatcher lease, held by')) ? true : undefined));
    expect(await healthz(second)).toBe(503);
    // Only the first keeps the queue store's files in <data>/redis (one append-only file, one writer).
    expect(second.output.some((l) => l.startsWith('[entrypoint] the queue store keeps nothing on disk: '))).toBe(true);
    expect(first.output.some((l) => l.startsWith('[entrypoint] the queue store keeps its data in '))).toBe(true);
    const firstPids = ['api', 'dispatcher', 'semantic-mcp', 'proxy', 'redis-like store'].map((t) => pidOf(first, t));
    await first.stop();
    expect(firstPids.filter(alive)).toEqual([]);
    await until('the second to take the lease', async () => ((await healthz(second!)) === 200 ? true : undefined), 45_000);
  }, 120_000);
});
