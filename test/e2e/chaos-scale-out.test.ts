/**
 * Scale-out under chaos: two API processes and two dispatchers on one shared redis-server (QUEUE_URL) and one
 * document store (the embedded SQLite file all four open) take a burst of webhook deliveries, each sent three
 * times to either API and retried until acknowledged, and AG-UI chats on fresh threads, while an API is killed
 * with SIGKILL about every second and a dispatcher about every three seconds, each started again at once. The
 * scripted model answers every turn. At the end, once the sweeps had their time: exactly one session per
 * delivery, no session `running`, no turn `queued` or `running`, every chat run answered (RUN_FINISHED) or
 * cleanly failed (RUN_ERROR, an error answer, or a stream cut by the kill of the API serving it: a live chat
 * stream is lost with its process), and no process exited by itself. The run's figures are printed.
 *
 * Source: docs/architecture.md § Life of a turn ("What recovers after a crash"), § Queues and collections;
 * spec platform-service.md § Replacement (live chat stream: lost), § Endpoints (webhook: a delivery is taken once).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killWhileRunning, startChaosCluster, type ChaosCluster } from '../helpers/chaos-cluster.ts';
import { runChat, sendDelivery, type ChatResult, type DeliveryResult } from '../helpers/chaos-load.ts';
import { pendingJobs, readChaosRecords, summariseChaosRun, type ChaosRecords } from '../helpers/chaos-records.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';
import {
  scriptedModels, startScriptedModelServer, type ScriptedModelServer,
} from '../helpers/scripted-model-server.ts';

/** Deliveries of the burst, started at {@link DELIVERIES_PER_SECOND}; chats started over the same time. */
const DELIVERIES = Number(process.env.CAIRN_CHAOS_DELIVERIES ?? 200);
const DELIVERIES_PER_SECOND = 8;
const CHATS = Number(process.env.CAIRN_CHAOS_CHATS ?? 30);
/** Kills: an API about every second (one API always serving), a dispatcher about every three seconds. */
const API_KILLS = { everyMs: 1_000, keepOneUp: true, minKills: 6 };
const DISPATCHER_KILLS = { everyMs: 3_000, keepOneUp: false, minKills: 6 };
/** The generous bound for everything to settle after the burst (not a threshold: the time taken is printed). */
const SETTLE_BOUND_MS = 240_000;

let redis: RunningRedis;
let model: ScriptedModelServer;
let cluster: ChaosCluster;
/** An endpoint's path (`/api/webhooks/…`, `/api/agui/…`) and token (empty for a public one). */
interface Endpoint { path: string; token: string }
let hook: Endpoint;
let chat: Endpoint;

