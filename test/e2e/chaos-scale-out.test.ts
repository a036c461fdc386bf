/**
 * Scale-out under chaos: two API processes and two dispatchers on one shared redis-server (QUEUE_URL) and one
 * document store (the embedded SQLite file all four open) take a burst of webhook deliveries, each sent three
 * times to either API and retried until acknowledged, and AG-UI chats on fresh threads, while an API is killed
 * with SIGKILL about every second and a dispatcher about every three seconds, each started again at once. The
 * scripted model answers every turn. At the end, once the sweeps had their time: exactly one session per
 * delivery, no session `running`, no turn `queued` or `running`, every chat run answered (RUN_FINISHED) or
 * cleanly failed (RUN_ERROR, an error answer, or a stream cut by the kill of the API serving it), and no process
 * exited by itself.
 *
 * Source: docs/architecture.md § Life of a turn ("What recovers after a crash"), § Queues and collections;
 * spec platform-service.md § Replacement, § Endpoints (webhook: a delivery id is taken once).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChaosCluster, type ChaosCluster, type ChaosSlot } from '../helpers/chaos-cluster.ts';
import { runChat, sendDelivery, type ChatResult, type DeliveryResult } from '../helpers/chaos-load.ts';
import { readChaosRecords, type ChaosRecords } from '../helpers/chaos-records.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';
import { scriptedModels, startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';

/** Deliveries of the burst, started at {@link DELIVERIES_PER_SECOND}; chats started over the same time. */
const DELIVERIES = Number(process.env.CAIRN_CHAOS_DELIVERIES ?? 200);
const DELIVERIES_PER_SECOND = 8;
const CHATS = Number(process.env.CAIRN_CHAOS_CHATS ?? 30);
/** Kill periods (ms): an API about every second, a dispatcher about every three. */
const API_KILL_MS = 1_000;
const DISPATCHER_KILL_MS = 3_000;
/** The generous bound for everything to settle after the burst (not a threshold: the time taken is printed). */
const SETTLE_BOUND_MS = 240_000;

let redis: RunningRedis;
let model: ScriptedModelServer;
let cluster: ChaosCluster;
let hook: { path: string; token: string };
let chat: { path: string };

