/**
 * A chat whose turn stays quiet for longer than the API's idle timeout (30 s) still ends with RUN_FINISHED: the
 * stream's request has no idle timeout at the API and carries an SSE comment every 15 s (bins/api/agui-routes.ts).
 * Before, the stream was reset after 30.0 s with neither RUN_FINISHED nor RUN_ERROR (found by the chaos test).
 *
 * Source: spec/platform-service.md § AG-UI request, § Stream and custom events; docs/architecture.md § Life of a turn.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChaosCluster, type ChaosCluster } from '../helpers/chaos-cluster.ts';
import { runChat } from '../helpers/chaos-load.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { scriptedModels, startScriptedModelServer } from '../helpers/scripted-model-server.ts';

describe('a quiet AG-UI stream', () => {
  let redis: RunningRedis;
  let model: Awaited<ReturnType<typeof startScriptedModelServer>>;
  let cluster: ChaosCluster;
  let path = '';

  beforeAll(async () => {
    redis = await startRedis();
    model = await startScriptedModelServer([{ text: 'thought about it', delayMs: 40_000 }, { text: 'hi' }]);
    const config = JSON.stringify({ models: scriptedModels(model) });
    cluster = await startChaosCluster({ queueUrl: redis.url, apis: 1, dispatchers: 1, env: { PLATFORM_CONFIG: config } });
    const cairn = async (...args: string[]) => {
      const main = join(repoRoot, 'bins/cairn/main.ts');
      const run = await runProcess(bunPath, [main, '--url', cluster.apis[0].url, ...args], {
        env: { PATH: process.env.PATH! },
      });
      if (run.status !== 0) throw new Error(run.stderr);
      return run.stdout;
    };
    await cairn('agent', 'import', join(repoRoot, 'test/fixtures/agents/front'), '--agent', 'front', '--publish');
    const created = await cairn('connection', 'create', '--agent', 'front', '--env', 'main', '--id', 'front',
      '--protocol', 'agui', '--auth', 'public', '--json');
    path = new URL((JSON.parse(created) as { url: string }).url).pathname;
  }, 180_000);

  afterAll(async () => {
    await cluster?.stop();
    await model?.close();
    await redis?.stop();
  });

  it('ends with RUN_FINISHED after a model call that answers in 40 s (reset at 30 s before)', async () => {
    const started = Date.now();
    const chat = await runChat(cluster.apis, path, 'hello');
    console.log(`[quiet-agui-stream] ${JSON.stringify(chat)} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    expect(chat.end).toBe('finished');
  }, 180_000);
});
