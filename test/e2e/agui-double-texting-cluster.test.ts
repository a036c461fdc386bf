/**
 * Double-texting on two replicas (docs/decisions.md D27 § 1): two API processes and two dispatchers on one
 * redis-server and one document store (test/helpers/chaos-cluster.ts), the test agent's `enqueue` chat over a public
 * AG-UI connection, driven by @ag-ui/client's HttpAgent. A message sent through API B while a turn sent through API A
 * runs waits its turn and runs exactly once, after it. Killing the dispatcher that runs the turn (SIGKILL) while a
 * message is queued: the turn is failed as interrupted by the surviving dispatcher's stale-turn sweep, the chat ends
 * failed, and the queued message never runs (its run ends RUN_ERROR `message_dropped`). Killing the idle dispatcher
 * instead: the queued message runs exactly once on the survivor.
 *
 * The stale-turn sweep cannot be made fast from the environment: a turn is stale after TURN_STALE_MS (60 s, a
 * constant of core/session/model.ts) and the sweep runs every PARK_SWEEP_INTERVAL_MS (30 s), so the kill case waits
 * 60 to 90 s for it.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AguiThread, issuedThread, kindsOf as kinds, sendOnThread as send, textOf as texts,
} from '../helpers/agui-thread-runs.ts';
import { startChaosCluster, type ChaosCluster, type ChaosSlot } from '../helpers/chaos-cluster.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';
import {
  scriptedModels, startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn,
} from '../helpers/scripted-model-server.ts';

/** The scripted model's answers, appended by each test before it sends (the server reads it at each request). */
const script: ScriptedTurn[] = [];
/** How long the first turn's model call takes: the second message is sent once the call reached the model. */
const SLOW = 2_500;
let redis: RunningRedis;
let model: ScriptedModelServer;
let cluster: ChaosCluster;
/** The path of the `enqueue` connection's AG-UI endpoint (`/api/agui/…`). */
let path: string;

async function cairn(...args: string[]): Promise<string> {
  const command = [join(repoRoot, 'bins/cairn/main.ts'), '--url', cluster.apis[0].url, ...args];
  const result = await runProcess(bunPath, command, { env: { PATH: process.env.PATH! } });
  if (result.status !== 0) throw new Error(`cairn ${args.join(' ')} failed: ${result.stderr}${result.stdout}`);
  return result.stdout;
}

beforeAll(async () => {
  redis = await startRedis();
  model = await startScriptedModelServer(script);
  cluster = await startChaosCluster({
    queueUrl: redis.url, apis: 2, dispatchers: 2,
    env: { PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }) },
  });
  await cairn('agent', 'import', join(repoRoot, 'test/fixtures/agents/multitask'), '--agent', 'multitask', '--publish');
  const created = JSON.parse(await cairn('connection', 'create', '--agent', 'multitask', '--env', 'main', '--id',
    'enqueue', '--protocol', 'agui', '--auth', 'public', '--json')) as { url: string };
  path = new URL(created.url).pathname;
}, 240_000);

afterAll(async () => {
  await cluster?.stop();
  await model?.close();
  await redis?.stop();
});

/** The thread on API `api` (0 or 1): every API serves every thread. */
const on = (thread: AguiThread, api: number): AguiThread => ({ ...thread, url: `${cluster.apis[api].url}${path}` });

/** Opens a chat through API A, the model answering at once. */
async function open(): Promise<AguiThread & { sessionId: string }> {
  script.push({ text: 'Hi.' });
  const url = `${cluster.apis[0].url}${path}`;
  return issuedThread(url, (await send({ url, threadId: '', secret: '' }, 'Hello').done).events);
}

/** Resolves once the scripted model received `count` requests (the turn that sent the last one is at the model). */
async function modelReached(count: number): Promise<void> {
  for (let i = 0; i < 600 && model.requests.length < count; i += 1) await new Promise((r) => setTimeout(r, 50));
  expect(model.requests.length).toBeGreaterThanOrEqual(count);
}

interface TurnRow { id: string; status: string; runner: string | null; message: string | null; code: string | null;
  startedAt: string | null; endedAt: string | null }

/** The turns of session `sessionId` as stored (the shared SQLite file, read through a connection of its own). */
function turnsOf(sessionId: string): TurnRow[] {
  const db = new DatabaseSync(cluster.docdbPath);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    const field = (p: string) => `json_extract(doc, '$.${p}')`;
    return db.prepare(
      `SELECT _id AS id, ${field('status')} AS status, ${field('runner')} AS runner, ` +
      `${field('input.message')} AS message, ${field('error.code')} AS code, ` +
      `${field('startedAt."$date"')} AS startedAt, ${field('endedAt."$date"')} AS endedAt ` +
      `FROM c_session_turns WHERE ${field('sessionId')} = ?`,
    ).all(sessionId) as unknown as TurnRow[];
  } finally {
    db.close();
  }
}

