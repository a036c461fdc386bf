/**
 * The evaluation gate in the agent domain, on the in-memory stores and the real git repository, with the gate's
 * port faked (core/evaluation's side has its own tests): the setting (Maintainer; another organization's member
 * sees nothing), a gated publish refused with the run's summary leaving the published pointer unchanged and its
 * candidate build out of Restore's reach, a passing one publishing the very build evaluated, a draft's build written
 * once per commit, and a promotion into a gated environment refused without a passing run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createObjectStoreGitRepo } from '../adapters/git/index.ts';
import { orgAgentAuthority } from '../boot/agent-authority.ts';
import { addMember, createGroup, createOrganization, ensureOrgIndexes, type OrgCaller } from '../org/index.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryLease } from '../testing/memory-lease.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import {
  agentCollections,
  type AgentDeps,
  type BuildRecord,
  builtinTemplate,
  createAgent,
  draftBuild,
  ensureAgentIndexes,
  type GatedBuild,
  promoteEnvironment,
  publishEnvironment,
  readEnvironment,
  restoreEnvironment,
  saveDraft,
  setEnvironmentSettings,
} from './hosting.ts';
import { demo } from '../../test/helpers/demo-agent-files.ts';

const owner: OrgCaller = { subject: 'sub-owner', email: 'owner@example.com' };
const reader: OrgCaller = { subject: 'sub-reader', email: 'reader@example.com' };
const stranger: OrgCaller = { subject: 'sub-stranger', email: 'stranger@example.com' };

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => ({ code: 'none', status: 0, message: '' }),
    (e: { code: string; status: number; message: string }) => ({ code: e.code, status: e.status, message: e.message }),
  );

describe('the evaluation gate (core/agent)', () => {
  let dir: string;
  let deps: AgentDeps;
  let agentId: string;
  let verdict: { passed: boolean; summary: string };
  let evaluated: GatedBuild[];
  let passing: Set<string>;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-gate-'));
    const docs = createMemoryDocumentStore();
    const objects = createMemoryObjectStore();
    let n = 0;
    let tick = 0;
    evaluated = [];
    passing = new Set();
    verdict = {
      passed: false,
      summary: 'evaluation run ev-1 failed: 0 of 1 case(s) passed; failing: chat/a at step 2',
    };
    deps = {
      docs,
      objects,
      lease: createMemoryLease(),
      git: createObjectStoreGitRepo({ objectStore: objects, scratchDir: join(dir, 'scratch') }),
      clock: { now: () => new Date(Date.UTC(2026, 10, 27, 10, 0, tick++)) },
      ids: {
        newId: () => `id${(n += 1)}`,
        randomBytes: (k) => new Uint8Array(k),
        sha256Hex: async () => '0'.repeat(64),
      },
      authority: orgAgentAuthority({ docs }),
      template: async () => builtinTemplate(),
      wait: async () => undefined,
      evaluationGate: {
        evaluate: async (build) => {
          evaluated.push(build);
          return { runId: 'ev-1', ...verdict };
        },
        passingRun: async (_agent, buildId) => (passing.has(buildId) ? 'ev-2' : undefined),
      },
    };
    await ensureOrgIndexes(docs);
    await ensureAgentIndexes(docs);
    const orgId = (await createOrganization(deps, owner, 'Acme'))._id;
    await createOrganization(deps, stranger, 'Other');
    const readers = await createGroup(deps, orgId, { name: 'Readers', agentRoles: [{ agent: '*', role: 'reader' }] });
    await addMember(deps, orgId, reader, [readers._id]);
    agentId = (await createAgent(deps, owner, { orgId, slug: 'analyst' }))._id;
    await saveDraft(deps, owner, { agentId, envName: 'main', change: { files: demo, replace: true } });
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const gate = (caller: OrgCaller, on: boolean, envName = 'main') =>
    setEnvironmentSettings(deps, caller, { agentId, envName, settings: { evaluationGate: on } });
  const builds = () => deps.docs.collection<BuildRecord>(agentCollections.builds);

  it("is a Maintainer's setting; another organization's member gets 404 naming nothing", async () => {
    expect((await readEnvironment(deps, owner, agentId, 'main')).evaluationGate).toBe(false);
    expect((await gate(owner, true)).evaluationGate).toBe(true);
    expect((await readEnvironment(deps, reader, agentId, 'main')).evaluationGate).toBe(true);
    expect(await refusal(gate(reader, false))).toMatchObject({ code: 'agent_role_required', status: 403 });
    const hidden = await refusal(gate(stranger, false));
    expect(hidden).toMatchObject({ code: 'agent_not_found', status: 404 });
    expect(hidden.message).not.toContain('analyst');
    expect(hidden.message).not.toContain(agentId);
    expect((await readEnvironment(deps, owner, agentId, 'main')).evaluationGate).toBe(true);
  });

  it('refuses a failing gated publish with its summary; its candidate is not published nor restorable', async () => {
    const first = await publishEnvironment(deps, owner, agentId, 'main');
    expect(evaluated).toEqual([]);
    await gate(owner, true);
    await saveDraft(deps, owner, {
      agentId,
      envName: 'main',
      change: { files: [{ path: 'notes.md', text: 'x' }], replace: false },
    });
    const refused = await refusal(publishEnvironment(deps, owner, agentId, 'main'));
    expect(refused).toEqual({
      code: 'evaluation_failed',
      status: 422,
      message: 'Publish refused: environment "main" of agent "analyst" has the evaluation gate on and evaluation ' +
        'run ev-1 failed: 0 of 1 case(s) passed; failing: chat/a at step 2. Fix the draft (or its cases) and ' +
        'publish again.',
    });
    expect(evaluated).toHaveLength(1);
    const candidate = evaluated[0]!;
    expect(candidate).toMatchObject({ agentId, agentSlug: 'analyst', environment: 'main' });
    expect(candidate.buildId).not.toBe(first.published!.buildId);
    expect((await builds().findOne({ _id: candidate.buildId }))?.candidate).toBe(true);
    expect((await readEnvironment(deps, owner, agentId, 'main')).published).toEqual(first.published);
    const restore = restoreEnvironment(deps, owner, { agentId, envName: 'main', buildId: candidate.buildId });
    expect(await refusal(restore)).toMatchObject({ code: 'build_not_found', status: 404 });
    // The fix passes: the build evaluated (written once for the commit) is the build published.
    verdict = { passed: true, summary: 'evaluation run ev-3 passed: 1 of 1 case(s) passed' };
    const published = await publishEnvironment(deps, owner, agentId, 'main');
    expect(evaluated[1]!.buildId).toBe(candidate.buildId);
    expect(published.published!.buildId).toBe(candidate.buildId);
    expect((await builds().findOne({ _id: candidate.buildId }))?.candidate).toBeUndefined();
  });

  it("writes a draft's build once per commit, and answers the published build for a published draft", async () => {
    const published = await publishEnvironment(deps, owner, agentId, 'main');
    expect(await draftBuild(deps, reader, agentId, 'main').catch((e: { code: string }) => e.code)).toBe(
      'agent_role_required',
    );
    expect((await draftBuild(deps, owner, agentId, 'main')).buildId).toBe(published.published!.buildId);
    await saveDraft(deps, owner, {
      agentId,
      envName: 'main',
      change: { files: [{ path: 'notes.md', text: 'x' }], replace: false },
    });
    const one = await draftBuild(deps, owner, agentId, 'main');
    const two = await draftBuild(deps, owner, agentId, 'main');
    expect(two.buildId).toBe(one.buildId);
    expect(one.buildId).not.toBe(published.published!.buildId);
    expect(one.files.map((f) => f.path)).toContain('notes.md');
    expect(await builds().countDocuments({ agentId })).toBe(2);
  });

  it('refuses a promotion into a gated environment of a build without a passing run', async () => {
    const built = (await publishEnvironment(deps, owner, agentId, 'main')).published!.buildId;
    const first = await promoteEnvironment(deps, owner, { agentId, from: 'main', to: 'prod' });
    expect(first.published!.buildId).toBe(built);
    await gate(owner, true, 'prod');
    await saveDraft(deps, owner, {
      agentId,
      envName: 'main',
      change: { files: [{ path: 'notes.md', text: 'x' }], replace: false },
    });
    const next = (await publishEnvironment(deps, owner, agentId, 'main')).published!.buildId;
    const refused = await refusal(promoteEnvironment(deps, owner, { agentId, from: 'main', to: 'prod' }));
    expect(refused).toMatchObject({ code: 'evaluation_required', status: 409 });
    expect(refused.message).toContain(`build ${next} of "main" has no run in which every case passed`);
    expect((await readEnvironment(deps, owner, agentId, 'prod')).published!.buildId).toBe(built);
    passing.add(next);
    expect((await promoteEnvironment(deps, owner, { agentId, from: 'main', to: 'prod' })).published!.buildId).toBe(
      next,
    );
  });

  it('refuses a gated publish in a process without evaluations', async () => {
    await gate(owner, true);
    const { evaluationGate: _gate, ...without } = deps;
    expect(await refusal(publishEnvironment(without, owner, agentId, 'main'))).toMatchObject({
      code: 'evaluation_unavailable',
      status: 503,
    });
  });
});
