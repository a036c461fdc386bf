/**
 * Organization use cases on the in-memory document store fake and on the embedded SQLite store, through
 * one shared set of cases: creation (the creator owns it), members and groups, effective roles, the
 * authorisation checks, the last-owner refusal on every path, the dev-user default organization, and
 * two racing first sign-ins creating one personal organization.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../adapters/sqlite/index.ts';
import type { BaseDocument, DocumentStore } from '../ports/document-store.ts';
import { createMemoryDocumentData, createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import {
  addMember,
  addToGroup,
  builtinGroupId,
  createGroup,
  createOrganization,
  deleteGroup,
  ensureDefaultOrganization,
  ensureOrgIndexes,
  ensurePersonalOrganization,
  listGroups,
  listMembers,
  listOrganizations,
  orgAccess,
  type OrganizationRecord,
  type OrgCaller,
  orgCollections,
  type OrgDeps,
  orgSchemaVersion,
  removeFromGroup,
  removeMember,
  requireAgentRole,
  requirePermission,
  updateGroup,
} from './index.ts';

/** Opens instances of one store (as several processes open one database). */
interface StoreFixture {
  open(): Promise<DocumentStore>;
  cleanup(): void;
}

const fixtures: [string, () => StoreFixture][] = [
  ['in-memory fake', () => {
    const data = createMemoryDocumentData();
    return { open: async () => createMemoryDocumentStore({ data }), cleanup: () => undefined };
  }],
  ['SQLite', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-org-'));
    return {
      open: () => openSqliteDocumentStore({ path: join(dir, 'docdb.sqlite') }),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  }],
];

const ada: OrgCaller = { subject: 'sub-ada', email: 'ada@example.com', name: 'Ada' };
const bob: OrgCaller = { subject: 'sub-bob', email: 'bob@example.com' };
const cy: OrgCaller = { subject: 'sub-cy', email: 'cy@example.com', name: 'Cy' };

let counter = 0;
function depsOver(docs: DocumentStore): OrgDeps {
  return {
    docs,
    clock: { now: () => new Date('2026-11-23T10:00:00Z') },
    ids: {
      newId: () => `id${(counter += 1)}`,
      randomBytes: (n) => new Uint8Array(n),
      sha256Hex: async () => '0'.repeat(64),
    },
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no refusal',
    (error: { code?: string; status?: number }) => `${error.code} ${error.status}`,
  );
}

/**
 * A store whose first `findOne` on the organizations collection waits until `parties` callers have made
 * it: both racing first sign-ins look, see nothing, and then both try to create.
 */
function lookTogether(stores: DocumentStore[]): DocumentStore[] {
  let arrived = 0;
  let release!: () => void;
  const allHere = new Promise<void>((r) => {
    release = r;
  });
  return stores.map((inner) => ({
    ...inner,
    close: () => inner.close(),
    collection: <T extends BaseDocument>(name: string) => {
      const real = inner.collection<T>(name);
      if (name !== orgCollections.organizations) return real;
      let waited = false;
      return {
        ...real,
        insertOne: real.insertOne.bind(real),
        find: real.find.bind(real),
        updateOne: real.updateOne.bind(real),
        findOne: async (filter: Record<string, unknown>) => {
          if (!waited) {
            waited = true;
            arrived += 1;
            if (arrived === stores.length) release();
            await allHere;
          }
          return real.findOne(filter);
        },
      };
    },
  }));
}

