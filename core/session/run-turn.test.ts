import { describe, expect, it } from 'vitest';
import { storeTurns } from '../../test/helpers/store-turns.ts';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from '../ports/model-provider.ts';
import { sessionsOf, turnsOf } from './session-store.ts';
import { decideSession, replySession, showSession } from './sessions.ts';
import type { SessionDeps } from './session-access.ts';
import { setSpendCap } from './spend-cap-setting.ts';
import { startSession } from './session-start.ts';
import type { StateView, WorkflowView } from './workflow-view.ts';

const state = (slug: string, fields: Partial<StateView> = {}): StateView => ({
  slug,
  type: 'agent',
  transitions: [],
  tools: { allow: [], forbid: [] },
  requires: [],
  budget: {},
  before: [],
  after: [],
  triggers: [],
  ...fields,
});
const base = {
  agentPrompt: 'You are a test agent.',
  disabled: false,
  promptCache: true,
  limits: { childDepth: 2, childConcurrency: 2, turnSeconds: 60, modelCallsPerTurn: 20 },
  skills: [],
};
const lookup: WorkflowView = {
  ...base,
  slug: 'lookup',
  tools: { allowAlways: [], forbidAlways: [] },
  callable: {},
  states: {
    find: state('find', {
      triggers: ['manual'],
      transitions: [{ to: 'found', description: 'The count is set.' }],
      requires: ['count'],
    }),
    found: state('found'),
  },
};
const analyst: WorkflowView = {
  ...base,
  slug: 'analyst',
  tools: {
    allowAlways: [{ tool: 'semantic' }, { tool: 'platform_workflow_lookup' }],
    forbidAlways: [{ tool: 'semantic/request_improvement' }],
  },
  callable: {
    lookup: {
      slug: 'lookup',
      description: 'Counts flights of an airline.',
      parameters: [{ name: 'airline', type: 'string' }],
      returns: ['count'],
      entry: 'find',
      trigger: 'manual',
    },
  },
  states: {
    answer: state('answer', {
      triggers: ['manual'],
      requires: ['answer'],
      transitions: [{ to: 'review', description: 'The answer is written.' }],
    }),
    review: state('review', {
      type: 'human',
      transitions: [{ to: 'done', description: 'Approve.' }, { to: 'answer', description: 'Send back.' }],
    }),
    done: state('done'),
  },
};

type Reply = { text?: string; calls?: [string, unknown][] };
/** A ModelProvider fake (a port): answers each call from a script chosen by the active state in the system prompt. */
function scriptedModel(script: Record<string, Reply[]>, seen: ModelRequest[]): ModelProvider {
  return {
    async *stream(request): AsyncIterable<ModelEvent> {
      seen.push(request);
      const system = request.messages[0].role === 'system' ? request.messages[0].content : '';
      const key = /# Current step: (\S+)/.exec(system)?.[1] ?? '';
      const reply = script[key]?.shift();
      if (!reply) throw new PlatformError('model_unavailable', `no scripted reply for ${key}`);
      if (reply.text) yield { type: 'text', text: reply.text };
      for (const [i, [name, input]] of (reply.calls ?? []).entries()) {
        yield { type: 'tool-call', call: { id: `${key}-${seen.length}-${i}`, name, input } };
      }
      yield {
        type: 'finish',
        reason: reply.calls ? 'tool-calls' : 'stop',
        usage: { inputTokens: 1000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 },
      };
    },
  };
}

function setup(
  script: Record<string, Reply[]>,
  views: Record<string, WorkflowView> = { analyst, lookup },
  catalog: { readOnlyQueries?: boolean } = {},
) {
  const seen: ModelRequest[] = [];
  const toolCalls: unknown[] = [];
  const turns = storeTurns({
    views,
    models: scriptedModel(script, seen),
    clock: systemClock,
    host: {
      costOf: (_m, u) => (u.inputTokens * 3 + u.outputTokens * 15) / 1e6,
      serviceTools: async () => [{
        collection: 'semantic',
        name: 'execute_query',
        description: 'Runs SQL.',
        inputSchema: { type: 'object' },
        ...(catalog.readOnlyQueries ? { readOnly: true } : {}),
      }, { collection: 'semantic', name: 'request_improvement', description: 'x', inputSchema: { type: 'object' } }],
      callServiceTool: async (call) => {
        toolCalls.push(call);
        return { output: { rows: [['AA', 412]] }, isError: false };
      },
      promptCache: { enabled: true, ttl: '5m' },
    },
  });
  const { deps, queue, runQueued, claimQueued } = turns;
  return { deps, queue, seen, toolCalls, runQueued, claimQueued, docs: turns.store.docs };
}

