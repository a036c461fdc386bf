/**
 * A dispatcher with PLATFORM_WORKER_HOST sends its turn workers to a real worker host: the API (dev-user
 * sign-in, SQLite, file object store, real Redis), a dispatcher on its stores, a worker host, and the
 * scripted model server. A session's turn runs in a worker started by the host (its `[worker-host]` lines),
 * reaching platform data and the model only through the dispatcher's broker over TLS (the dispatcher logs
 * the same `[worker] ended …` line with the host's worker id), and parks for input as it would locally.
 * Source: spec/platform-service.md § Rules 6, 10; § Deployment settings (PLATFORM_WORKER_HOST, _KEY).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startDispatcher, type RunningDispatcher } from '../helpers/dispatcher-process.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';
import { startScriptedModelServer, type ScriptedModelServer, scriptedModels } from '../helpers/scripted-model-server.ts';
import { hostKey, startTestWorkerHost, until, type TestWorkerHost } from './worker-host-process.ts';

let redis: RunningRedis;
let model: ScriptedModelServer;
let api: RunningApi;
let host: TestWorkerHost;
let dispatcher: RunningDispatcher;
const cairn = (...args: string[]) => runProcess(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), '--url', api.url, ...args], { env: { PATH: process.env.PATH! } });

beforeAll(async () => {
  redis = await startRedis();
  model = await startScriptedModelServer([{ text: 'Which period do you mean?', toolCalls: [{ name: 'platform_wait', arguments: { reason: 'Which period?' } }] }]);
  const config = JSON.stringify({ models: scriptedModels(model, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }) });
  api = await startApi(redis.url, { PLATFORM_CONFIG: config });
  host = await startTestWorkerHost();
  dispatcher = await startDispatcher(api, redis.url, { PLATFORM_CONFIG: config, PLATFORM_WORKER_HOST: `127.0.0.1:${host.port}`, PLATFORM_WORKER_HOST_KEY: hostKey.toString('base64') });
  const imported = await cairn('agent', 'import', join(repoRoot, 'scripts/demo/agent'), '--agent', 'flights-analyst', '--publish');
  if (imported.status !== 0) throw new Error(`cairn agent import failed: ${imported.stderr}${imported.stdout}`);
}, 180_000);

afterAll(async () => {
  await dispatcher?.stop();
  await host?.stop();
  await api?.stop();
  await model?.close();
  await redis?.stop();
});

describe('a dispatcher with PLATFORM_WORKER_HOST', () => {
  it('runs a session turn in a worker on the host, its broker answering over TLS', async () => {
    const started = await cairn('session', 'start', 'flights-analyst', 'flights-analyst', '--env', 'main', '--trigger', 'chat', '--message', 'Which airline had the most cancelled flights?');
    expect(started.status, started.stderr).toBe(0);
    const id = started.stdout.trim().split(/\s+/).pop()!;
    const shown = await cairn('session', 'show', id, '--wait');
    expect(shown.status, `${shown.stderr}\n${dispatcher.output().slice(-3000)}\n${host.lines.join('\n')}`).toBe(0);
    expect(shown.stdout).toContain('status: awaiting_input  state: answer');
    expect(shown.stdout).toMatch(/^ {2}assistant: Which period do you mean\?$/m);
    await until(() => /\[worker\] ended turn worker \d+ for turn \S+ \(finished\)/.test(dispatcher.output()));
    const [, pid, turn] = /\[worker\] ended turn worker (\d+) for turn (\S+) \(finished\)/.exec(dispatcher.output())!;
    expect(host.lines).toContain(`[worker-host] started turn worker ${pid} for turn ${turn}`);
    await until(() => host.lines.includes(`[worker-host] ended turn worker ${pid} for turn ${turn} (finished)`));
    expect(host.lines).toContain(`[worker-host] ended turn worker ${pid} for turn ${turn} (finished)`);
    expect(model.requests.length).toBeGreaterThan(0);
  });
});
