/**
 * The broker does not trust the worker: the dispatcher's turn runner (runQueuedTurn: the real broker over a real
 * SQLite document store and file object store) runs each turn in a real worker process started by the real
 * launcher. A forged worker entry (test/fixtures/forged-worker.ts) speaks the channel by hand and sends one forged
 * report per turn: a state that does not exist, an overwritten `trigger`, a decision trail entry, a turn ended
 * `queued`, a forbidden tool. Each is refused with `workflow_violation` naming the rule, logged as a `[worker]
 * refused` line, the turn and session end failed, and nothing of the report (nor anything the worker sends after
 * it) is recorded. An honest report over the same forged channel is recorded (the positive control). A turn's hook
 * (the real worker program) reaches no broker operation even when it knows the turn's id.
 * Source: docs/decisions.md D17 § 4; spec/platform-service.md § Rules 6, § Operational log lines ([worker]).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../../core/adapters/fs-objects/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { runQueuedTurn, type TurnRunnerDeps } from '../../core/session/turn-runner.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { WorkerLauncher } from '../../core/ports/worker.ts';
import { sessionCollections } from '../../core/session/model.ts';
import {
  insertSession,
  insertTurn,
  sessionsOf,
  turnsOf,
  type SessionStoreDeps,
} from '../../core/session/session-store.ts';
import type { WorkflowView } from '../../core/session/workflow-view.ts';
import { repoRoot, roomyLimits, testLauncher } from '../fixtures/worker-launcher.ts';
import { brokerState } from '../helpers/broker-workflow.ts';

const forgedEntry = join(repoRoot, 'test/fixtures/forged-worker.ts');
const state = brokerState;
const base = {
  agentPrompt: 'p',
  disabled: false,
  promptCache: false,
  skills: [],
  callable: {},
  limits: { childDepth: 2, childConcurrency: 2, turnSeconds: 60, modelCallsPerTurn: 5 },
};
const analyst: WorkflowView = {
  ...base,
  slug: 'analyst',
  tools: { allowAlways: [], forbidAlways: [{ tool: 'semantic/request_improvement' }] },
  states: {
    ask: state('ask', {
      triggers: ['manual'],
      tools: { allow: [{ tool: 'semantic' }], forbid: [] },
      transitions: [{ to: 'review', description: 'Written.' }],
    }),
    review: state('review', { type: 'human', transitions: [{ to: 'done', description: 'Approve.' }] }),
    done: state('done'),
  },
};
const hookSource = `export default async (input) => {
  try {
    await platform.call('turn.checkpoint', [input.variables.turn_id, { variables: { written_by_hook: true } }]);
    return { variables: { hook: 'reached the turn' } };
  } catch (error) {
    return { variables: { hook: error.code } };
  }
}`;
const hooked: WorkflowView = {
  ...base,
  slug: 'hooked',
  tools: { allowAlways: [], forbidAlways: [] },
  states: {
    gate: state('gate', {
      type: 'human',
      triggers: ['manual'],
      before: [{ name: 'hooks/gate.js', source: hookSource, threshold: 0.7 }],
      transitions: [{ to: 'done', description: 'Go.' }],
    }),
    done: state('done'),
  },
};
const relocking: WorkflowView = {
  ...hooked,
  slug: 'relocking',
  states: {
    ...hooked.states,
    gate: {
      ...hooked.states.gate,
      before: [
        {
          name: 'hooks/relock.js',
          source: 'export default { variables: { trigger: { id: "hook" } } }',
          threshold: 0.7,
        },
      ],
    },
  },
};
const views: Record<string, WorkflowView> = { analyst, hooked, relocking };

let dir: string;
let docs: DocumentStore;
let store: SessionStoreDeps;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cairn-forged-worker-'));
  docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
  store = { docs, objects: createFsObjectStore({ root: join(dir, 'objects') }), clock: systemClock, ids: cryptoIds };
});
afterAll(async () => {
  await docs?.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs one queued turn of a new session of `workflow` through the real turn runner; `entryFile` forges the worker. */
