/**
 * The deployment wiring: which environment and reason a succeeded operation reconciles (a promotion reconciles
 * its target), and the desired deployments of an environment's published build, read through the stores (its
 * connections, the offered collections, and an MCP tool the endpoint cannot list with the endpoint's message).
 * Source: spec/platform-service.md § Trigger deployment, § Errors (mcp trigger declaring a file entry).
 */
import { describe, expect, it } from 'vitest';
import { readPublishedAgent } from '../agent/hosting.ts';
import { agentCollections } from '../agent/hosting-model.ts';
import { connectionCollections } from '../connection/model.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { reconciliationAfter } from '../deployment/index.ts';
import { desiredOfEnvironment, offeredCollectionsOf } from './deployment-wiring.ts';
import { mcpToolsOf } from '../connection/mcp-tools.ts';

const op = (kind: 'publish' | 'restore' | 'discard' | 'promote', status: 'succeeded' | 'failed' = 'succeeded') => ({
  kind,
  status,
  agentId: 'a1',
  environment: 'main',
  input: kind === 'promote' ? { to: 'prod' } : {},
});

describe('the reconciliation after an environment operation', () => {
  it(
    "is the environment's for a publish or restore, the target's for a promotion, and none for a discard or a " +
      'failure',
    () => {
      expect(reconciliationAfter(op('publish'))).toEqual({
        env: { agentId: 'a1', environment: 'main' },
        reason: 'publish',
      });
      expect(reconciliationAfter(op('restore'))).toEqual({
        env: { agentId: 'a1', environment: 'main' },
        reason: 'restore',
      });
      expect(reconciliationAfter(op('promote'))).toEqual({
        env: { agentId: 'a1', environment: 'prod' },
        reason: 'promotion',
      });
      expect(reconciliationAfter(op('discard'))).toBeUndefined();
      expect(reconciliationAfter(op('publish', 'failed'))).toBeUndefined();
    },
  );
});

describe('the desired deployments of an environment', () => {
  const workflow = (triggers: string) => `title: T\nstates:\n  start:\n    title: Start\n    triggers:\n${triggers}`;
  const agent = readPublishedAgent({
    files: [
      { path: 'AGENTS.md', text: 'You help.' },
      {
        path: 'workflows/ask/workflow.yaml',
        text: workflow(
          '      ask-tool:\n        type: mcp\n        connection: tools\n        requires:\n          - name: ' +
            'doc\n            type: file\n',
        ),
      },
      {
        path: 'workflows/poll/workflow.yaml',
        text: workflow('      rows:\n        type: polling\n        collection: semantic\n        tool: q\n'),
      },
    ] as never,
  });
  const builds = {
    agentOf: async () => agent,
    workflowOf: async () => {
      throw new Error('not used');
    },
  };

  it("are none while nothing is published, and otherwise carry each trigger's problem", async () => {
    const docs = createMemoryDocumentStore();
    const envs = docs.collection(agentCollections.environments);
    await envs.insertOne({ _id: 'a1:main', agentId: 'a1', name: 'main', published: null } as never);
    const parts = {
      docs,
      builds,
      offeredCollections: offeredCollectionsOf({ services: [{ id: 'semantic' }] as never }),
    };
    expect(await desiredOfEnvironment(parts, { agentId: 'a1', environment: 'main' })).toEqual({
      buildId: null,
      desired: [],
    });

    await envs.updateOne({ _id: 'a1:main' }, { $set: { published: { buildId: 'b1' } } });
    await docs.collection(connectionCollections.connections).insertOne(
      { _id: 'a1:main:tools', agentId: 'a1', environment: 'main', identifier: 'tools', protocol: 'mcp' } as never,
    );
    const plan = await desiredOfEnvironment(parts, { agentId: 'a1', environment: 'main' });
    expect(plan.buildId).toBe('b1');
    expect(plan.desired).toEqual([
      {
        workflow: 'ask',
        trigger: 'ask-tool',
        type: 'mcp',
        connection: 'tools',
        problem: mcpToolsOf(agent, 'tools').unlisted[0].message,
      },
      { workflow: 'poll', trigger: 'rows', type: 'polling', connection: null, problem: null },
    ]);
    expect(plan.desired[0].problem).toContain('declares the file entries doc');
  });
});
