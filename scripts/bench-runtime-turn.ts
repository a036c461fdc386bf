/**
 * Part 2 of scripts/bench-runtime: one whole turn of a one-state workflow (claim, worker start, load over the
 * channel, one model call made by the broker through the `ai` package to the scripted model server, checkpoint,
 * settle, worker exit) against the same model call alone (the same ModelProvider, no worker, no stores), N runs
 * each, in one run. Stores are the in-memory ports, so the difference is the runtime's own cost.
 *
 * Source: docs/decisions.md D7 § Done when (scripts/bench-runtime prints a full scripted-model turn against the model
 * call alone).
 */
import { createAiModelProvider } from '../core/adapters/models/ai-model-provider.ts';
import { cryptoIds, systemClock } from '../core/adapters/runtime/system.ts';
import { createWorkerLauncher, type WorkerProgram } from '../core/adapters/worker/index.ts';
import { runQueuedTurn } from '../core/session/turn-runner.ts';
import { turnCost } from '../core/boot/turn-cost.ts';
import { workerEnvironment } from '../core/config/worker-environment.ts';
import { insertSession, insertTurn, turnsOf } from '../core/session/session-store.ts';
import type { WorkflowView } from '../core/session/workflow-view.ts';
import { createMemoryDocumentStore } from '../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../core/testing/memory-object-store.ts';
import { startScriptedModelServer } from '../test/helpers/scripted-model-server.ts';
import { fmt } from './lib/bench-stats.ts';

const settings = { nodeEnv: 'production', appVersion: 'bench', promptCache: false, promptCacheTtl: '5m', allowPrivateUrls: false } as const;
const workflow: WorkflowView = {
  slug: 'bench', agentPrompt: 'You answer briefly.', disabled: false, promptCache: false, skills: [], callable: {},
  limits: { childDepth: 1, childConcurrency: 1, turnSeconds: 60, modelCallsPerTurn: 5 }, tools: { allowAlways: [], forbidAlways: [] },
  states: {
    ask: { slug: 'ask', type: 'agent', triggers: ['manual'], transitions: [{ to: 'done', description: 'Answered.' }], tools: { allow: [], forbid: [] }, requires: [], budget: {}, before: [], after: [] },
    done: { slug: 'done', type: 'agent', triggers: [], transitions: [], tools: { allow: [], forbid: [] }, requires: [], budget: {}, before: [], after: [] },
  },
};

function summary(ms: number[]): { median: number; p90: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], p90: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)] };
}

/** Runs part 2 with `program` (the worker the dispatcher would start), `runs` times each; prints the table. */
export async function benchTurn(program: WorkerProgram, programName: string, runs: number): Promise<void> {
  const answers = Array.from({ length: runs * 2 + 2 }, () => ({ text: 'Forty-two.', usage: { promptTokens: 40, completionTokens: 3 } }));
  const model = await startScriptedModelServer(answers);
  const modelsConfig = { providers: [{ id: 'scripted', type: 'openai-compatible' as const, apiBaseUrl: model.baseUrl }], offered: [{ id: 'bench-model', provider: 'scripted', prices: { input: 3, output: 15 } }] };
  const models = createAiModelProvider({ models: modelsConfig, maxRetries: 0 });
  const store = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore(), clock: systemClock, ids: cryptoIds };
  const launcher = createWorkerLauncher({ program, environment: (kind, mb) => workerEnvironment(settings, { kind, memoryLimitMb: mb }), slots: { turn: 1, call: 1 }, log: () => undefined });
  const deps = {
    ...store, launcher, models, costOf: turnCost(modelsConfig), instanceId: 'bench', promptCache: { enabled: false, ttl: '5m' as const }, limits: { memoryMb: 512, wallTimeSeconds: 60 },
    catalog: { tools: async () => [], call: async () => ({ output: '', isError: true }) }, workflowOf: async () => workflow,
  };
  const modelAlone = async () => {
    const t0 = performance.now();
    for await (const event of models.stream({ messages: [{ role: 'system', content: 'You answer briefly.' }, { role: 'user', content: 'What is six times seven?' }], promptCache: { enabled: false, ttl: '5m' } })) void event;
    return performance.now() - t0;
  };
  const wholeTurn = async () => {
    const session = await insertSession(store, { orgId: 'o', agentId: 'a', environment: 'main', workflow: 'bench', buildId: 'b', commitId: 'c', state: 'ask', variables: {}, lockedVariables: [], trigger: 'manual', depth: 0, inheritedForbid: [] });
    const turn = await insertTurn(store, session, { kind: 'prompt', input: { message: 'What is six times seven?' } });
    const t0 = performance.now();
    await runQueuedTurn(deps, turn._id);
    const ms = performance.now() - t0;
    const settled = await turnsOf(store).findOne({ _id: turn._id });
    if (settled?.status !== 'awaiting_input') throw new Error(`the bench turn ended ${settled?.status}: ${JSON.stringify(settled?.error)}`);
    return ms;
  };
  await modelAlone();
  await wholeTurn();
  const alone: number[] = [];
  const turns: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    alone.push(await modelAlone());
    turns.push(await wholeTurn());
  }
  await model.close();
  const a = summary(alone);
  const t = summary(turns);
  console.log(`\n2. a full scripted-model turn against the model call alone, ${runs} runs each (ms; ratio = median / model call median)`);
  console.log(`${'what'.padEnd(72)}  median       p90   ratio`);
  console.log(`${'model call alone (ai package → scripted server, streamed)'.padEnd(72)}${fmt(a.median)}  ${fmt(a.p90)}    1.00`);
  console.log(`${`whole turn, ${programName}`.padEnd(72)}${fmt(t.median)}  ${fmt(t.p90)}  ${(t.median / a.median).toFixed(2).padStart(6)}`);
  console.log(`${'  of which the runtime (turn − model call)'.padEnd(72)}${fmt(t.median - a.median)}`);
}
