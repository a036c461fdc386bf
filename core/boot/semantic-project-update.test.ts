/**
 * The data update semantic_projects 1→2 run through the boot runner with the release's own list: projects
 * stored without an organization go to the default organization (created when missing, found when the dev-user
 * boot already made it), and a listing-only release refuses to apply it rather than guess.
 */
import { describe, expect, it } from 'vitest';
import { createTestWorld } from '../../test/fixtures/data-update-world.ts';
import { cryptoIds } from '../adapters/runtime/system.ts';
import { runDataUpdatesAtBoot } from '../data-update/index.ts';
import { ensureDefaultOrganization, type OrganizationRecord, orgCollections } from '../org/index.ts';
import { collections } from '../semantic/records.ts';
import { platformRelease } from './platform-release.ts';

const off = { allowNewerData: false };
const oldProject = (id: string, slug: string) => ({
  _id: id,
  schemaVersion: 1,
  slug,
  name: slug,
  pageSize: 25,
  createdAt: new Date(0),
  sourceRevision: 0,
});

describe('semantic_projects 1→2 (a project belongs to an organization)', () => {
  it('gives projects without one to the default organization, creating it when missing', async () => {
    const w = createTestWorld();
    await w.insert(collections.projects, oldProject('p1', 'flights'), oldProject('p2', 'sales'));
    const release = platformRelease({ docs: w.docs, clock: w.deps.clock, ids: cryptoIds });
    const { applied } = await runDataUpdatesAtBoot(w.deps, release, off);
    expect(applied.map((a) => [a.collection, a.from, a.to, a.documents])).toEqual([[collections.projects, 1, 2, 2]]);
    const orgs = await w.docs.collection<OrganizationRecord>(orgCollections.organizations).find({});
    expect(orgs.map((o) => [o.key, o.createdBy, o.setupComplete])).toEqual([['default', 'dev-user', true]]);
    const projects = await w.all(collections.projects);
    const orgId = orgs[0]!._id;
    expect(projects.map((p) => [p._id, p.schemaVersion, p.orgId])).toEqual([['p1', 2, orgId], ['p2', 2, orgId]]);
  });

  it('uses the default organization the dev-user boot already prepared', async () => {
    const w = createTestWorld();
    const world = { docs: w.docs, clock: w.deps.clock, ids: cryptoIds };
    const org = await ensureDefaultOrganization(world, { subject: 'dev-user', email: 'dev@localhost' });
    await w.insert(collections.projects, oldProject('p1', 'flights'));
    await runDataUpdatesAtBoot(w.deps, platformRelease(world), off);
    expect((await w.all(collections.projects)).map((p) => p.orgId)).toEqual([org._id]);
    expect(await w.docs.collection(orgCollections.organizations).find({})).toHaveLength(1);
  });

  it('is refused, leaving the project as it was, by a release given no stores', async () => {
    const w = createTestWorld();
    await w.insert(collections.projects, oldProject('p1', 'flights'));
    const refused = runDataUpdatesAtBoot(w.deps, platformRelease(), off);
    await expect(refused).rejects.toMatchObject({ code: 'data_update_failed' });
    expect((await w.all(collections.projects)).map((p) => [p.schemaVersion, p.orgId])).toEqual([[1, undefined]]);
  });
});
