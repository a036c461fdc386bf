/**
 * End to end: the embedded queue store killed with SIGKILL during a burst of webhook deliveries loses nothing it
 * acknowledged. 160 deliveries, each with its own X-Delivery-Id, go to a public webhook connection whose
 * workflow's entry state is terminal (no model call); the redis-server the entrypoint runs is killed once a third
 * of them were sent, and the supervisor starts it again 2 s later on its append-only file in <data>/redis. Every
 * delivery answered 202 then opens exactly one session, and every session settles; none is left running.
 * Source: spec/platform-service.md § Rules 1 and 9 (/data/redis); docs/architecture.md § Queue store.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';

let product: RunningProduct;
let hookUrl: string;
const DELIVERIES = 160;

const pidOf = (tag: string) => {
  const lines = product.output.filter((l) => l.startsWith(`[entrypoint] started ${tag} (pid `));
  return Number(/pid (\d+)/.exec(lines.at(-1) ?? '')?.[1]);
};
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

beforeAll(async () => {
  product = await startProduct();
  const imported = runCairn(product.url, [
    'agent', 'import', join(repoRoot, 'test/fixtures/agents/hooks'), '--agent', 'hooks', '--publish',
  ]);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, [
    'connection', 'create', '--agent', 'hooks', '--env', 'main', '--id', 'limited', '--protocol', 'webhook',
    '--auth', 'public', '--rate', '100000,100000', '--json',
  ]);
  expect(created.status, created.stderr).toBe(0);
  hookUrl = (JSON.parse(created.stdout) as { url: string }).url.replace(/^https?:\/\/[^/]+/, product.url);
  const leased = async () => ((await fetch(`${product.url}/healthz`)).status === 200 ? true : undefined);
  await until('the lease', leased, 60_000);
}, 180_000);

afterAll(async () => {
  await product?.stop();
});

type Session = { id: string; status: string; variables: { trigger: { deliveryId: string } } };

describe('the embedded queue store killed during a burst of webhooks', () => {
  it('fires every acknowledged delivery exactly once and settles every session', { timeout: 240_000 }, async () => {
    const kept = `[entrypoint] the queue store keeps its data in ${join(product.dataDir, 'redis')} (append-only file)`;
    expect(product.output).toContain(kept);
    const redisPid = pidOf('redis-like store');
    const acknowledged: string[] = [];
    const refused: number[] = [];
    const send = async (i: number) => {
      const id = `burst-${i}`;
      try {
        const answer = await fetch(hookUrl, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-delivery-id': id }, body: `{"n":${i}}`,
        });
        if (answer.status === 202) acknowledged.push(id);
        else refused.push(answer.status);
      } catch {
        refused.push(0);
      }
    };
    let next = 0;
    const sender = async () => {
      while (next < DELIVERIES) {
        const i = next;
        next += 1;
        if (i === Math.floor(DELIVERIES / 3)) process.kill(redisPid, 'SIGKILL');
        await send(i);
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    const restarted = async () => (pidOf('redis-like store') !== redisPid ? true : undefined);
    await until('the queue store to start again', restarted, 30_000);
    expect(product.output.some((l) => l.startsWith('[entrypoint] redis-like store exited (SIGKILL)'))).toBe(true);
    expect(existsSync(join(product.dataDir, 'redis', 'appendonlydir'))).toBe(true);
    expect(acknowledged.length).toBeGreaterThan(DELIVERIES / 3);

    const list = async () => (await (await fetch(
      `${product.url}/api/sessions?agent=hooks&env=main&workflow=limits&limit=200`,
    )).json() as { sessions: Session[] }).sessions;
    let sessions: Session[] = [];
    try {
      await until('every acknowledged delivery to settle', async () => {
        sessions = await list();
        const settled = sessions.filter((s) => s.status !== 'running');
        return settled.length >= acknowledged.length && sessions.length === settled.length ? true : undefined;
      }, 150_000);
    } catch {
      // Reported below with the counts.
    }
    const ids = sessions.map((s) => s.variables.trigger.deliveryId);
    const summary = {
      acknowledged: acknowledged.length, refused: refused.length, sessions: sessions.length,
      running: sessions.filter((s) => s.status === 'running').length,
      missing: acknowledged.filter((id) => !ids.includes(id)).length, doubled: ids.length - new Set(ids).size,
    };
    expect(summary).toMatchObject({ sessions: acknowledged.length, running: 0, missing: 0, doubled: 0 });
    expect(ids.every((id) => acknowledged.includes(id))).toBe(true);
  });
});
