import { describe, expect, it } from 'vitest';
import { agentCollections } from '../agent/hosting-model.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import type { ConnectionRecord } from './model.ts';
import { sessionCollections } from '../session/model.ts';
import { claimTurn, sessionsOf, turnsOf } from '../session/session-store.ts';
import { settleTurn } from '../session/turn-settle.ts';
import { createMemorySessionChanges } from '../testing/memory-session-changes.ts';
import { createChangeWatch } from '../session/change-watch.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { callMcpTool, servedTools } from './mcp-calls.ts';

const mcpTrigger = (workflow: string, fields: Record<string, unknown>) => ({
  id: `${workflow}-ask`,
  type: 'mcp' as const,
  workflow,
  state: 'answer',
  fields: { connection: 'assistant', ...fields },
});
const agentWith = (
  workflows: { slug: string; disabled?: boolean; fields: Record<string, unknown> }[],
): PublishedAgent => ({
  agentPrompt: '',
  skills: {},
  workflows: Object.fromEntries(
    workflows.map((
      w,
    ) => [w.slug, {
      slug: w.slug,
      definition: { disabled: w.disabled } as never,
      hooks: {},
      triggers: [mcpTrigger(w.slug, w.fields)],
    }]),
  ),
});
const connection = {
  _id: 'a1:main:assistant',
  agentId: 'a1',
  orgId: 'o1',
  environment: 'main',
  identifier: 'assistant',
  protocol: 'mcp',
} as ConnectionRecord;
const requires = [{ name: 'question', type: 'string' }];

async function world(agent: PublishedAgent) {
  let n = 0;
  const docs = createMemoryDocumentStore();
  await docs.collection(agentCollections.environments).insertOne(
    { _id: 'a1:main', agentId: 'a1', orgId: 'o1', name: 'main', published: { buildId: 'b1', commitId: 'c1' } } as never,
  );
  const slept: number[] = [];
  const deps = {
    docs,
    objects: createMemoryObjectStore(),
    clock: systemClock,
    ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    enqueueTurn: async () => undefined,
    sleep: async (ms: number) => {
      slept.push(ms);
    },
    builds: {
      agentOf: async () => agent,
      workflowOf: async () => {
        throw new Error('unused');
      },
    },
    waitMs: 1_000,
    pollMs: 200,
  };
  return { deps, slept };
}

describe('MCP tool calls', () => {
  it('leave out a trigger declaring a file entry, saying why', async () => {
    const w = await world(
      agentWith([{ slug: 'lookup', fields: { requires } }, {
        slug: 'scan',
        fields: { requires: [{ name: 'doc', type: 'file' }] },
      }]),
    );
    const served = await servedTools(w.deps, connection);
    expect(served.tools.map((t) => t.name)).toEqual(['lookup']);
    expect(served.unlisted).toEqual([{
      workflow: 'scan',
      trigger: 'scan-ask',
      message: expect.stringMatching(/file entries doc/),
    }]);
  });

  it(
    'answer running with the session id when the turn does not settle ' + 'within the bound (polled every 200 ms)',
    async () => {
      const w = await world(agentWith([{ slug: 'lookup', fields: { requires } }]));
      const result = await callMcpTool(w.deps, connection, await servedTools(w.deps, connection), {
        name: 'lookup',
        args: { question: 'q' },
        callerKind: 'token',
      });
      expect(result.structuredContent).toMatchObject({ status: 'running', sessionId: expect.any(String) });
      expect(w.slept).toEqual([200, 200, 200, 200, 200]);
      expect(await sessionsOf(w.deps).findOne({})).toMatchObject({
        variables: { question: 'q', trigger: { type: 'mcp', connection: 'assistant', caller: 'token' } },
        lockedVariables: ['question', 'trigger'],
      });
    },
  );

  it('answer a workflow out of service or a reached spend cap with a tool error and open no session', async () => {
    const disabled = await world(agentWith([{ slug: 'lookup', disabled: true, fields: { requires } }]));
    const off = await callMcpTool(disabled.deps, connection, await servedTools(disabled.deps, connection), {
      name: 'lookup',
      args: { question: 'q' },
      callerKind: 'token',
    });
    expect(off).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/out of service/) }] });
    const capped = await world(agentWith([{ slug: 'lookup', fields: { requires } }]));
    await capped.deps.docs.collection(sessionCollections.spendCaps).insertOne(
      {
        _id: 'a1:main:lookup:month',
        agentId: 'a1',
        environment: 'main',
        workflow: 'lookup',
        period: 'month',
        limitUsd: 0,
      } as never,
    );
    const cap = await callMcpTool(capped.deps, connection, await servedTools(capped.deps, connection), {
      name: 'lookup',
      args: { question: 'q' },
      callerKind: 'token',
    });
    expect(cap).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/spend cap/) }] });
    expect(await sessionsOf(disabled.deps).countDocuments({}) + await sessionsOf(capped.deps).countDocuments({})).toBe(
      0,
    );
  });
});

describe('MCP tool calls waiting on change notifications', () => {
  it('answer once the turn settles, woken by its notification, with no poll', async () => {
    const w = await world(agentWith([{ slug: 'lookup', fields: { requires } }]));
    const hub = createMemorySessionChanges();
    const deps = {
      ...w.deps,
      waitMs: 600_000,
      watch: createChangeWatch({ docs: w.deps.docs, changes: hub, safetyMs: 0 }),
      sleep: async () => {
        throw new Error('a call with a watch never sleeps');
      },
    };
    const served = await servedTools(deps, connection);
    const call = callMcpTool(deps, connection, served, {
      name: 'lookup',
      args: { question: 'q' },
      callerKind: 'token',
    });
    while (hub.watchers() === 0) await new Promise((resolve) => setImmediate(resolve));
    const session = (await sessionsOf(deps).findOne({}))!;
    const turn = (await turnsOf(deps).findOne({ sessionId: session._id }))!;
    await claimTurn(deps, turn._id, 'test');
    await settleTurn(deps, turn, { status: 'succeeded' });
    hub.changed(session._id);
    expect((await call).structuredContent).toMatchObject({ status: 'succeeded', sessionId: session._id });
    expect(hub.watchers()).toBe(0);
  });
});
