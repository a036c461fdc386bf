/**
 * Environment operations as queued work, on the in-memory fakes with the real isomorphic-git repository:
 * a request is checked at once (role, environment, input, queue store) and queued; a run claims it once
 * and ends it succeeded (with the environment after it) or failed (a refused publish keeps its located
 * problems); two operations on one agent run one after the other (its lock); the replacement rule fails
 * queued and running ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createObjectStoreGitRepo } from '../adapters/git/index.ts';
import { orgAgentAuthority } from '../boot/agent-authority.ts';
import { addMember, createGroup, createOrganization, ensureOrgIndexes, type OrgCaller } from '../org/index.ts';
import type { GitRepo } from '../ports/git-repo.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryLease } from '../testing/memory-lease.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import {
  agentCollections,
  type AgentDeps,
  type AgentRecord,
  builtinTemplate,
  createAgent,
  ensureAgentIndexes,
  failInterruptedOperations,
  type OperationRecord,
  readEnvironment,
  readOperation,
  requestOperation,
  runOperation,
  saveDraft,
} from './hosting.ts';

import { demo, invalidDemo, workflowPath } from '../../test/helpers/demo-agent-files.ts';
const owner: OrgCaller = { subject: 'sub-owner', email: 'owner@example.com', name: 'Olga Owner' };
const reader: OrgCaller = { subject: 'sub-reader', email: 'reader@example.com' };

const codeOf = (promise: Promise<unknown>) =>
  promise.then(() => 'no refusal', (e: { code?: string; status?: number }) => `${e.code} ${e.status}`);

/** A GitRepo that records when each call begins and ends, tagged with the operation running it. */
function tracedGit(git: GitRepo, events: string[], who: string): GitRepo {
  const trace =
    <A extends unknown[], R>(name: string, fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
      events.push(`${who} begins ${name}`);
      try {
        return await fn(...args);
      } finally {
        events.push(`${who} ends ${name}`);
      }
    };
  return {
    ...git,
    readFiles: trace('readFiles', git.readFiles.bind(git)),
    commit: trace('commit', git.commit.bind(git)),
  };
}