describe.each(fixtures)('organization use cases on the %s', (_name, makeFixture) => {
  let fixture: StoreFixture;
  let docs: DocumentStore;
  let deps: OrgDeps;
  const opened: DocumentStore[] = [];

  beforeEach(async () => {
    fixture = makeFixture();
    docs = await fixture.open();
    opened.push(docs);
    await ensureOrgIndexes(docs);
    deps = depsOver(docs);
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    fixture.cleanup();
  });

  /** An organization Ada created, with Bob added as a plain member. */
  async function adaAndBob(): Promise<{ org: OrganizationRecord; bobId: string; adaId: string }> {
    const org = await createOrganization(deps, ada, '  Acme  ');
    const added = await addMember(deps, org._id, bob);
    const adaId = (await orgAccess(deps, ada, org._id)).member._id;
    return { org, bobId: added.member._id, adaId };
  }

  it('the creator becomes Organization Owner with every permission and Administrator on every agent', async () => {
    const org = await createOrganization(deps, ada, '  Acme  ');
    expect(org).toMatchObject({
      name: 'Acme',
      kind: 'shared',
      schemaVersion: orgSchemaVersion,
      setupComplete: true,
      createdBy: 'sub-ada',
    });
    const access = await orgAccess(deps, ada, org._id);
    expect(access.permissions).toEqual(['workflows:use', 'sessions:personal', 'organization:manage', 'agents:create']);
    expect(access.agentRole('any-agent')).toBe('administrator');
    expect(access.groups.map((g) => g.name)).toEqual(['Organization Owner']);
    expect((await listGroups(deps, org._id)).map((g) => [g.group.name, g.memberIds.length])).toEqual([
      ['Organization Owner', 1],
      ['Administrator', 0],
      ['Maintainer', 0],
      ['User', 0],
    ]);
    expect((await listOrganizations(deps, ada)).map((o) => o._id)).toEqual([org._id]);
    expect(await listOrganizations(deps, bob)).toEqual([]);
    expect(await codeOf(createOrganization(deps, ada, '   '))).toBe('invalid_argument 400');
  });

  it(
    'a new member joins the User group: workflows:use and User on every agent; the checks refuse more with 403 ' +
      'codes',
    async () => {
      const { org } = await adaAndBob();
      const access = await orgAccess(deps, bob, org._id);
      expect([access.permissions, access.agentRole('a1')]).toEqual([['workflows:use'], 'user']);
      expect(await codeOf(requirePermission(deps, bob, org._id, 'workflows:use'))).toBe('no refusal');
      expect(await codeOf(requirePermission(deps, bob, org._id, 'organization:manage'))).toBe(
        'permission_required 403',
      );
      await expect(requirePermission(deps, bob, org._id, 'agents:create')).rejects.toThrow(
        'You need the agents:create permission in organization "Acme"',
      );
      expect(await codeOf(requireAgentRole(deps, bob, { orgId: org._id, agentId: 'a1', role: 'user' }))).toBe(
        'no refusal',
      );
      await expect(requireAgentRole(deps, bob, { orgId: org._id, agentId: 'a1', role: 'maintainer' })).rejects.toThrow(
        'You need the Maintainer role on agent "a1" for this (you have the User role)',
      );
      expect(await codeOf(orgAccess(deps, cy, org._id))).toBe('not_found 404');
      expect(await codeOf(orgAccess(deps, ada, 'no-such-org'))).toBe('not_found 404');
      expect(await codeOf(addMember(deps, org._id, bob))).toBe('conflict 409');
      expect(await codeOf(addMember(deps, org._id, cy, ['other-org.user']))).toBe('not_found 404');
    },
  );

  it("a member's role on an agent is the highest their groups give; permissions are the union", async () => {
    const { org, bobId } = await adaAndBob();
    const readers = await createGroup(deps, org._id, {
      name: 'Readers of a2',
      agentRoles: [{ agent: 'a2', role: 'reader' }],
    });
    const keepers = await createGroup(deps, org._id, {
      name: 'Keepers',
      permissions: ['sessions:personal'],
      agentRoles: [{ agent: 'a1', role: 'maintainer' }],
    });
    await addToGroup(deps, org._id, readers._id, bobId);
    await addToGroup(deps, org._id, keepers._id, bobId);
    await addToGroup(deps, org._id, keepers._id, bobId);
    const access = await orgAccess(deps, bob, org._id);
    expect([access.agentRole('a1'), access.agentRole('a2'), access.permissions]).toEqual(['maintainer', 'user', [
      'workflows:use',
      'sessions:personal',
    ]]);
    expect(await codeOf(requireAgentRole(deps, bob, { orgId: org._id, agentId: 'a1', role: 'maintainer' }))).toBe(
      'no refusal',
    );
    await updateGroup(deps, org, keepers._id, {
      agentRoles: [{ agent: 'a1', role: 'administrator' }, { agent: 'a2', role: 'maintainer' }],
    });
    const after = await orgAccess(deps, bob, org._id);
    expect([after.agentRole('a1'), after.agentRole('a2')]).toEqual(['administrator', 'maintainer']);
    expect((await listMembers(deps, org._id)).find((m) => m.member._id === bobId)?.groupIds.sort()).toEqual(
      [builtinGroupId(org._id, 'user'), readers._id, keepers._id].sort(),
    );
    expect(await codeOf(createGroup(deps, org._id, { name: 'Keepers' }))).toBe('conflict 409');
    expect(
      await codeOf(
        updateGroup(deps, org, keepers._id, {
          agentRoles: [{ agent: 'a1', role: 'user' }, { agent: 'a1', role: 'reader' }],
        }),
      ),
    ).toBe('invalid_argument 400');
  });

  it('refuses to remove the last Organization Owner on every path, and changes nothing when it does', async () => {
    const { org, adaId } = await adaAndBob();
    const ownerGroup = builtinGroupId(org._id, 'owner');
    expect(await codeOf(removeMember(deps, org, adaId))).toBe('last_owner 409');
    expect(await codeOf(removeFromGroup(deps, org, ownerGroup, adaId))).toBe('last_owner 409');
    expect(await codeOf(updateGroup(deps, org, ownerGroup, { permissions: ['workflows:use'] }))).toBe('last_owner 409');
    expect(await codeOf(deleteGroup(deps, org, ownerGroup))).toBe('builtin_group 409');
    // a custom managing group as the only source of organization:manage
    const managers = await createGroup(deps, org._id, { name: 'Managers', permissions: ['organization:manage'] });
    await addToGroup(deps, org._id, managers._id, adaId);
    await updateGroup(deps, org, ownerGroup, { permissions: ['workflows:use'] });
    expect(await codeOf(deleteGroup(deps, org, managers._id))).toBe('last_owner 409');
    expect(await codeOf(removeFromGroup(deps, org, managers._id, adaId))).toBe('last_owner 409');
    expect((await orgAccess(deps, ada, org._id)).permissions).toContain('organization:manage');
    await updateGroup(deps, org, ownerGroup, { permissions: ['organization:manage'] });
    await deleteGroup(deps, org, managers._id);
    expect((await listGroups(deps, org._id)).map((g) => g.group.name)).not.toContain('Managers');
  });

  it('allows removing an owner once another member is Organization Owner', async () => {
    const { org, adaId, bobId } = await adaAndBob();
    await addToGroup(deps, org._id, builtinGroupId(org._id, 'owner'), bobId);
    await removeMember(deps, org, adaId);
    expect(await codeOf(orgAccess(deps, ada, org._id))).toBe('not_found 404');
    expect((await listMembers(deps, org._id)).map((m) => m.member.email)).toEqual(['bob@example.com']);
    expect(await codeOf(removeMember(deps, org, bobId))).toBe('last_owner 409');
  });

  it('the dev-user default organization is created once, owned by the fixed user', async () => {
    const devUser: OrgCaller = { subject: 'dev-user', email: 'dev@localhost', name: 'Dev User' };
    const first = await ensureDefaultOrganization(deps, devUser);
    const again = await ensureDefaultOrganization(depsOver(await openAnother()), devUser);
    expect(again._id).toBe(first._id);
    expect(first).toMatchObject({ key: 'default', kind: 'default', name: 'Default organization' });
    expect((await listOrganizations(deps, devUser)).map((o) => o._id)).toEqual([first._id]);
    expect((await orgAccess(deps, devUser, first._id)).permissions).toContain('organization:manage');
    expect(await docs.collection(orgCollections.members).countDocuments({ orgId: first._id })).toBe(1);
  });

  async function openAnother(): Promise<DocumentStore> {
    const store = await fixture.open();
    opened.push(store);
    return store;
  }

  it('two racing first sign-ins of one person create one personal organization, fully set up', async () => {
    const [a, b] = lookTogether([await openAnother(), await openAnother()]);
    const [first, second] = await Promise.all([
      ensurePersonalOrganization(depsOver(a!), ada),
      ensurePersonalOrganization(depsOver(b!), ada),
    ]);
    expect(second._id).toBe(first._id);
    expect(first).toMatchObject({ key: 'personal:sub-ada', kind: 'personal', name: 'Ada (personal)' });
    expect(await docs.collection(orgCollections.organizations).countDocuments({})).toBe(1);
    expect(await docs.collection(orgCollections.members).countDocuments({})).toBe(1);
    expect(await docs.collection(orgCollections.groups).countDocuments({})).toBe(4);
    expect(await docs.collection(orgCollections.groupMembers).countDocuments({})).toBe(1);
    expect((await orgAccess(deps, ada, first._id)).permissions).toContain('organization:manage');
    expect((await ensurePersonalOrganization(deps, ada))._id).toBe(first._id);
  });

  it(
    'a personal organization left half set up (a crash after its record) ' + 'is finished by the next sign-in',
    async () => {
      await docs.collection<OrganizationRecord>(orgCollections.organizations).insertOne({
        _id: 'half',
        schemaVersion: orgSchemaVersion,
        key: 'personal:sub-cy',
        name: 'Cy (personal)',
        kind: 'personal',
        createdAt: new Date(0),
        createdBy: 'sub-cy',
        setupComplete: false,
      });
      const org = await ensurePersonalOrganization(deps, cy);
      expect(org).toMatchObject({ _id: 'half', setupComplete: true });
      expect((await orgAccess(deps, cy, 'half')).groups.map((g) => g.name)).toEqual(['Organization Owner']);
      expect(await docs.collection(orgCollections.organizations).findOne({ _id: 'half' })).toMatchObject({
        setupComplete: true,
      });
    },
  );
});