const caller = { subject: 'u1', email: 'u1@example.test' };
/** The lookup child's one reply: it sets the count and moves to found. */
const countFound: Reply = {
  calls: [['platform_set_variables', { variables: { count: 5 } }], ['platform_advance', { to: 'found', reason: 'ok' }]],
};
/** Starts an analyst session asking which airline. */
const askAnalyst = (deps: SessionDeps) =>
  startSession(deps, caller, { agent: 'a', environment: 'main', workflow: 'analyst', message: 'Which airline?' });

describe('the turn engine', () => {
  it(
    'runs a session through a tool call, a child session, a wait, a decision, and ends succeeded with its trail, ' +
      'usage and cost',
    async () => {
      const t = setup({
        answer: [
          { calls: [['semantic__execute_query', { sql: 'SELECT 1' }]] },
          { calls: [['platform_workflow_lookup', { airline: 'AA' }]] },
          { text: 'Which month?', calls: [['platform_wait', { reason: 'Which month?' }]] },
          {
            text: 'AA had 412.',
            calls: [['platform_set_variables', { variables: { answer: 'AA 412' } }], ['platform_advance', {
              to: 'review',
              reason: 'written',
            }]],
          },
        ],
        find: [countFound],
      });
      const { session } = await askAnalyst(t.deps);
      expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input' });
      expect(t.toolCalls).toEqual([{ collection: 'semantic', name: 'execute_query', input: { sql: 'SELECT 1' } }]);
      expect(t.seen[0].tools?.map((tool) => tool.name)).toEqual([
        'platform_advance',
        'platform_wait',
        'platform_raise',
        'platform_set_variables',
        'platform_get_variables',
        'semantic__execute_query',
        'platform_workflow_lookup',
      ]);
      const child = (await sessionsOf(t.deps).find({ parentId: session._id }))[0];
      expect(child).toMatchObject({
        status: 'succeeded',
        dispatchId: '1',
        depth: 1,
        state: 'found',
        variables: { airline: 'AA', count: 5 },
      });

      await replySession(t.deps, caller, session._id, 'January');
      expect(await t.runQueued()).toMatchObject({ status: 'awaiting_decision' });
      await decideSession(t.deps, caller, session._id, { to: 'done', comment: 'Looks right.' });
      await expect(decideSession(t.deps, caller, session._id, { to: 'answer' })).rejects.toMatchObject({
        code: 'no_decision_pending',
        status: 409,
      });
      expect(t.queue).toHaveLength(1);
      expect(await t.runQueued()).toMatchObject({ status: 'succeeded' });

      const shown = await showSession(t.deps, caller, session._id);
      expect(shown.session.status).toBe('succeeded');
      expect(shown.session.trail.map((e) => [e.state, e.via])).toEqual([['answer', 'start'], ['review', 'advance'], [
        'done',
        'decision',
      ]]);
      expect(shown.session.trail[2]).toMatchObject({ by: 'u1', note: 'Looks right.' });
      expect(shown.session.usage).toMatchObject({ modelCalls: 4, inputTokens: 4000, outputTokens: 400 });
      expect(shown.session.usage.costUsd).toBeCloseTo(4 * (3000 + 1500) / 1e6, 10);
      expect(shown.turns.map((turn) => [turn.kind, turn.status])).toEqual([['prompt', 'awaiting_input'], [
        'reply',
        'awaiting_decision',
      ], ['decision', 'succeeded']]);
      expect(shown.children.map((c) => c.dispatchId)).toEqual(['1']);
      const toolMessage = shown.messages.find((m) =>
        m.message.role === 'tool' && m.message.results[0].name === 'platform_workflow_lookup'
      );
      expect(toolMessage?.message).toMatchObject({ results: [{ output: { message: '', returns: { count: 5 } } }] });
    },
  );

  it("surfaces a child's decision on its parent, decides it there, and numbers a second dispatch 2", async () => {
    const reviewing: WorkflowView = {
      ...lookup,
      states: {
        find: state('find', { triggers: ['manual'], transitions: [{ to: 'check', description: 'Ask a person.' }] }),
        check: state('check', { type: 'human', transitions: [{ to: 'found', description: 'OK.' }] }),
        found: state('found'),
      },
    };
    const t = setup({
      answer: [
        { calls: [['platform_workflow_lookup', { airline: 'AA' }]] },
        { calls: [['platform_workflow_lookup', { airline: 'BA' }]] },
        {
          text: 'done',
          calls: [['platform_set_variables', { variables: { answer: 'x' } }], ['platform_advance', {
            to: 'review',
            reason: 'r',
          }]],
        },
      ],
      find: [{ calls: [['platform_advance', { to: 'check', reason: 'r' }]] }, {
        calls: [['platform_advance', { to: 'check', reason: 'r' }]],
      }],
    }, { analyst, lookup: reviewing });
    const { session } = await startSession(t.deps, caller, {
      agent: 'a',
      environment: 'main',
      workflow: 'analyst',
      message: 'go',
    });
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_decision' });
    const parked = await sessionsOf(t.deps).findOne({ _id: session._id });
    expect(parked?.pending).toMatchObject({
      kind: 'decision',
      state: 'check',
      dispatchId: '1',
      options: [{ to: 'found' }],
    });
    await decideSession(t.deps, caller, session._id, { to: 'found' });
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_decision' });
    expect((await sessionsOf(t.deps).findOne({ _id: session._id }))?.pending).toMatchObject({
      dispatchId: '2',
      state: 'check',
    });
    await decideSession(t.deps, caller, session._id, { to: 'found' });
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_decision' });
    expect((await sessionsOf(t.deps).findOne({ _id: session._id }))?.pending).toMatchObject({ state: 'review' });
    expect((await sessionsOf(t.deps).find({ parentId: session._id })).map((c) => [c.dispatchId, c.status])).toEqual([[
      '1',
      'succeeded',
    ], ['2', 'succeeded']]);
  });

  it("answers an evaluation session's service calls from its mocks alone, its children are marked too", async () => {
    const t = setup({
      answer: [
        {
          calls: [
            ['semantic__execute_query', { sql: 'SELECT 1', limit: 5 }],
            ['semantic__execute_query', { sql: 'SELECT 2' }],
            ['platform_workflow_lookup', { airline: 'AA' }],
          ],
        },
        { text: 'Done.', calls: [['platform_wait', { reason: 'Anything else?' }]] },
      ],
      find: [countFound],
    });
    const { session } = await askAnalyst(t.deps);
    const mocks = [{ tool: 'semantic/execute_query', input: { sql: 'SELECT 1' }, result: { rows: [['DL', 9]] } }];
    await sessionsOf(t.deps).updateOne({ _id: session._id }, {
      $set: { evaluation: { runId: 'ev-1', caseId: 'analyst/one', mocks } },
    });
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input' });
    // No call reached the service: the matching one got the mock's result, the other was refused saying why.
    expect(t.toolCalls).toEqual([]);
    const shown = await showSession(t.deps, caller, session._id);
    const results = shown.messages.flatMap((m) => (m.message.role === 'tool' ? m.message.results : []));
    expect(results[0]).toMatchObject({ output: { rows: [['DL', 9]] }, isError: false });
    expect(results[1]).toMatchObject({ isError: true });
    expect(String(results[1]!.output)).toContain('semantic/execute_query was not called: an evaluation answers');
    const child = (await sessionsOf(t.deps).find({ parentId: session._id }))[0]!;
    expect(child.evaluation).toEqual({ runId: 'ev-1', caseId: 'analyst/one', mocks });
  });

  it("lets an evaluation's unmocked call reach a service only for a read-only tool or a live mock", async () => {
    const t = setup(
      {
        answer: [
          {
            calls: [
              ['semantic__execute_query', { sql: 'SELECT 3' }],
              ['semantic__request_improvement', { note: 'unmocked' }],
              ['semantic__request_improvement', { note: 'live' }],
            ],
          },
          { text: 'Done.', calls: [['platform_wait', { reason: 'Anything else?' }]] },
        ],
      },
      { analyst: { ...analyst, tools: { ...analyst.tools, forbidAlways: [] } }, lookup },
      { readOnlyQueries: true },
    );
    const { session } = await askAnalyst(t.deps);
    const mocks = [{ tool: 'semantic/request_improvement', input: { note: 'live' }, live: true as const }];
    await sessionsOf(t.deps).updateOne({ _id: session._id }, {
      $set: { evaluation: { runId: 'ev-1', caseId: 'analyst/one', mocks } },
    });
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input' });
    // The read-only query and the live mock's call reached the service; the unmocked write was refused.
    expect(t.toolCalls).toEqual([
      { collection: 'semantic', name: 'execute_query', input: { sql: 'SELECT 3' } },
      { collection: 'semantic', name: 'request_improvement', input: { note: 'live' } },
    ]);
    const shown = await showSession(t.deps, caller, session._id);
    const results = shown.messages.flatMap((m) => (m.message.role === 'tool' ? m.message.results : []));
    expect(results[1]).toMatchObject({ isError: true });
    expect(String(results[1]!.output)).toContain('semantic/request_improvement was not called');
    expect(String(results[1]!.output)).toContain('live: true');
  });

  it("takes a call's model and prompt cache from the workflow's state, whatever the worker asks", async () => {
    const cached = { ...analyst, model: 'small-v1', promptCache: false };
    const t = setup({ answer: [{ text: 'Hi.' }, { text: 'Hi.' }] }, { analyst: cached, lookup });
    await askAnalyst(t.deps);
    const { turnId, host } = await t.claimQueued();
    const forged = { messages: [{ role: 'system' as const, content: '# Current step: answer' }], tools: [] };
    await host.callModel(turnId, { ...forged, model: 'unpriced-large', promptCache: { enabled: true, ttl: '1h' } });
    await host.callModel(turnId, { ...forged, promptCache: { enabled: true, ttl: '1h' } });
    expect(t.seen.map((r) => [r.model, r.promptCache])).toEqual([
      ['small-v1', { enabled: false, ttl: '5m' }],
      ['small-v1', { enabled: false, ttl: '5m' }],
    ]);
  });

  it('refuses a turn once a spend cap is reached, naming the period', async () => {
    // A call reserves its bound (50 output tokens here) before it runs; the scripted usage then passes the cap.
    const t = setup({ answer: [{ text: 'Hello.' }] }, {
      analyst: { ...analyst, limits: { ...analyst.limits, outputTokensPerCall: 50 } },
      lookup,
    });
    await setSpendCap(t.deps, caller, { agent: 'a', environment: 'main', workflow: 'analyst' }, {
      period: 'week',
      limitUsd: 0.003,
    });
    const { session } = await startSession(t.deps, caller, {
      agent: 'a',
      environment: 'main',
      workflow: 'analyst',
      message: 'hi',
    });
    expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input' });
    await expect(replySession(t.deps, caller, session._id, 'more')).rejects.toMatchObject({
      code: 'spend_cap_reached',
      status: 429,
      message: expect.stringContaining('week (from Monday, UTC)'),
    });
    await expect(startSession(t.deps, caller, { agent: 'a', environment: 'main', workflow: 'analyst' })).rejects
      .toMatchObject({ code: 'spend_cap_reached' });
    expect(await turnsOf(t.deps).countDocuments({})).toBe(1);
  });
});

