/**
 * Hosted-agent use cases on the in-memory fakes and on SQLite with the filesystem object store (both
 * through the real isomorphic-git repository in a scratch directory): create from the template, save,
 * publish refusing an invalid draft with located problems (published pointer unchanged), a valid publish
 * that later saves do not change, restore, discard, promote, and the role refusals.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsObjectStore } from '../adapters/fs-objects/index.ts';
import { createObjectStoreGitRepo } from '../adapters/git/index.ts';
import { openSqliteDocumentStore } from '../adapters/sqlite/index.ts';
import { orgAgentAuthority } from '../boot/agent-authority.ts';
import { addMember, createGroup, createOrganization, ensureOrgIndexes, type OrgCaller } from '../org/index.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryLease } from '../testing/memory-lease.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import {
  type AgentDeps,
  builtinTemplate,
  createAgent,
  discardDraft,
  ensureAgentIndexes,
  getAgent,
  listAgents,
  promoteEnvironment,
  publishEnvironment,
  readBuild,
  readEnvironment,
  restoreEnvironment,
  saveDraft,
} from './hosting.ts';
import { validateAgentRepository } from './validate.ts';

import { demo, invalidDemo, workflowPath } from '../../test/helpers/demo-agent-files.ts';

const owner: OrgCaller = { subject: 'sub-owner', email: 'owner@example.com', name: 'Olga Owner' };
const reader: OrgCaller = { subject: 'sub-reader', email: 'reader@example.com' };

interface Fixture {
  docs: DocumentStore;
  objects: ObjectStore;
  cleanup(): Promise<void>;
}
const fixtures: [string, (dir: string) => Promise<Fixture>][] = [
  [
    'in-memory fakes',
    async () => ({
      docs: createMemoryDocumentStore(),
      objects: createMemoryObjectStore(),
      cleanup: async () => undefined,
    }),
  ],
  ['SQLite and the filesystem object store', async (dir) => {
    const docs = await openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') });
    return { docs, objects: createFsObjectStore({ root: join(dir, 'objects') }), cleanup: () => docs.close() };
  }],
];

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no refusal',
    (error: { code?: string; status?: number }) => `${error.code} ${error.status}`,
  );
}

describe.each(fixtures)('hosted agents on %s', (_name, make) => {
  let dir: string;
  let fixture: Fixture;
  let deps: AgentDeps;
  let orgId: string;
  let tick = 0;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-agents-'));
    fixture = await make(dir);
    let n = 0;
    deps = {
      docs: fixture.docs,
      objects: fixture.objects,
      lease: createMemoryLease(),
      git: createObjectStoreGitRepo({ objectStore: fixture.objects, scratchDir: join(dir, 'scratch') }),
      clock: { now: () => new Date(Date.UTC(2026, 10, 23, 10, 0, tick++)) },
      ids: {
        newId: () => `id${(n += 1)}`,
        randomBytes: (k) => new Uint8Array(k),
        sha256Hex: async () => '0'.repeat(64),
      },
      authority: orgAgentAuthority({ docs: fixture.docs }),
      template: async () => builtinTemplate(),
      wait: async () => undefined,
    };
    await ensureOrgIndexes(fixture.docs);
    await ensureAgentIndexes(fixture.docs);
    orgId = (await createOrganization(deps, owner, 'Acme'))._id;
  });
  afterEach(async () => {
    await fixture.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates an agent from the built-in template (which validates) on main, nothing published', async () => {
    expect(validateAgentRepository(builtinTemplate()).ok).toBe(true);
    const agent = await createAgent(deps, owner, { orgId, slug: 'analyst' });
    expect(agent).toMatchObject({ orgId, slug: 'analyst', name: 'New agent' });
    const { environments } = await getAgent(deps, owner, agent._id);
    expect(environments.map((e) => [e.name, e.published])).toEqual([['main', null]]);
    expect([...(await deps.git.readFiles(`agents/${agent._id}`, 'refs/heads/main')).keys()]).toEqual([
      'AGENTS.md',
      'workflows/chat/workflow.yaml',
    ]);
    expect((await listAgents(deps, owner, orgId)).map((a) => a.slug)).toEqual(['analyst']);
    expect(await codeOf(createAgent(deps, owner, { orgId, slug: 'analyst' }))).toBe('agent_exists 409');
    expect(readdirSync(join(dir, 'scratch'))).toEqual([]);
  });

  it('refuses an invalid publish with located problems and leaves the published pointer unchanged', async () => {
    const agent = await createAgent(deps, owner, { orgId, slug: 'analyst' });
    await saveDraft(deps, owner, { agentId: agent._id, envName: 'main', change: { files: demo, replace: true } });
    const first = await publishEnvironment(deps, owner, agent._id, 'main');
    expect(first.published?.counts).toEqual({ workflows: 2, states: 10, triggers: 5, skills: 1, tests: 2 });
    await saveDraft(deps, owner, {
      agentId: agent._id,
      envName: 'main',
      change: { files: invalidDemo, replace: true },
    });
    const refusal = await publishEnvironment(deps, owner, agent._id, 'main').then(
      () => ({ code: 'none', status: 0, message: '', problems: [] }),
      (e: unknown) => e as { code: string; status: number; message: string; problems: unknown[] },
    );
    expect(refusal).toMatchObject({ code: 'agent_invalid', status: 422 });
    expect(refusal.message).toContain(`${workflowPath}:1:1 /titel: unknown key "titel"`);
    expect(refusal.problems).toHaveLength(1);
    expect((await readEnvironment(deps, owner, agent._id, 'main')).published).toEqual(first.published);
  });

  it(
    'keeps a published build immutable: later saves change the draft only; ' + 'the build holds the validated files',
    async () => {
      const agent = await createAgent(deps, owner, { orgId, slug: 'analyst' });
      const saved = await saveDraft(deps, owner, {
        agentId: agent._id,
        envName: 'main',
        change: {
          files: demo,
          replace: true,
          message: 'Import the demo',
        },
      });
      const published = await publishEnvironment(deps, owner, agent._id, 'main');
      expect(published.published?.commitId).toBe(saved.draft.commitId);
      const later = await saveDraft(deps, owner, {
        agentId: agent._id,
        envName: 'main',
        change: {
          files: [{ path: 'NOTES.md', text: 'scratch notes\n' }],
          replace: false,
        },
      });
      expect(later.draft.commitId).not.toBe(saved.draft.commitId);
      const env = await readEnvironment(deps, owner, agent._id, 'main');
      expect(env.published).toEqual(published.published);
      const build = await readBuild(deps, {
        buildId: env.published!.buildId,
        objectKey: `agents/${agent._id}/builds/${env.published!.buildId}.json`,
      });
      expect(build.files.map((f) => f.path).sort()).toEqual(demo.map((f) => f.path).sort());
      expect((await getAgent(deps, owner, agent._id)).agent.name).toBe('Flights analyst');
      const log = await deps.git.log(`agents/${agent._id}`, 5);
      expect(log[0]).toMatchObject({ authorName: 'Olga Owner' });
    },
  );

  it(
    'discards the draft back to the published commit, restores a build, ' + 'and promotes to another environment',
    async () => {
      const agent = await createAgent(deps, owner, { orgId, slug: 'analyst' });
      const v1 = await publishEnvironment(deps, owner, agent._id, 'main');
      await saveDraft(deps, owner, { agentId: agent._id, envName: 'main', change: { files: demo, replace: true } });
      const v2 = await publishEnvironment(deps, owner, agent._id, 'main');
      await saveDraft(deps, owner, {
        agentId: agent._id,
        envName: 'main',
        change: { files: invalidDemo, replace: true },
      });
      await discardDraft(deps, owner, agent._id, 'main');
      const text = async (path: string) =>
        new TextDecoder().decode((await deps.git.readFiles(`agents/${agent._id}`, 'refs/heads/main')).get(path));
      expect(await text(workflowPath)).not.toContain('titel');
      await restoreEnvironment(deps, owner, { agentId: agent._id, envName: 'main', buildId: v1.published!.buildId });
      expect([...(await deps.git.readFiles(`agents/${agent._id}`, 'refs/heads/main')).keys()]).toEqual([
        'AGENTS.md',
        'workflows/chat/workflow.yaml',
      ]);
      expect((await readEnvironment(deps, owner, agent._id, 'main')).published?.buildId).toBe(v2.published!.buildId);
      const staging = await promoteEnvironment(deps, owner, { agentId: agent._id, from: 'main', to: 'staging' });
      expect(staging.published).toMatchObject({ buildId: v2.published!.buildId, commitId: v2.published!.commitId });
      expect(await text(workflowPath)).toBe('');
      expect([...(await deps.git.readFiles(`agents/${agent._id}`, 'refs/heads/staging')).keys()].sort()).toEqual(
        demo.map((f) => f.path).sort(),
      );
      expect(
        await codeOf(
          restoreEnvironment(deps, owner, { agentId: agent._id, envName: 'main', buildId: 'no-such-build' }),
        ),
      ).toBe(
        'build_not_found 404',
      );
      expect(await codeOf(discardDraft(deps, owner, agent._id, 'nope'))).toBe('environment_not_found 404');
    },
  );

  it('holds a per-agent lock: a change waits for another holder and gives up with agent_busy', async () => {
    const agent = await createAgent(deps, owner, { orgId, slug: 'analyst' });
    expect(await deps.lease.acquire(`agent:${agent._id}`, 'another-process', 60_000)).toBe(true);
    let waits = 0;
    const counting = {
      ...deps,
      wait: async () => {
        waits += 1;
      },
    };
    expect(
      await codeOf(
        saveDraft(counting, owner, { agentId: agent._id, envName: 'main', change: { files: demo, replace: true } }),
      ),
    ).toBe(
      'agent_busy 409',
    );
    expect(waits).toBe(200);
    await deps.lease.release(`agent:${agent._id}`, 'another-process');
    expect(
      (await saveDraft(counting, owner, {
        agentId: agent._id,
        envName: 'main',
        change: { files: demo, replace: true },
      })).name,
    ).toBe('main');
    expect(await deps.lease.holder(`agent:${agent._id}`)).toBeNull();
  });

  it(
    'refuses by role: a Reader reads but cannot save or publish; a non-member sees no agent; creating needs ' +
      'agents:create',
    async () => {
      const agent = await createAgent(deps, owner, { orgId, slug: 'analyst' });
      const group = await createGroup(deps, orgId, { name: 'Readers', agentRoles: [{ agent: '*', role: 'reader' }] });
      await addMember(deps, orgId, reader, [group._id]);
      expect((await readEnvironment(deps, reader, agent._id, 'main')).name).toBe('main');
      expect(
        await codeOf(
          saveDraft(deps, reader, { agentId: agent._id, envName: 'main', change: { files: demo, replace: true } }),
        ),
      ).toBe(
        'agent_role_required 403',
      );
      expect(await codeOf(publishEnvironment(deps, reader, agent._id, 'main'))).toBe('agent_role_required 403');
      expect(await codeOf(promoteEnvironment(deps, reader, { agentId: agent._id, from: 'main', to: 'staging' }))).toBe(
        'agent_role_required 403',
      );
      expect(await codeOf(createAgent(deps, reader, { orgId, slug: 'other' }))).toBe('permission_required 403');
      expect(await codeOf(readEnvironment(deps, { subject: 'stranger', email: 's@example.com' }, agent._id, 'main')))
        .toBe('agent_not_found 404');
      expect(
        await codeOf(
          saveDraft(deps, owner, {
            agentId: agent._id,
            envName: 'main',
            change: { files: [{ path: '../escape', text: '' }], replace: false },
          }),
        ),
      ).toBe('invalid_argument 400');
    },
  );
});
