/**
 * With no models section, a turn fails at once with a message naming the variables to set (the real `ai`-package
 * adapter, no network), and the session records it.
 */
import { describe, expect, it } from 'vitest';
import { createAiModelProvider } from '../../core/adapters/models/ai-model-provider.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { runTurn } from '../../core/session/run-turn.ts';
import { claimTurn, insertSession, insertTurn, sessionsOf } from '../../core/session/session-store.ts';
import { createStoreHost } from '../../core/session/store-host.ts';
import type { WorkflowView } from '../../core/session/workflow-view.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';

const state = { type: 'agent' as const, tools: { allow: [], forbid: [] }, requires: [], budget: {}, before: [], after: [], triggers: [] };
const workflow: WorkflowView = {
  slug: 'ask', agentPrompt: 'p', disabled: false, promptCache: true, skills: [], callable: {}, tools: { allowAlways: [], forbidAlways: [] },
  limits: { childDepth: 1, childConcurrency: 1, turnSeconds: 60, modelCallsPerTurn: 5 },
  states: { ask: { ...state, slug: 'ask', triggers: ['manual'], transitions: [{ to: 'done', description: 'd' }] }, done: { ...state, slug: 'done', transitions: [] } },
};

describe('a turn without a configured model', () => {
  it('fails at once, naming CAIRN_MODEL_* and the models section', async () => {
    const store = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore(), clock: systemClock, ids: cryptoIds };
    const session = await insertSession(store, { orgId: 'o', agentId: 'a', environment: 'main', workflow: 'ask', buildId: 'b', commitId: 'c', state: 'ask', variables: {}, lockedVariables: [], trigger: 'manual', depth: 0, inheritedForbid: [] });
    const turn = await insertTurn(store, session, { kind: 'prompt', input: { message: 'Hello?' } });
    await claimTurn(store, turn._id, 'test');
    const host = createStoreHost({
      ...store, models: createAiModelProvider({ models: undefined }), workflowOf: async () => workflow, costOf: () => 0,
      serviceTools: async () => [], callServiceTool: async () => ({ output: '', isError: true }), promptCache: { enabled: true, ttl: '5m' }, callSignal: () => undefined,
    }, turn._id);
    const outcome = await runTurn({ host, now: () => Date.now() }, turn._id);
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'model_not_configured', message: expect.stringMatching(/CAIRN_MODEL_PROVIDER.*CAIRN_MODEL_BASE_URL.*CAIRN_MODEL_API_KEY.*CAIRN_MODEL\b/s) } });
    expect(await sessionsOf(store).findOne({ _id: session._id })).toMatchObject({ status: 'failed', error: { code: 'model_not_configured' } });
  });
});