describe('environment operations', () => {
  let dir: string;
  let deps: AgentDeps;
  let agent: AgentRecord;
  let orgId: string;
  let tick = 0;
  const queued: string[] = [];
  const enqueue = async (id: string) => {
    queued.push(id);
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-operations-'));
    const docs = createMemoryDocumentStore();
    const objects = createMemoryObjectStore();
    let n = 0;
    queued.length = 0;
    deps = {
      docs,
      objects,
      lease: createMemoryLease(),
      git: createObjectStoreGitRepo({ objectStore: objects, scratchDir: join(dir, 'scratch') }),
      clock: { now: () => new Date(Date.UTC(2026, 10, 23, 10, 0, tick++)) },
      ids: {
        newId: () => `id${(n += 1)}`,
        randomBytes: (k) => new Uint8Array(k),
        sha256Hex: async () => '0'.repeat(64),
      },
      authority: orgAgentAuthority({ docs }),
      template: async () => builtinTemplate(),
      wait: (ms) => new Promise((r) => setTimeout(r, ms)),
    };
    await ensureOrgIndexes(docs);
    await ensureAgentIndexes(docs);
    orgId = (await createOrganization(deps, owner, 'Acme'))._id;
    agent = await createAgent(deps, owner, { orgId, slug: 'analyst' });
    await saveDraft(deps, owner, { agentId: agent._id, envName: 'main', change: { files: demo, replace: true } });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('checks a request at once and queues it; without a queue store it answers 503 and records nothing', async () => {
    const group = await createGroup(deps, orgId, { name: 'Readers', agentRoles: [{ agent: '*', role: 'reader' }] });
    await addMember(deps, orgId, reader, [group._id]);
    expect(
      await codeOf(
        requestOperation(deps, reader, {
          agentId: agent._id,
          envName: 'main',
          request: { kind: 'publish', input: {} },
          enqueue,
        }),
      ),
    )
      .toBe('agent_role_required 403');
    expect(
      await codeOf(
        requestOperation(deps, owner, {
          agentId: agent._id,
          envName: 'nope',
          request: { kind: 'publish', input: {} },
          enqueue,
        }),
      ),
    )
      .toBe('environment_not_found 404');
    expect(
      await codeOf(
        requestOperation(deps, owner, {
          agentId: agent._id,
          envName: 'main',
          request: { kind: 'promote', input: { to: 'main' } },
          enqueue,
        }),
      ),
    ).toBe('invalid_argument 400');
    expect(
      await codeOf(
        requestOperation(deps, owner, {
          agentId: agent._id,
          envName: 'main',
          request: { kind: 'publish', input: {} },
          enqueue: undefined,
        }),
      ),
    )
      .toBe('queue_unavailable 503');
    expect(await deps.docs.collection(agentCollections.operations).find({})).toEqual([]);
    const op = await requestOperation(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      request: {
        kind: 'promote',
        input: { to: 'staging', buildId: 'ignored' },
      },
      enqueue,
    });
    expect(op).toMatchObject({
      kind: 'promote',
      input: { to: 'staging' },
      status: 'queued',
      environment: 'main',
      requestedBy: { email: owner.email },
      startedAt: null,
    });
    expect(queued).toEqual([op._id]);
    expect((await readOperation(deps, reader, agent._id, op._id)).status).toBe('queued');
    expect(await codeOf(readOperation(deps, reader, agent._id, 'no-such-operation'))).toBe('operation_not_found 404');
  });

  it('runs a publish once: it ends succeeded with the environment after it; a second run claims nothing', async () => {
    const op = await requestOperation(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      request: { kind: 'publish', input: {} },
      enqueue,
    });
    const ended = await runOperation(deps, op._id);
    expect(ended).toMatchObject({
      status: 'succeeded',
      error: null,
      result: {
        name: 'main',
        published: { counts: { workflows: 2, states: 10, triggers: 5, skills: 1, tests: 2 }, publishedBy: owner.email },
      },
    });
    expect(ended!.startedAt!.getTime()).toBeLessThan(ended!.endedAt!.getTime());
    expect((await readEnvironment(deps, owner, agent._id, 'main')).published?.buildId).toBe(
      ended!.result!.published!.buildId,
    );
    expect(await runOperation(deps, op._id)).toBeUndefined();
  });

  it('runs again an operation its stopped dispatcher left running (its job handed on), once', async () => {
    const op = await requestOperation(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      request: { kind: 'publish', input: {} },
      enqueue,
    });
    // The dispatcher that claimed it stopped before it ended: the record says running, nothing was published.
    const ops = deps.docs.collection<OperationRecord>(agentCollections.operations);
    await ops.updateOne({ _id: op._id }, { $set: { status: 'running', startedAt: deps.clock.now() } });
    const ended = await runOperation(deps, op._id);
    expect(ended).toMatchObject({ status: 'succeeded', error: null });
    expect((await readEnvironment(deps, owner, agent._id, 'main')).published?.buildId).toBe(
      ended!.result!.published!.buildId,
    );
    expect(await runOperation(deps, op._id)).toBeUndefined();
  });

  it('ends a refused publish failed with every problem located, and the published pointer unchanged', async () => {
    await saveDraft(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      change: { files: invalidDemo, replace: true },
    });
    const op = await requestOperation(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      request: { kind: 'publish', input: {} },
      enqueue,
    });
    const ended = await runOperation(deps, op._id);
    expect(ended).toMatchObject({ status: 'failed', result: null, error: { code: 'agent_invalid' } });
    expect(ended!.error!.problems).toEqual([
      expect.objectContaining({
        file: workflowPath,
        line: 1,
        column: 1,
        key: '/titel',
        text: expect.stringMatching(/^workflows\/flights-analyst\/workflow\.yaml:1:1 \/titel: unknown key "titel"/),
      }),
    ]);
    expect((await readEnvironment(deps, owner, agent._id, 'main')).published).toBeNull();
  });

  it('runs two operations on one agent one after the other (the agent lock), both succeeding', async () => {
    const events: string[] = [];
    const publish = await requestOperation(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      request: { kind: 'publish', input: {} },
      enqueue,
    });
    const restore = await requestOperation(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      request: { kind: 'restore', input: {} },
      enqueue,
    });
    await runOperation(deps, publish._id);
    const again = await requestOperation(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      request: { kind: 'publish', input: {} },
      enqueue,
    });
    const first = runOperation({ ...deps, git: tracedGit(deps.git, events, 'restore') }, restore._id);
    const second = runOperation({ ...deps, git: tracedGit(deps.git, events, 'publish') }, again._id);
    const ended = await Promise.all([first, second]);
    expect(ended.map((o) => o?.status)).toEqual(['succeeded', 'succeeded']);
    const owners = events.map((e) => e.split(' ')[0]);
    const switches = owners.filter((who, i) => i > 0 && who !== owners[i - 1]).length;
    expect(events.length).toBeGreaterThan(2);
    expect(switches).toBe(1);
  });

  it(
    'fails queued and running operations on replacement (run it again), ' + 'leaving ended ones and those queued since',
    async () => {
      const ops = deps.docs.collection<OperationRecord>(agentCollections.operations);
      const a = await requestOperation(deps, owner, {
        agentId: agent._id,
        envName: 'main',
        request: { kind: 'publish', input: {} },
        enqueue,
      });
      const b = await requestOperation(deps, owner, {
        agentId: agent._id,
        envName: 'main',
        request: { kind: 'discard', input: {} },
        enqueue,
      });
      await ops.updateOne({ _id: b._id }, { $set: { status: 'running', startedAt: deps.clock.now() } });
      const c = await requestOperation(deps, owner, {
        agentId: agent._id,
        envName: 'main',
        request: { kind: 'publish', input: {} },
        enqueue,
      });
      await runOperation(deps, c._id);
      const cutoff = deps.clock.now();
      const d = await requestOperation(deps, owner, {
        agentId: agent._id,
        envName: 'main',
        request: { kind: 'publish', input: {} },
        enqueue,
      });
      expect(await failInterruptedOperations(deps, cutoff)).toBe(2);
      const interrupted = {
        status: 'failed',
        error: { code: 'interrupted', message: 'The operation was interrupted by a platform restart; run it again.' },
      };
      expect(await ops.findOne({ _id: a._id })).toMatchObject(interrupted);
      expect(await ops.findOne({ _id: b._id })).toMatchObject(interrupted);
      expect(await ops.findOne({ _id: c._id })).toMatchObject({ status: 'succeeded' });
      expect(await ops.findOne({ _id: d._id })).toMatchObject({ status: 'queued' });
      expect(await runOperation(deps, a._id)).toBeUndefined();
    },
  );
});
