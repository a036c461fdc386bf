/**
 * Part 2 of scripts/bench-runtime: one whole turn of a one-state workflow (claim, worker start, load over the
 * channel, one model call made by the broker through the `ai` package to the scripted model server, checkpoint,
 * settle, worker exit) against the same model call alone (the same ModelProvider, no worker, no stores), and a
 * trivial hook through the launcher (QuickJS loaded, one broker round trip), against a bare `node -e 0` start, N runs
 * each, interleaved in one run, for this checkout and the baseline revision (./bench-runtime-revisions.ts). Stores
 * are the in-memory ports, so the difference is the runtime's own cost. Where a turn's time goes is timed by
 * wrappers around the ports the turn runner is given (./bench-runtime-phases.ts): nothing of the product pays for it.
 *
 * Source: docs/decisions.md D7 § Done when (scripts/bench-runtime prints a full scripted-model turn against the model
 * call alone); targets: turn runtime ≤ 1 bare start, trivial hook ≤ 1.5.
 */
import { spawn } from 'node:child_process';
import { createAiModelProvider } from '../core/adapters/models/ai-model-provider.ts';
import { cryptoIds, systemClock } from '../core/adapters/runtime/system.ts';
import type { WorkflowView } from '../core/session/workflow-view.ts';
import { startScriptedModelServer } from '../test/helpers/scripted-model-server.ts';
import { fmt } from './lib/bench-stats.ts';
import { newTrace, recordInto, tracedDocs, tracedLauncher, tracedModels, turnPhases } from './bench-runtime-phases.ts';
import type { RuntimeRevision } from './bench-runtime-revisions.ts';

const settings = { nodeEnv: 'production', appVersion: 'bench', promptCache: false, promptCacheTtl: '5m', allowPrivateUrls: false } as const;
const agentState = { tools: { allow: [], forbid: [] }, requires: [], budget: {}, before: [], after: [] };
const workflow: WorkflowView = {
  slug: 'bench', agentPrompt: 'You answer briefly.', disabled: false, promptCache: false, skills: [], callable: {},
  limits: { childDepth: 1, childConcurrency: 1, turnSeconds: 60, modelCallsPerTurn: 5 }, tools: { allowAlways: [], forbidAlways: [] },
  states: {
    ask: { slug: 'ask', type: 'agent', triggers: ['manual'], transitions: [{ to: 'done', description: 'Answered.' }], ...agentState },
    done: { slug: 'done', type: 'agent', triggers: [], transitions: [], ...agentState },
  },
};
const limits = { memoryMb: 512, wallTimeSeconds: 60 };
const trivialHook = { source: 'export default async (input) => ({ input, answer: await platform.call("bench.ping") })', input: 1 };

/** Median of `ms`. */
const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)] ?? Number.NaN;

/** Spawn to exit of a bare `node -e 0`, in milliseconds. */
function bareStart(node: string): Promise<number> {
  const t0 = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(node, ['-e', '0'], { stdio: 'ignore', env: {} });
    child.on('error', fail);
    child.on('close', () => done(performance.now() - t0));
  });
}

type Models = ReturnType<typeof createAiModelProvider>;

/** What one revision's runs give: turn ms, runtime ms, hook ms and phases per turn. */
interface Figures { turns: number[]; runtimes: number[]; hooks: number[]; plain: number[]; phases: [string, number][][]; counts: string }

/** A revision ready to run turns and hooks: its traced launcher over its own in-memory stores. */
function setUp(revision: RuntimeRevision, models: Models, modelsConfig: unknown) {
  const m = revision.modules;
  const environment = (kind: string, mb: number) => m.workerEnvironment(settings, { kind, memoryLimitMb: mb });
  const store = { docs: tracedDocs(m.createMemoryDocumentStore()), objects: m.createMemoryObjectStore(), clock: systemClock, ids: cryptoIds };
  const launcher = m.createWorkerLauncher({ program: revision.program, environment, slots: { turn: 1, call: 1 }, log: () => undefined });
  const deps = {
    ...store, launcher: tracedLauncher(launcher), models: tracedModels(models), costOf: m.turnCost(modelsConfig), instanceId: 'bench',
    promptCache: { enabled: false, ttl: '5m' as const }, limits,
    catalog: { tools: async () => [], call: async () => ({ output: '', isError: true }) }, workflowOf: async () => workflow,
  };
  const figures: Figures = { turns: [], runtimes: [], hooks: [], plain: [], phases: [], counts: '' };
  const turn = async () => {
    const session = await m.insertSession(store, { orgId: 'o', agentId: 'a', environment: 'main', workflow: 'bench', buildId: 'b', commitId: 'c', state: 'ask', variables: {}, lockedVariables: [], trigger: 'manual', depth: 0, inheritedForbid: [] });
    const queued = await m.insertTurn(store, session, { kind: 'prompt', input: { message: 'What is six times seven?' } });
    const trace = newTrace();
    recordInto(trace);
    revision.traced?.on();
    try {
      await m.runQueuedTurn(deps, queued._id);
    } finally {
      revision.traced?.off();
    }
    trace.end = performance.now();
    recordInto(undefined);
    const settled = await m.turnsOf(store).findOne({ _id: queued._id });
    if (settled?.status !== 'awaiting_input') throw new Error(`the bench turn ended ${settled?.status}: ${JSON.stringify(settled?.error)}`);
    const phases = turnPhases(trace);
    figures.turns.push(trace.end - trace.start);
    figures.runtimes.push(trace.end - trace.start - trace.modelMs);
    figures.phases.push(phases.phases);
    figures.counts = `${phases.requests} broker requests, ${phases.writes} store writes and ${phases.reads} reads per turn`;
  };
  // A delivery into a terminal state without instructions: no model call, no hook (D24 § 2: no worker since then).
  const plain = async () => {
    const session = await m.insertSession(store, { orgId: 'o', agentId: 'a', environment: 'main', workflow: 'bench', buildId: 'b', commitId: 'c', state: 'done', variables: {}, lockedVariables: [], trigger: 'manual', depth: 0, inheritedForbid: [] });
    const queued = await m.insertTurn(store, session, { kind: 'delivery', input: { message: '{"order":7}' } });
    const t0 = performance.now();
    await m.runQueuedTurn(deps, queued._id);
    figures.plain.push(performance.now() - t0);
    const settled = await m.turnsOf(store).findOne({ _id: queued._id });
    if (settled?.status !== 'succeeded') throw new Error(`the terminal turn ended ${settled?.status}`);
  };
  const hook = async () => {
    const t0 = performance.now();
    const outcome = await launcher.run({ kind: 'call', subject: 'hook bench', task: 'hook', payload: trivialHook, limits, broker: async () => 'pong' });
    if (outcome.ended !== 'finished') throw new Error(`the hook did not finish: ${JSON.stringify(outcome)}`);
    figures.hooks.push(performance.now() - t0);
  };
  return { launcher, figures, turn, hook, plain };
}

