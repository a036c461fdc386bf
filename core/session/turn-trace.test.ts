/**
 * A turn's trace and timeline as the dispatcher records them (./turn-trace.ts): a scripted turn (a model call asking
 * for a service tool, the tool call, a second model call) run by the real runner over the in-memory stores, its
 * worker a launcher port fake running the real engine in-process over the run's broker; an in-memory span exporter
 * registered here. Source: docs/decisions.md D25 (observability).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { WorkerSlots } from '../adapters/worker/slots.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from '../ports/model-provider.ts';
import type { WorkerLauncher, WorkerRunOptions } from '../ports/worker.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { runTurn } from './run-turn.ts';
import { insertSession, insertTurn, sessionsOf, turnsOf } from './session-store.ts';
import { type TurnContext, type TurnHost, turnHostMethods } from './turn-host.ts';
import { runQueuedTurn, type TurnRunnerDeps } from './turn-runner.ts';
import type { StateView, WorkflowView } from './workflow-view.ts';

const QUESTION = 'What is six times seven, secretly?';
const state = (slug: string, more: Partial<StateView> = {}): StateView => ({
  slug,
  type: 'agent',
  triggers: [],
  transitions: [],
  tools: { allow: [{ tool: 'svc/lookup' }], forbid: [] },
  requires: [],
  budget: {},
  before: [],
  after: [],
  ...more,
});
const workflow: WorkflowView = {
  slug: 'chat',
  agentPrompt: 'You answer briefly.',
  disabled: false,
  promptCache: false,
  skills: [],
  callable: {},
  limits: { childDepth: 1, childConcurrency: 1, turnSeconds: 60, modelCallsPerTurn: 5 },
  tools: { allowAlways: [], forbidAlways: [] },
  states: {
    ask: state('ask', { triggers: ['manual'], transitions: [{ to: 'done', description: 'Answered.' }] }),
    done: state('done'),
  },
};
const usage = { inputTokens: 10, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 0 };

/** A ModelProvider fake (a port): asks for svc/lookup when the thread has no tool result yet, then answers. */
const model: ModelProvider = {
  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    if ((request.tools ?? []).length > 0 && !request.messages.some((m) => m.role === 'tool')) {
      yield { type: 'tool-call', call: { id: 'call_1', name: 'svc__lookup', input: { q: 'six' } } };
      yield { type: 'finish', reason: 'tool-calls', usage };
      return;
    }
    yield { type: 'text', text: 'Forty-two.' };
    yield { type: 'finish', reason: 'stop', usage };
  },
};

/** A launcher (port fake): reports the worker's start and one hook, asks one refused operation, runs the engine. */
function inProcessLauncher(): WorkerLauncher {
  const slots = new WorkerSlots({ turn: 1, call: 1 });
  return {
    reserve: (kind, signal) => slots.reserve(kind, signal),
    run: (options: WorkerRunOptions) =>
      slots.runInSlot(options, async () => {
        options.onProgress?.({ kind: 'spawned' });
        options.onProgress?.({ kind: 'ready' });
        options.onProgress?.({ kind: 'hook', id: 1, ended: false });
        options.onProgress?.({ kind: 'hook', id: 1, ended: true });
        await options.broker('secrets.read', []).catch(() => undefined);
        const host = {} as Record<string, unknown>;
        for (const method of turnHostMethods) {
          host[method] = (...args: unknown[]) => options.broker(`turn.${method}`, args);
        }
        const { turnId, context: sent } = options.payload as { turnId: string; context?: TurnContext };
        const engine = { host: host as unknown as TurnHost, hooks: { run: async () => null }, now: () => Date.now() };
        return { ended: 'finished', result: await runTurn(engine, turnId, sent) };
      }),
  };
}