describe('platform_wait (docs/decisions.md D17 § 6)', () => {
  const waiting: WorkflowView = {
    ...lookup,
    slug: 'waiting',
    states: {
      ask: state('ask', { triggers: ['manual'], transitions: [{ to: 'done', description: 'Loaded.' }] }),
      done: state('done'),
    },
  };
  const resultsOf = async (t: ReturnType<typeof setup>, sessionId: string) =>
    (
      await showSession(t.deps, caller, sessionId)
    ).messages
      .flatMap((m) => (m.message.role === 'tool' ? m.message.results : []));

  it(
    'refuses an until already past or not a time (tool error), so the wait never resumes at every sweep; ' +
      'a future until parks',
    async () => {
      const future = new Date(Date.now() + 3_600_000).toISOString();
      const t = setup({
        ask: [
          { calls: [['platform_wait', { reason: 'Nightly load', until: '2020-01-01T00:00:00Z' }]] },
          { calls: [['platform_wait', { reason: 'Nightly load', until: 'tomorrow' }]] },
          { calls: [['platform_wait', { reason: 'Nightly load', until: future }]] },
        ],
      }, { waiting });
      const { session } = await startSession(t.deps, caller, {
        agent: 'a',
        environment: 'main',
        workflow: 'waiting',
        message: 'Wait for the load.',
      });
      expect(await t.runQueued()).toMatchObject({ status: 'awaiting_input' });
      const results = await resultsOf(t, session._id);
      expect(results.map((r) => [r.isError === true, String(r.output)])).toEqual([
        [true, expect.stringMatching(/until \(2020-01-01T00:00:00\.000Z\) is already past; give a future time/)],
        [true, expect.stringMatching(/until must be an ISO time .* "tomorrow" is not/)],
        [false, 'Waiting for the reply.'],
      ]);
      expect((await sessionsOf(t.deps).findOne({ _id: session._id }))?.pending)
        .toMatchObject({ kind: 'input', until: future });
    },
  );

  it('gives budget.parks a default of 50 waits per visit', async () => {
    const t = setup({
      ask: [{ text: 'Still waiting?', calls: [['platform_wait', { reason: 'More input' }]] }, { text: 'Carrying on.' }],
    }, { waiting });
    const { session } = await startSession(t.deps, caller, {
      agent: 'a',
      environment: 'main',
      workflow: 'waiting',
      message: 'Go.',
    });
    await sessionsOf(t.deps).updateOne({ _id: session._id }, { $set: { 'visit.parks': 50 } });
    await t.runQueued();
    const [refused] = await resultsOf(t, session._id);
    expect(refused).toMatchObject({
      isError: true,
      output: 'This step may wait at most 50 times; carry on without waiting.',
    });
  });
});