async function cairn(...args: string[]): Promise<string> {
  const result = await runProcess(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), '--url', cluster.apis[0].url, ...args], { env: { PATH: process.env.PATH! } });
  if (result.status !== 0) throw new Error(`cairn ${args.join(' ')} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

beforeAll(async () => {
  redis = await startRedis();
  // Every turn answers at once without a tool call: a webhook session then waits for input, a chat run finishes.
  model = await startScriptedModelServer(Array.from({ length: 4 * (DELIVERIES + CHATS) + 200 }, () => ({ text: 'Noted.', delayMs: 100 })));
  cluster = await startChaosCluster({
    queueUrl: redis.url, apis: 2, dispatchers: 2,
    env: { PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }), PLATFORM_USER_RATE_PER_MINUTE: '100000' },
  });
  await cairn('agent', 'import', join(repoRoot, 'test/fixtures/agents/hooks'), '--agent', 'hooks', '--publish');
  await cairn('agent', 'import', join(repoRoot, 'test/fixtures/agents/front'), '--agent', 'front', '--publish');
  const created = JSON.parse(await cairn('connection', 'create', '--agent', 'hooks', '--env', 'main', '--id', 'github', '--protocol', 'webhook',
    '--auth', 'bearer', '--rate', '100000,100000', '--json')) as { url: string; token: string };
  hook = { path: new URL(created.url).pathname, token: created.token };
  const front = JSON.parse(await cairn('connection', 'create', '--agent', 'front', '--env', 'main', '--id', 'front', '--protocol', 'agui',
    '--auth', 'public', '--rate', '100000,100000', '--json')) as { url: string };
  chat = { path: new URL(front.url).pathname };
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
  await model?.close();
  await redis?.stop();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Kills one ready process of `slots` every `everyMs` (± 20 %), in turn, and starts it again at once, until `until`
 * resolves; a slot still starting is skipped. Resolves once every slot is ready again.
 */
async function killInTurn(slots: ChaosSlot[], everyMs: number, until: Promise<unknown>): Promise<string[]> {
  let done = false;
  void until.finally(() => { done = true; });
  const restarts: Promise<void>[] = [];
  const failures: string[] = [];
  const restart = (slot: ChaosSlot): Promise<void> => cluster.start(slot).catch(async (error: Error) => {
    failures.push(`${slot.name}: ${error.message.split('\n')[0]}`);
    await pause(500);
    if (!slot.ready && !slot.starting) await restart(slot);
  });
  for (let n = 0; !done; n += 1) {
    await pause(everyMs * (0.8 + Math.random() * 0.4));
    if (done) break;
    const slot = slots[n % slots.length];
    if (!slot.ready) continue;
    await cluster.kill(slot);
    restarts.push(restart(slot));
  }
  await Promise.all(restarts);
  return failures;
}

/** Jobs of the turn and trigger queues not yet ended (waiting, delayed, prioritized or active) in the queue store. */
function pendingJobs(): number {
  let n = 0;
  for (const queue of ['turns', 'triggers']) {
    for (const [command, key] of [['llen', 'wait'], ['llen', 'active'], ['llen', 'paused'], ['zcard', 'delayed'], ['zcard', 'prioritized']]) {
      n += Number(redis.cli(command, `cairn:${queue}:${key}`).trim() || 0);
    }
  }
  return n;
}

/** Reads the records every second until `settled` holds or the bound passes; returns the last read and the time taken. */
async function waitForRecords(settled: (records: ChaosRecords) => boolean): Promise<{ records: ChaosRecords; ms: number }> {
  const began = Date.now();
  let records = readChaosRecords(cluster.docdbPath, 'intake');
  while (!settled(records) && Date.now() - began < SETTLE_BOUND_MS) {
    await pause(1_000);
    records = readChaosRecords(cluster.docdbPath, 'intake');
  }
  return { records, ms: Date.now() - began };
}

const tally = <T extends string>(items: T[]) => items.reduce<Record<string, number>>((all, item) => ({ ...all, [item]: (all[item] ?? 0) + 1 }), {});

describe('two APIs and two dispatchers on shared stores, killed during a burst', () => {
  it('end with exactly one session per delivery, every session settled and every chat answered or cleanly failed', { timeout: 600_000 }, async () => {
    const began = Date.now();
    const deliveries: Promise<DeliveryResult>[] = [];
    const chats: Promise<ChatResult>[] = [];
    const load = (async () => {
      const chatEvery = Math.max(1, Math.floor(DELIVERIES / CHATS));
      for (let i = 0; i < DELIVERIES; i += 1) {
        deliveries.push(sendDelivery(cluster.apis, hook.path, hook.token, `chaos-${i}`));
        if (i % chatEvery === 0 && chats.length < CHATS) chats.push(runChat(cluster.apis, chat.path, `Chat ${chats.length}: hello.`));
        await pause(1_000 / DELIVERIES_PER_SECOND);
      }
      return Promise.all(deliveries);
    })();
    const [apiRestartFailures, dispatcherRestartFailures] = await Promise.all([
      killInTurn(cluster.apis, API_KILL_MS, load),
      killInTurn(cluster.dispatchers, DISPATCHER_KILL_MS, load),
      load,
    ]);
    const sent = await Promise.all(deliveries);
    const burstMs = Date.now() - began;
    const chatEnds = await Promise.all(chats);
    // Settled: no job left in the queue store and no session or turn left unsettled.
    const { records, ms: settleMs } = await waitForRecords((r) => r.runningSessions.length === 0 && r.unsettledTurns.length === 0
      && pendingJobs() === 0);

    const sends = sent.flatMap((d) => d.sends);
    const refusals = sends.flatMap((s) => Object.entries(s.refusals)).reduce<Record<string, number>>((all, [k, v]) => ({ ...all, [k]: (all[k] ?? 0) + v }), {});
    const perDelivery = sent.map((d) => records.sessionsPerDelivery.get(d.deliveryId) ?? []);
    const lost = sent.filter((_, i) => perDelivery[i].length === 0).map((d) => d.deliveryId);
    const doubled = sent.filter((_, i) => perDelivery[i].length > 1).map((d) => `${d.deliveryId}: ${perDelivery[sent.indexOf(d)].join(', ')}`);
    const sessions = [...records.sessionsPerDelivery.values()].reduce((n, ids) => n + ids.length, 0);
    const summary = {
      deliveries: DELIVERIES, sends: sends.length, attempts: sends.reduce((n, s) => n + s.attempts, 0), refusals,
      taken: sends.filter((s) => s.taken === true).length, unacknowledged: sends.filter((s) => s.taken === undefined).length,
      kills: Object.fromEntries([...cluster.apis, ...cluster.dispatchers].map((s) => [s.name, s.kills])),
      crashes: Object.fromEntries([...cluster.apis, ...cluster.dispatchers].filter((s) => s.crashes.length > 0).map((s) => [s.name, s.crashes])),
      restartFailures: [...apiRestartFailures, ...dispatcherRestartFailures],
      meanStartSeconds: Object.fromEntries([...cluster.apis, ...cluster.dispatchers]
        .map((s) => [s.name, Math.round(s.startMs.reduce((a, b) => a + b, 0) / s.startMs.length) / 1000])),
      burstSeconds: burstMs / 1000, settleSeconds: settleMs / 1000,
      sessionsForDeliveries: sessions, lost: lost.length, doubled: doubled.length,
      runningSessions: records.runningSessions.length, unsettledTurns: records.unsettledTurns.length,
      chats: tally(chatEnds.map((c) => c.end)), chatDetails: tally(chatEnds.filter((c) => c.detail).map((c) => `${c.end} ${c.detail}`)),
      sessionCounts: records.sessionCounts, turnCounts: records.turnCounts,
    };
    console.log(`chaos run: ${JSON.stringify(summary, null, 1)}`);
    const tails = () => [...cluster.apis, ...cluster.dispatchers].map((s) => `${s.name}:\n${s.output().slice(-3000)}`).join('\n');
    expect(summary.unacknowledged, 'every send was acknowledged').toBe(0);
    expect({ lost, doubled }, `exactly one session per delivery: ${sessions} sessions for ${DELIVERIES} deliveries`).toEqual({ lost: [], doubled: [] });
    expect(records.runningSessions, `no session left running after ${settleMs / 1000} s`).toEqual([]);
    expect(records.unsettledTurns, `no turn left queued or running after ${settleMs / 1000} s`).toEqual([]);
    expect(chatEnds.filter((c) => c.end === 'broken' || c.end === 'hung'), 'every chat run answered or cleanly failed').toEqual([]);
    expect(summary.crashes, `no process exited by itself\n${tails()}`).toEqual({});
  });
});
