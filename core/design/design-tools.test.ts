/**
 * The design agent's tools (./design-tools.ts) on the in-memory stores and the real git repository: reads and
 * writes of the draft within the repository's layout only (a README, `.git/…`, a stray file in a workflow folder or
 * `..` refused, nothing written); two chats on one draft see each other's saved changes (a write over a file changed
 * since it was read is refused with the file as it is now, and goes through once re-read); validation as publish
 * does; no tool publishes; a Reader, a User and another organization's member are refused with nothing named.
 * Source: issue "The design agent" § Tools, § Done when.
 */
import { createHash } from 'node:crypto';
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
import { type AgentDeps, builtinTemplate, createAgent, ensureAgentIndexes, readEnvironment } from '../agent/hosting.ts';
import { type DesignReads, type DesignToolDeps, designToolNames, runDesignTool } from './design-tools.ts';

const owner: OrgCaller = { subject: 'sub-owner', email: 'owner@example.com' };
const reader: OrgCaller = { subject: 'sub-reader', email: 'reader@example.com' };
const user: OrgCaller = { subject: 'sub-user', email: 'user@example.com' };
const stranger: OrgCaller = { subject: 'sub-stranger', email: 'stranger@example.com' };

/** A chat's read ledger, in memory. */
function ledger(): DesignReads {
  const read = new Map<string, string | null>();
  return { digestOf: async (path) => read.get(path), note: async (path, digest) => void read.set(path, digest) };
}

const flow = (to: string) =>
  `title: Triage\nstates:\n  triage:\n    triggers:\n      ask:\n        type: chat\n    transitions:\n` +
  `      - to: ${to}\n        description: Sorted.\n  review:\n    type: human\n    transitions:\n      - to: done\n` +
  `        description: Approve.\n  done: {}\n`;

