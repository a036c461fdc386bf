/**
 * The turn sweep in a real dispatcher with a shared queue store (no replacement table runs there): the real API and
 * dispatcher (Bun, SQLite, a real redis-server as the turn queue) run the demo agent against the scripted model
 * server. A session started while no dispatcher runs has its job in the queue store; the store then comes back
 * empty (FLUSHALL stands for a restart without its data). The next dispatcher's turn sweep (every 30 s, for queued
 * turns older than 30 s) queues the turn again under its own id, and the turn runs to its park.
 *
 * Source: docs/architecture.md § Life of a turn (what recovers after a crash); spec/platform-service.md § Rules 3.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startDispatcher as startDispatcherProcess, type RunningDispatcher } from '../helpers/dispatcher-process.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';
import {
  scriptedModels, startScriptedModelServer, type ScriptedModelServer,
} from '../helpers/scripted-model-server.ts';

let redis: RunningRedis;
let model: ScriptedModelServer;
let api: RunningApi;
let config: string;
const dispatchers: ChildProcess[] = [];
const cairn = (...args: string[]) => runProcess(
  bunPath, [join(repoRoot, 'bins/cairn/main.ts'), '--url', api.url, ...args], { env: { PATH: process.env.PATH! } },
);

/** A dispatcher on the API's stores (test/helpers/dispatcher-process.ts), killed after the tests if still running. */
async function startDispatcher(): Promise<RunningDispatcher> {
  const dispatcher = await startDispatcherProcess(api, redis.url, { PLATFORM_CONFIG: config });
  dispatchers.push(dispatcher.child);
  return dispatcher;
}


type Detail = { session: { status: string }; turns: { status: string }[] };
const detail = async (id: string) => (await fetch(`${api.url}/api/sessions/${id}`)).json() as Promise<Detail>;

beforeAll(async () => {
  redis = await startRedis();
  model = await startScriptedModelServer([
    { text: 'Which period?', toolCalls: [{ name: 'platform_wait', arguments: { reason: 'Which period?' } }] },
  ]);
  config = JSON.stringify({ models: scriptedModels(model) });
  api = await startApi(redis.url, { PLATFORM_CONFIG: config });
  const publisher = await startDispatcher();
  const demo = join(repoRoot, 'scripts/demo/agent');
  const imported = await cairn('agent', 'import', demo, '--agent', 'flights-analyst', '--publish');
  if (imported.status !== 0) throw new Error(`cairn agent import failed: ${imported.stderr}${imported.stdout}`);
  await publisher.stop();
}, 180_000);

afterAll(async () => {
  for (const child of dispatchers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await api?.stop();
  await model?.close();
  await redis?.stop();
});

describe('the turn sweep of a dispatcher on a shared queue store', () => {
  it('queues again a queued turn whose job the queue store lost, and the turn runs', async () => {
    const agent = 'flights-analyst';
    const run = await cairn('session', 'start', agent, agent, '--env', 'main', '--message', 'Hi');
    expect(run.status, run.stderr).toBe(0);
    const id = run.stdout.trim().split(/\s+/).pop()!;
    expect((await detail(id)).turns.map((t) => t.status)).toEqual(['queued']);
    redis.cli('flushall');

    const dispatcher = await startDispatcher();
    // The first sweep runs 30 s after the start; the turn is older than the 30 s grace by then.
    for (let i = 0; i < 900 && (await detail(id)).session.status === 'running'; i += 1) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const shown = await detail(id);
    expect(shown.turns.map((t) => t.status), dispatcher.output()).toEqual(['awaiting_input']);
    expect(shown.session.status).toBe('awaiting_input');
    expect(dispatcher.output()).toContain('queued 1 queued turn(s) again whose job the queue store lacked');
    expect(model.requests).toHaveLength(1);
  }, 150_000);
});