/** Prints the phases of each revision (median ms of each, and its share of the bare start). */
function printPhases(revisions: RuntimeRevision[], all: Figures[], bare: number): void {
  console.log(`\n  where a turn's time goes (median ms of each phase; share of the bare start ${bare.toFixed(1)} ms)`);
  console.log(`  ${'phase'.padEnd(70)}${revisions.map((r) => `${r.label.padStart(23)}  share`).join('')}`);
  const names = all[0].phases[0]?.map(([name]) => name) ?? [];
  names.forEach((name, i) => {
    const cells = all.map((f) => {
      const ms = median(f.phases.map((p) => p[i]?.[1] ?? Number.NaN));
      return `${fmt(ms).padStart(23)} ${(ms / bare).toFixed(2).padStart(6)}`;
    });
    console.log(`  ${name.padEnd(70)}${cells.join('')}`);
  });
  all.forEach((f, i) => console.log(`  ${revisions[i].label}: ${f.counts}`));
}

/**
 * Runs part 2 for `revisions` (this checkout first, then the baseline if any), `runs` times each, interleaved;
 * prints the table, the phases and the targets as same-run ratios. `node` is the bare start's runtime.
 */
export async function benchTurn(revisions: RuntimeRevision[], runs: number, node: string): Promise<void> {
  const answers = Array.from({ length: runs * 2 * revisions.length + 4 }, () => ({ text: 'Forty-two.', usage: { promptTokens: 40, completionTokens: 3 } }));
  const model = await startScriptedModelServer(answers);
  const modelsConfig = { providers: [{ id: 'scripted', type: 'openai-compatible' as const, apiBaseUrl: model.baseUrl }], offered: [{ id: 'bench-model', provider: 'scripted', prices: { input: 3, output: 15 } }] };
  const models = createAiModelProvider({ models: modelsConfig, maxRetries: 0 });
  const setups = revisions.map((r) => setUp(r, models, modelsConfig));
  for (const setup of setups) await setup.launcher.sandbox();
  const modelAlone = async () => {
    const t0 = performance.now();
    for await (const event of models.stream({ messages: [{ role: 'system', content: 'You answer briefly.' }, { role: 'user', content: 'What is six times seven?' }], promptCache: { enabled: false, ttl: '5m' } })) void event;
    return performance.now() - t0;
  };
  await modelAlone();
  for (const setup of setups) { // warm-up: page cache, bundles, the model server's connection
    await setup.turn();
    await setup.hook();
    await setup.plain();
    Object.assign(setup.figures, { turns: [], runtimes: [], hooks: [], plain: [], phases: [] });
  }
  const alone: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    bare.push(await bareStart(node));
    alone.push(await modelAlone());
    for (const setup of i % 2 === 0 ? setups : [...setups].reverse()) {
      await setup.turn();
      await setup.hook();
      await setup.plain();
    }
  }
  await model.close();
  const b = median(bare);
  const all = setups.map((s) => s.figures);
  const cell = (text: string) => text.padStart(30);
  const row = (label: string, values: string[]) => console.log(`${label.padEnd(72)}${values.map(cell).join('')}`);
  const ms = (values: (f: Figures) => number[]) => all.map((f) => fmt(median(values(f))));
  const per = (values: (f: Figures) => number[]) => all.map((f) => `${(median(values(f)) / b).toFixed(2)}×`);
  console.log(`\n2. a full scripted-model turn and a trivial hook against a bare node start, ${runs} runs each, interleaved (median ms)`);
  row('what', revisions.map((r) => `${r.label} (${r.programName === 'dist/worker' ? 'compiled' : 'sources'})`));
  row('bare node -e 0: spawn → exit (this run)', revisions.map(() => fmt(b)));
  row('model call alone (ai package → scripted server, streamed)', revisions.map(() => fmt(median(alone))));
  row('whole turn', ms((f) => f.turns));
  row('  runtime (turn − its model call inside it)', ms((f) => f.runtimes));
  row('trivial hook through the launcher (QuickJS, one broker round trip)', ms((f) => f.hooks));
  row('a turn with nothing to sandbox (terminal entry, no model call, no hook)', ms((f) => f.plain));
  printPhases(revisions, all, b);
  console.log('\n  targets, as same-run ratios to the bare start ');
  row('  turn runtime / bare start (target ≤ 1)', per((f) => f.runtimes));
  row('  trivial hook / bare start (target ≤ 1.5)', per((f) => f.hooks));
  row('  a turn with nothing to sandbox / bare start', per((f) => f.plain));
}