/** The stores, a session of workflow `chat` and the runner's deps; `seen` collects the span active in tool calls. */
async function setUp(more: Partial<TurnRunnerDeps> = {}) {
  let n = 0;
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '0',
  };
  const store = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore(), clock: systemClock, ids };
  const seen: (string | undefined)[] = [];
  const catalog = {
    tools:
      async () => [{ collection: 'svc', name: 'lookup', description: 'Looks up.', inputSchema: { type: 'object' } }],
    call: async () => {
      seen.push(trace.getActiveSpan()?.spanContext().spanId);
      return { output: 'found', isError: false };
    },
  };
  const deps = {
    ...store,
    launcher: inProcessLauncher(),
    models: model,
    costOf: () => 0.25,
    catalog,
    promptCache: { enabled: false, ttl: '5m' },
    limits: { memoryMb: 256, wallTimeSeconds: 60 },
    instanceId: 'dispatcher-1',
    workflowOf: async () => workflow,
    describeModel: () => ({ provider: 'anthropic', model: 'claude-test' }),
    ...more,
  } as unknown as TurnRunnerDeps;
  const session = await insertSession(store, {
    orgId: 'o1',
    agentId: 'a1',
    environment: 'main',
    workflow: 'chat',
    buildId: 'b1',
    commitId: 'c1',
    state: 'ask',
    variables: {},
    lockedVariables: [],
    trigger: 'manual',
    depth: 0,
    inheritedForbid: [],
  });
  return { store, deps, session, seen };
}