describe('design tools', () => {
  let dir: string;
  let deps: DesignToolDeps;
  let hosting: AgentDeps;
  let agentId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-design-'));
    const docs = createMemoryDocumentStore();
    const objects = createMemoryObjectStore();
    let n = 0;
    hosting = {
      docs,
      objects,
      lease: createMemoryLease(),
      git: createObjectStoreGitRepo({ objectStore: objects, scratchDir: join(dir, 'scratch') }),
      clock: { now: () => new Date(Date.UTC(2026, 10, 27, 10)) },
      ids: {
        newId: () => `id${(n += 1)}`,
        randomBytes: (k) => new Uint8Array(k),
        sha256Hex: async (data) => createHash('sha256').update(data).digest('hex'),
      },
      authority: orgAgentAuthority({ docs }),
      template: async () => builtinTemplate(),
      wait: async () => undefined,
    };
    deps = {
      hosting,
      offer: async () => ({
        collections: [{
          name: 'semantic',
          description: 'Questions over data',
          tools: [{ name: 'execute_query', description: 'SQL' }],
        }],
        skills: [],
      }),
    };
    await ensureOrgIndexes(docs);
    await ensureAgentIndexes(docs);
    const orgId = (await createOrganization(hosting, owner, 'Acme'))._id;
    await createOrganization(hosting, stranger, 'Other');
    const readers = await createGroup(hosting, orgId, {
      name: 'Readers',
      agentRoles: [{ agent: '*', role: 'reader' }],
    });
    const users = await createGroup(hosting, orgId, { name: 'Users', agentRoles: [{ agent: '*', role: 'user' }] });
    await addMember(hosting, orgId, reader, [readers._id]);
    await addMember(hosting, orgId, user, [users._id]);
    agentId = (await createAgent(hosting, owner, { orgId, slug: 'triage' }))._id;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const chat = (caller: OrgCaller = owner) => {
    const context = { caller, agentId, envName: 'main', reads: ledger() };
    return (name: string, input: unknown = {}) => runDesignTool(deps, context, { name, input });
  };

  it('offers no tool that publishes, restores or promotes', async () => {
    expect(designToolNames.some((n) => /publish|restore|promote/.test(n))).toBe(false);
    const answer = await chat()('design_publish');
    expect(answer).toMatchObject({ isError: true, output: { error: { code: 'unknown_tool' } } });
    expect((await readEnvironment(hosting, owner, agentId, 'main')).published).toBeNull();
  });

  it('writes only within the repository layout', async () => {
    const ask = chat();
    const before = (await readEnvironment(hosting, owner, agentId, 'main')).draft.commitId;
    for (
      const path of ['README.md', '.git/config', 'workflows/chat/other.yaml', 'workflows/../AGENTS.md', 'x/AGENTS.md']
    ) {
      const answer = await ask('design_write_file', { path, text: 'x' });
      expect(answer, path).toMatchObject({ isError: true, output: { error: { code: 'path_outside_layout' } } });
    }
    expect((await ask('design_write_file', { path: 1, text: 'x' })).output).toMatchObject({
      error: { code: 'invalid_input' },
    });
    expect((await readEnvironment(hosting, owner, agentId, 'main')).draft.commitId).toBe(before);
  });

  it("creates, reads, validates; two chats see each other's changes and a stale write is refused", async () => {
    const ada = chat();
    const bea = chat();
    const path = 'workflows/triage/workflow.yaml';
    expect(await ada('design_write_file', { path, text: flow('nowhere') })).toMatchObject({ isError: false });
    const invalid = (await ada('design_validate')).output as { ok: boolean; problems: string[] };
    // The validator's located problems (here: a transition to a state that does not exist).
    expect(invalid.ok).toBe(false);
    expect(invalid.problems.join('\n')).toContain(`${path}:`);
    expect(invalid.problems.join('\n')).toContain('"nowhere"');
    // Bea reads and fixes it; Ada's write over the file she read before is refused with Bea's text.
    expect((await bea('design_read_file', { path })).output).toEqual({ path, text: flow('nowhere') });
    expect(await bea('design_write_file', { path, text: flow('done') })).toMatchObject({ isError: false });
    const stale = await ada('design_write_file', { path, text: flow('review') });
    expect(stale).toMatchObject({
      isError: true,
      output: { error: { code: 'file_changed' }, current: { text: flow('done') } },
    });
    // Handed the file as it is now, Ada's next write goes through.
    expect(await ada('design_write_file', { path, text: flow('review') })).toMatchObject({ isError: false });
    expect((await bea('design_read_file', { path })).output).toEqual({ path, text: flow('review') });
    expect((await ada('design_validate')).output).toMatchObject({ ok: true, problems: [] });
    // A file never read is not overwritten, nor deleted.
    const fresh = chat();
    expect((await fresh('design_write_file', { path, text: flow('review') })).output).toMatchObject({
      error: { code: 'file_changed' },
    });
    expect((await fresh('design_delete_file', { path: 'AGENTS.md' })).output).toMatchObject({
      error: { code: 'file_changed' },
    });
    const files = (await fresh('design_list_files')).output as { files: { path: string }[] };
    expect(files.files.map((f) => f.path)).toEqual(['AGENTS.md', 'workflows/chat/workflow.yaml', path]);
    expect((await fresh('design_list_tools')).output).toMatchObject({ collections: [{ name: 'semantic' }] });
    expect((await fresh('design_run_evaluations')).output).toMatchObject({ available: false });
  });

  it("refuses a Reader, a User and another organization's member, naming nothing", async () => {
    for (
      const [caller, code] of [[reader, 'agent_role_required'], [user, 'agent_role_required'], [
        stranger,
        'agent_not_found',
      ]] as const
    ) {
      const answer = await chat(caller)('design_read_file', { path: 'AGENTS.md' });
      expect(answer, caller.email).toMatchObject({ isError: true, output: { error: { code } } });
      if (caller === stranger) expect(JSON.stringify(answer)).not.toContain('triage');
      const write = await chat(caller)('design_write_file', { path: 'AGENTS.md', text: 'x' });
      expect(write.isError).toBe(true);
    }
  });
});