async function runTurn(workflow: string, message: string, entryFile?: string) {
  const entry = Object.values(views[workflow].states).find((s) => s.triggers.length > 0)!.slug;
  const session = await insertSession(store, {
    orgId: 'o1',
    agentId: 'a1',
    environment: 'main',
    workflow,
    buildId: 'b1',
    commitId: 'c1',
    state: entry,
    trigger: 'manual',
    variables: { region: 'EU', trigger: { id: 'manual', arguments: { region: 'EU' } } },
    lockedVariables: ['region', 'trigger'],
    depth: 0,
    inheritedForbid: [],
  });
  const turn = await insertTurn(store, session, { kind: 'prompt', input: { message } });
  await sessionsOf(store).updateOne({ _id: session._id }, { $set: { 'variables.turn_id': turn._id } });
  const before = await sessionsOf(store).findOne({ _id: session._id });
  const { launcher: real, lines } = testLauncher();
  const launcher: WorkerLauncher = {
    reserve: (kind, signal) => real.reserve(kind, signal),
    run: (options) => real.run({ ...options, ...(entryFile ? { entryFile } : {}) }),
  };
  const toolCalls: unknown[] = [];
  const deps: TurnRunnerDeps = {
    ...store,
    launcher,
    limits: roomyLimits,
    instanceId: 'test-dispatcher',
    costOf: () => 0,
    promptCache: { enabled: false, ttl: '5m' },
    models: {
      stream: () => {
        throw new PlatformError('model_unavailable', 'no model call is expected in this test');
      },
    },
    catalog: {
      tools: async () => [
        { collection: 'semantic', name: 'request_improvement', description: 'd', inputSchema: { type: 'object' } },
      ],
      call: async (collection, name, input) => (
        toolCalls.push({ collection, name, input }),
        { output: 'answered', isError: false }
      ),
    },
    workflowOf: async (_build, slug) => views[slug],
    log: (line) => lines.push(line),
  };
  await runQueuedTurn(deps, turn._id);
  return {
    lines,
    toolCalls,
    before: before!,
    turnId: turn._id,
    session: (await sessionsOf(store).findOne({ _id: session._id }))!,
    turn: (await turnsOf(store).findOne({ _id: turn._id }))!,
    messages: await docs.collection(sessionCollections.messages).countDocuments({ sessionId: session._id }),
  };
}

describe('a forged turn worker', () => {
  it.each([
    ['nonexistent-state', 'turn.checkpoint', 'state_exists'],
    ['overwrite-trigger', 'turn.checkpoint', 'locked_variable'],
    ['decision-trail', 'turn.checkpoint', 'decision_from_decide'],
    ['end-queued', 'turn.endTurn', 'reachable_outcome'],
    ['forbidden-tool', 'turn.callTool', 'tool_rules'],
  ])(
    'sending %s is refused (%s, rule %s), the turn ends failed and nothing of it is recorded',
    async (forgery, op, rule) => {
      const run = await runTurn('analyst', forgery, forgedEntry);
      const error = { code: 'workflow_violation', message: expect.stringContaining(`(rule ${rule})`) };
      expect(run.turn).toMatchObject({ status: 'failed', error });
      expect(run.session).toMatchObject({ status: 'failed', error, state: 'ask', pending: null, messageCount: 0 });
      expect(run.session.variables).toEqual(run.before.variables);
      expect(run.session.trail).toEqual(run.before.trail);
      expect(run.session.visit).toEqual(run.before.visit);
      expect(run.messages).toBe(0);
      expect(run.toolCalls).toEqual([]);
      expect(run.lines).toContain(`[worker] refused ${op} for turn ${run.turnId}: it breaks the workflow rule ${rule}`);
      expect(run.lines.join('\n')).not.toMatch(/ceo@example\.com|forged/);
      // The refusal stopped the forged worker: it sent nothing the broker took after it.
      expect(run.lines).toContainEqual(
        expect.stringMatching(
          new RegExp(`^\\[worker\\] ended turn worker \\d+ for turn ${run.turnId} \\((signalled|finished)\\)$`),
        ),
      );
    },
    60_000,
  );

  it('sending honest reports over the same forged channel has them recorded (the positive control)', async () => {
    const run = await runTurn('analyst', 'honest', forgedEntry);
    expect(run.turn).toMatchObject({ status: 'failed', error: { code: 'raised', message: 'Given up honestly.' } });
    expect(run.session).toMatchObject({
      status: 'failed',
      state: 'ask',
      messageCount: 1,
      variables: { ...run.before.variables, after: 'the forgery' },
    });
    expect(run.messages).toBe(1);
    expect(run.lines.filter((line) => line.includes('refused'))).toEqual([]);
  }, 60_000);
});

describe("a turn's hook", () => {
  it("reaches no broker operation, even knowing its turn's id: nothing it asked for is recorded", async () => {
    const run = await runTurn('hooked', 'go');
    expect(run.turn).toMatchObject({ status: 'awaiting_decision' });
    expect(run.session.variables).toMatchObject({ hook: 'operation_refused' });
    expect(run.session.variables).not.toHaveProperty('written_by_hook');
    expect(run.lines.filter((line) => line.includes('refused'))).toEqual([]);
  }, 60_000);

  it('setting a locked variable fails the hook, naming it, and trigger is kept', async () => {
    const run = await runTurn('relocking', 'go');
    expect(run.turn).toMatchObject({
      status: 'failed',
      error: { code: 'hook_failed', message: 'Hook hooks/relock.js may not set trigger: locked (set by the firing).' },
    });
    expect(run.session.variables).toEqual(run.before.variables);
  }, 60_000);
});