describe('a turn traced with an SDK registered', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const finished = async () => {
    await provider.forceFlush();
    return exporter.getFinishedSpans();
  };
  const named = (spans: ReadableSpan[], name: string) => spans.filter((s) => s.name === name);
  beforeEach(() => {
    exporter.reset();
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    trace.setGlobalTracerProvider(provider);
  });
  afterEach(() => {
    trace.disable();
    context.disable();
    propagation.disable();
  });

  it("continues the queuing request's trace: invoke_workflow holds the chat and execute_tool spans", async () => {
    const { store, deps, session, seen } = await setUp();
    const request = trace.getTracer('test').startSpan('POST /api/sessions');
    const queued = await context.with(
      trace.setSpan(context.active(), request),
      () => insertTurn(store, session, { kind: 'prompt', input: { message: QUESTION } }),
    );
    request.end();
    await runQueuedTurn(deps, queued._id);

    const spans = await finished();
    const [turnSpan] = named(spans, 'invoke_workflow chat');
    expect(turnSpan?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(turnSpan?.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(turnSpan?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_workflow',
      'gen_ai.conversation.id': session._id,
      'gen_ai.agent.id': 'a1',
      'cairn.environment': 'main',
      'cairn.workflow': 'chat',
      'cairn.state': 'ask',
      'cairn.org.id': 'o1',
      'cairn.turn.id': queued._id,
      'cairn.turn.kind': 'prompt',
      'cairn.turn.outcome': 'awaiting_input',
    });
    expect(turnSpan?.events.map((e) => [e.name, e.attributes])).toEqual([
      ['cairn.broker.refusal', { code: 'operation_refused' }],
    ]);
    const turnId = turnSpan!.spanContext().spanId;
    const chats = named(spans, 'chat claude-test');
    expect(chats).toHaveLength(2);
    for (const chat of chats) {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.parentSpanContext?.spanId).toBe(turnId);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'anthropic',
        'gen_ai.request.model': 'claude-test',
        'gen_ai.response.model': 'claude-test',
        'gen_ai.usage.input_tokens': 10,
        'gen_ai.usage.output_tokens': 2,
        'gen_ai.usage.cache_read.input_tokens': 3,
        'gen_ai.conversation.id': session._id,
        'cairn.cost.usd': 0.25,
      });
    }
    expect(chats.map((c) => c.attributes['gen_ai.response.finish_reasons'])).toEqual([['tool-calls'], ['stop']]);
    const [tool] = named(spans, 'execute_tool svc/lookup');
    expect(tool?.parentSpanContext?.spanId).toBe(turnId);
    expect(tool?.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'svc/lookup',
      'gen_ai.tool.call.id': 'call_1',
      'gen_ai.tool.type': 'extension',
    });
    expect(seen).toEqual([tool!.spanContext().spanId]);
    expect(named(spans, 'worker start')[0]?.parentSpanContext?.spanId).toBe(turnId);
    expect(named(spans, 'hook')[0]?.parentSpanContext?.spanId).toBe(turnId);
    expect(named(spans, 'queue wait')[0]?.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    // No message text by default.
    const texts = spans.flatMap((s) => Object.values(s.attributes)).map((v) => JSON.stringify(v));
    expect(texts.filter((t) => t.includes('six times') || t.includes('Forty-two'))).toEqual([]);
    expect(Object.keys(chats[0]!.attributes).filter((k) => k.endsWith('messages'))).toEqual([]);

    const settled = await turnsOf(store).findOne({ _id: queued._id });
    expect(settled?.span?.traceparent).toContain(turnId);
    expect((await sessionsOf(store).findOne({ _id: session._id }))?.lastTurnSpan).toEqual(settled?.span);
  });

  it("starts a turn after the first in a new trace linked to the previous turn's span", async () => {
    const { store, deps, session } = await setUp();
    const first = await insertTurn(store, session, { kind: 'prompt', input: { message: QUESTION } });
    await runQueuedTurn(deps, first._id);
    await sessionsOf(store).updateOne({ _id: session._id }, { $set: { status: 'running', pending: null } });
    const second = await insertTurn(store, session, { kind: 'reply', input: { message: 'And eight times?' } });
    await runQueuedTurn(deps, second._id);

    const turns = named(await finished(), 'invoke_workflow chat');
    expect(turns.map((s) => s.attributes['cairn.turn.id'])).toEqual([first._id, second._id]);
    const [one, two] = turns;
    expect(two!.spanContext().traceId).not.toBe(one!.spanContext().traceId);
    expect(two!.parentSpanContext).toBeUndefined();
    expect(two!.links.map((l) => l.context.spanId)).toEqual([one!.spanContext().spanId]);
    expect(one!.links).toEqual([]);
  });

  it('puts the messages on chat spans only when captureMessageContent is on', async () => {
    const { store, deps, session } = await setUp({ captureMessageContent: true });
    const queued = await insertTurn(store, session, { kind: 'prompt', input: { message: QUESTION } });
    await runQueuedTurn(deps, queued._id);

    const chats = named(await finished(), 'chat claude-test');
    const input = JSON.parse(String(chats[0]!.attributes['gen_ai.input.messages']));
    expect(input).toContainEqual({ role: 'user', parts: [{ type: 'text', content: QUESTION }] });
    expect(JSON.parse(String(chats[0]!.attributes['gen_ai.system_instructions']))[0].content).toContain('briefly');
    const output = JSON.parse(String(chats[1]!.attributes['gen_ai.output.messages']));
    expect(output).toEqual([{
      role: 'assistant',
      parts: [{ type: 'text', content: 'Forty-two.' }],
      finish_reason: 'stop',
    }]);
  });
});

describe('a turn with no SDK registered', () => {
  it('still writes its steps on the settled turn record, and no span', async () => {
    const { store, deps, session } = await setUp();
    const queued = await insertTurn(store, session, { kind: 'prompt', input: { message: QUESTION } });
    await runQueuedTurn(deps, queued._id);

    const settled = await turnsOf(store).findOne({ _id: queued._id });
    expect(settled?.status).toBe('awaiting_input');
    expect(settled?.steps?.map((s) => [s.kind, s.name])).toEqual([
      ['worker_start', 'turn worker'],
      ['hook', 'hook'],
      ['refusal', 'operation_refused'],
      ['model_call', 'claude-test'],
      ['tool_call', 'svc/lookup'],
      ['model_call', 'claude-test'],
    ]);
    expect(settled?.steps?.[3]).toMatchObject({ inputTokens: 10, outputTokens: 2, costUsd: 0.25 });
    for (const step of settled?.steps ?? []) {
      expect(step.atMs).toBeGreaterThanOrEqual(0);
      expect(step.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(settled?.stepsDropped).toBeUndefined();
    expect(settled?.span).toBeUndefined();
    expect(settled?.trace).toBeUndefined();
  });
});