/** The session's status as stored. */
function statusOf(sessionId: string): string {
  const db = new DatabaseSync(cluster.docdbPath);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    const row = db.prepare(`SELECT json_extract(doc, '$.status') AS status FROM c_sessions WHERE _id = ?`)
      .get(sessionId);
    return (row as { status: string }).status;
  } finally {
    db.close();
  }
}

/** The dispatcher slot whose current process runs as `runner` (`<host>-<pid>`, the dispatcher's instance id). */
function slotOf(runner: string): ChaosSlot {
  const pid = runner.slice(runner.lastIndexOf('-') + 1);
  const slot = cluster.dispatchers.find((d) => [...d.output().matchAll(/started \(pid (\d+),/g)].at(-1)?.[1] === pid);
  if (!slot) throw new Error(`no dispatcher runs as ${runner}`);
  return slot;
}

/** Sends `First?` through API A (its model call slow: `first`), then `Second?` through API B once it runs. */
async function doubleText(thread: AguiThread, first: ScriptedTurn, second: ScriptedTurn[] = []) {
  script.push(first, ...second);
  const one = send(on(thread, 0), 'First?');
  await modelReached(script.length - second.length);
  const two = send(on(thread, 1), 'Second?');
  expect(await two.queued).toMatchObject({ position: 1 });
  return { one, two };
}

describe('double-texting on two API processes and two dispatchers', () => {
  it('runs a message sent through the other API while a turn runs exactly once, after that turn', async () => {
    const thread = await open();
    const { one, two } = await doubleText(thread, { text: 'First.', delayMs: SLOW }, [{ text: 'Second.' }]);
    const [first, second] = await Promise.all([one.done, two.done]);
    expect(texts(first.events)).toBe('First.');
    expect(kinds(first.events)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(texts(second.events)).toBe('Second.');
    expect(kinds(second.events)).toEqual(['RUN_STARTED', 'CUSTOM platform.queued', 'RUN_FINISHED']);
    const turns = turnsOf(thread.sessionId);
    const [ranFirst] = turns.filter((t) => t.message === 'First?');
    const ranSecond = turns.filter((t) => t.message === 'Second?');
    expect(ranSecond).toHaveLength(1);
    expect(ranSecond[0].status).toBe('awaiting_input');
    expect(new Date(ranSecond[0].startedAt!).getTime()).toBeGreaterThanOrEqual(new Date(ranFirst.endedAt!).getTime());
  }, 120_000);

  it('fails the turn of a killed dispatcher and drops the message queued behind it, never running it', async () => {
    const thread = await open();
    // The first turn's model call never answers: it is still running when its dispatcher is killed.
    const { one, two } = await doubleText(thread, { hang: true });
    const requests = model.requests.length;
    const [running] = turnsOf(thread.sessionId).filter((t) => t.message === 'First?');
    expect(running.status).toBe('running');
    const runner = slotOf(running.runner!);
    await cluster.kill(runner);
    const [first, second] = await Promise.all([one.done, two.done]);
    expect(second.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'message_dropped' });
    expect(texts(second.events)).toBe('');
    expect(first.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'interrupted' });
    expect(statusOf(thread.sessionId)).toBe('failed');
    const turns = turnsOf(thread.sessionId);
    expect(turns.filter((t) => t.message === 'First?')).toMatchObject([{ status: 'failed', code: 'interrupted' }]);
    expect(turns.filter((t) => t.message === 'Second?')).toEqual([]);
    expect(model.requests).toHaveLength(requests);
    await cluster.start(runner);
  }, 240_000);

  it('runs a message queued while the idle dispatcher is killed exactly once, on the survivor', async () => {
    const thread = await open();
    const { one, two } = await doubleText(thread, { text: 'First.', delayMs: SLOW }, [{ text: 'Second.' }]);
    const [running] = turnsOf(thread.sessionId).filter((t) => t.message === 'First?');
    const survivor = slotOf(running.runner!);
    const idle = cluster.dispatchers.find((d) => d !== survivor)!;
    await cluster.kill(idle);
    const [first, second] = await Promise.all([one.done, two.done]);
    expect(texts(first.events)).toBe('First.');
    expect(texts(second.events)).toBe('Second.');
    const ranSecond = turnsOf(thread.sessionId).filter((t) => t.message === 'Second?');
    expect(ranSecond).toHaveLength(1);
    expect(ranSecond[0]).toMatchObject({ status: 'awaiting_input', runner: running.runner });
    await cluster.start(idle);
    expect(cluster.dispatchers.flatMap((d) => d.crashes)).toEqual([]);
  }, 120_000);
});