async function cairn(...args: string[]): Promise<string> {
  const command = [join(repoRoot, 'bins/cairn/main.ts'), '--url', cluster.apis[0].url, ...args];
  const result = await runProcess(bunPath, command, { env: { PATH: process.env.PATH! } });
  if (result.status !== 0) throw new Error(`cairn ${args.join(' ')} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

/** Registers connection `id` of `agent` (calls per minute high enough for the burst); returns its path and token. */
async function connection(agent: string, id: string, protocol: string, auth: string): Promise<Endpoint> {
  const created = JSON.parse(await cairn('connection', 'create', '--agent', agent, '--env', 'main', '--id', id,
    '--protocol', protocol, '--auth', auth, '--rate', '100000,100000', '--json')) as { url: string; token?: string };
  return { path: new URL(created.url).pathname, token: created.token ?? '' };
}

beforeAll(async () => {
  redis = await startRedis();
  // Every turn answers without a tool call: a webhook session then waits for input, a chat run finishes.
  const turns = Array.from({ length: 4 * (DELIVERIES + CHATS) + 200 }, () => ({ text: 'Noted.', delayMs: 100 }));
  model = await startScriptedModelServer(turns);
  cluster = await startChaosCluster({
    queueUrl: redis.url, apis: 2, dispatchers: 2,
    env: {
      PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }), PLATFORM_USER_RATE_PER_MINUTE: '100000',
    },
  });
  for (const agent of ['hooks', 'front']) {
    await cairn('agent', 'import', join(repoRoot, 'test/fixtures/agents', agent), '--agent', agent, '--publish');
  }
  hook = await connection('hooks', 'github', 'webhook', 'bearer');
  chat = await connection('front', 'front', 'agui', 'public');
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
  await model?.close();
  await redis?.stop();
});

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Reads the records every second until `settled` holds or the bound passes; returns the last read and the time. */
async function waitForRecords(settled: (r: ChaosRecords) => boolean): Promise<{ records: ChaosRecords; ms: number }> {
  const began = Date.now();
  let records = readChaosRecords(cluster.docdbPath, 'intake');
  while (!settled(records) && Date.now() - began < SETTLE_BOUND_MS) {
    await pause(1_000);
    records = readChaosRecords(cluster.docdbPath, 'intake');
  }
  return { records, ms: Date.now() - began };
}

/** Sends the burst: a delivery every 1/DELIVERIES_PER_SECOND s, a chat every DELIVERIES/CHATS deliveries. */
function sendBurst(): { deliveries: Promise<DeliveryResult[]>; chats: Promise<ChatResult[]> } {
  const chats: Promise<ChatResult>[] = [];
  const deliveries = (async () => {
    const sent: Promise<DeliveryResult>[] = [];
    const chatEvery = Math.max(1, Math.floor(DELIVERIES / CHATS));
    for (let i = 0; i < DELIVERIES; i += 1) {
      sent.push(sendDelivery(cluster.apis, hook.path, hook.token, `chaos-${i}`));
      if (i % chatEvery === 0 && chats.length < CHATS) {
        chats.push(runChat(cluster.apis, chat.path, `Chat ${chats.length}.`));
      }
      await pause(1_000 / DELIVERIES_PER_SECOND);
    }
    return Promise.all(sent);
  })();
  return { deliveries, chats: deliveries.then(() => Promise.all(chats)) };
}

describe('two APIs and two dispatchers on shared stores, killed during a burst', () => {
  const title = 'end with one session per delivery, every session settled, every chat answered or cleanly failed';
  it(title, { timeout: 600_000 }, async () => {
    const began = Date.now();
    const burst = sendBurst();
    const [apiFailures, dispatcherFailures, sent] = await Promise.all([
      killWhileRunning(cluster, cluster.apis, API_KILLS, burst.deliveries),
      killWhileRunning(cluster, cluster.dispatchers, DISPATCHER_KILLS, burst.deliveries),
      burst.deliveries,
    ]);
    const chaosMs = Date.now() - began;
    const chats = await burst.chats;
    // Settled: no job left in the queue store and no session or turn left unsettled.
    const { records, ms: settleMs } = await waitForRecords((r) => r.runningSessions.length === 0
      && r.unsettledTurns.length === 0 && pendingJobs(redis.cli) === 0);

    const slots = [...cluster.apis, ...cluster.dispatchers];
    const restartFailures = [...apiFailures, ...dispatcherFailures];
    const run = { sent, chats, records, slots, restartFailures, chaosMs, settleMs };
    const { figures, lost, doubled } = summariseChaosRun(run);
    console.log(`chaos run: ${JSON.stringify(figures, null, 1)}`);

    expect(figures.unacknowledged, 'every send was acknowledged').toBe(0);
    const perDelivery = `${figures.sessionsForDeliveries} sessions for ${DELIVERIES} deliveries`;
    expect({ lost, doubled }, `exactly one session per delivery: ${perDelivery}`).toEqual({ lost: [], doubled: [] });
    expect(records.runningSessions, `no session left running after ${settleMs / 1000} s`).toEqual([]);
    expect(records.unsettledTurns, `no turn left queued or running after ${settleMs / 1000} s`).toEqual([]);
    const unclean = chats.filter((c) => c.end === 'broken' || c.end === 'hung');
    expect(unclean, 'every chat answered or cleanly failed').toEqual([]);
    const tails = slots.map((s) => `${s.name}:\n${s.output().slice(-3000)}`).join('\n');
    expect(figures.crashes, `no process exited by itself\n${tails}`).toEqual({});
  });
});
