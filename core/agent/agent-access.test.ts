/**
 * The one agent resolver (core/agent/agent-access.ts) over the one authorization helper (core/boot/agent-authority.ts)
 * on the in-memory store: an agent reference is its id or its slug, looked up only among the caller's organizations;
 * a slug in several of them is 409 `ambiguous_agent`; another tenant's agent, by id or slug, is 404 naming nothing
 * of it; a member holding no role on an agent does not see it; a lower role is 403.
 *
 * Source: docs/decisions.md D17 § 2 (one resolver, one authorization helper; 404 with no identifier).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { orgAgentAuthority } from '../boot/agent-authority.ts';
import { addMember, createGroup, createOrganization, ensureOrgIndexes, type OrgCaller } from '../org/index.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { loadAgent, resolveAgent } from './agent-access.ts';
import { agentCollections, type AgentRecord, agentSchemaVersion } from './hosting-model.ts';

const ada: OrgCaller = { subject: 'sub-ada', email: 'ada@example.com' };
const bob: OrgCaller = { subject: 'sub-bob', email: 'bob@example.com' };
const cy: OrgCaller = { subject: 'sub-cy', email: 'cy@example.com' };

/** The refusal of `promise` as `code status`, with its message. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  return promise.then(
    () => ({ code: 'no refusal', message: '' }),
    (error: { code?: string; status?: number; message: string }) => ({
      code: `${error.code} ${error.status}`,
      message: error.message,
    }),
  );
}

describe('the agent resolver', () => {
  const docs = createMemoryDocumentStore();
  let n = 0;
  const deps = {
    docs,
    authority: orgAgentAuthority({ docs }),
    clock: { now: () => new Date('2026-11-26T10:00:00Z') },
    ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
  };
  const orgs: Record<string, string> = {};
  const agent = async (_id: string, orgId: string, slug: string) => {
    const record: AgentRecord = {
      _id,
      schemaVersion: agentSchemaVersion,
      orgId,
      slug,
      name: slug,
      description: '',
      createdAt: new Date(),
      createdBy: 'x',
    };
    await docs.collection<AgentRecord>(agentCollections.agents).insertOne(record);
  };

  beforeEach(async () => {
    if (orgs.acme) return;
    await ensureOrgIndexes(docs);
    orgs.acme = (await createOrganization(deps, ada, 'Acme'))._id;
    orgs.labs = (await createOrganization(deps, ada, 'Labs'))._id;
    orgs.bobs = (await createOrganization(deps, bob, 'Bobs'))._id;
    await agent('agent-ada-desk', orgs.acme, 'design-desk');
    await agent('agent-ada-report-1', orgs.acme, 'report');
    await agent('agent-ada-report-2', orgs.labs, 'report');
    await agent('agent-bob-desk', orgs.bobs, 'design-desk');
    const none = await createGroup(deps, orgs.acme, { name: 'Nothing', agentRoles: [] });
    await addMember(deps, orgs.acme, cy, [none._id]);
  });

  it("finds an agent by id or by slug, only among the caller's organizations", async () => {
    expect((await resolveAgent(deps, ada, 'design-desk'))._id).toBe('agent-ada-desk');
    expect((await resolveAgent(deps, bob, 'design-desk'))._id).toBe('agent-bob-desk');
    expect((await loadAgent(deps, ada, 'agent-ada-desk', { role: 'maintainer' }))._id).toBe('agent-ada-desk');
    expect((await loadAgent(deps, ada, 'report', { role: 'reader', orgId: orgs.labs }))._id).toBe('agent-ada-report-2');
  });

  it("answers another tenant's agent 404 naming nothing of it, by id, by slug or with its organization", async () => {
    for (
      const attempt of [
        loadAgent(deps, bob, 'agent-ada-desk', { role: 'reader' }),
        loadAgent(deps, bob, 'report', { role: 'reader' }),
        loadAgent(deps, bob, 'agent-ada-desk', { role: 'reader', orgId: orgs.acme }),
        loadAgent(deps, ada, 'agent-bob-desk', { role: 'reader' }),
      ]
    ) {
      const { code, message } = await refusal(attempt);
      expect(code).toBe('agent_not_found 404');
      for (const id of ['agent-ada-desk', 'agent-bob-desk', 'report', orgs.acme, orgs.bobs]) {
        expect(message).not.toContain(id);
      }
    }
  });

  it(
    "refuses a slug that names agents in several of the caller's organizations (409), " +
      'naming only theirs',
    async () => {
      const { code, message } = await refusal(resolveAgent(deps, ada, 'report'));
      expect(code).toBe('ambiguous_agent 409');
      expect(message).toContain(orgs.acme);
      expect(message).not.toContain(orgs.bobs);
    },
  );

  it('hides an agent from a member holding no role on it (404), and refuses a lower role (403)', async () => {
    expect((await refusal(loadAgent(deps, cy, 'agent-ada-desk', { role: 'reader' }))).code).toBe('agent_not_found 404');
    const readers = await createGroup(deps, orgs.acme, {
      name: 'Readers',
      agentRoles: [{ agent: 'agent-ada-desk', role: 'reader' }],
    });
    await addMember(deps, orgs.acme, { subject: 'sub-dee', email: 'dee@example.com' }, [readers._id]);
    const dee = { subject: 'sub-dee', email: 'dee@example.com' };
    expect((await loadAgent(deps, dee, 'design-desk', { role: 'reader' }))._id).toBe('agent-ada-desk');
    expect((await refusal(loadAgent(deps, dee, 'design-desk', { role: 'maintainer' }))).code).toBe(
      'agent_role_required 403',
    );
    expect((await refusal(loadAgent(deps, dee, 'report', { role: 'reader' }))).code).toBe('agent_not_found 404');
  });
});
