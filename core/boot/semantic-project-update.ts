/**
 * The data update `semantic_projects` 1→2: a project now belongs to an organization (`orgId`). A project stored
 * before organizations owned projects is given to the default organization (key `default`: the one the
 * dev-user sign-in mode prepares at boot), which is created, owned by the dev user, when it does not exist yet.
 * Under oidc or cloud-alb nobody signs in as the dev user, so such projects are then reachable by no member
 * until an operator gives them to an organization: safe (no tenant sees them), never silently shared.
 *
 * Source: docs/decisions.md D17 § 1 (a data update gives existing projects to the default organization);
 * spec/platform-service.md § Data update at boot, § Versioning.
 */
import { devUserPrincipal } from '../auth/principal.ts';
import type { DataUpdate, StoredDocument } from '../data-update/index.ts';
import {
  defaultOrganizationKey,
  ensureDefaultOrganization,
  type OrganizationRecord,
  orgCollections,
} from '../org/index.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import { collections } from '../semantic/records.ts';

/** What the update needs to find (or create) the default organization; absent where updates are only listed. */
export interface ProjectUpdateWorld {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
}

/**
 * The id of the default organization, created (owned by the dev user) when missing.
 * @throws PlatformError as core/org's ensureDefaultOrganization
 */
export async function defaultOrganizationId(world: ProjectUpdateWorld): Promise<string> {
  const orgs = world.docs.collection<OrganizationRecord>(orgCollections.organizations);
  const found = await orgs.findOne({ key: defaultOrganizationKey });
  if (found?.setupComplete) return found._id;
  const dev = { subject: devUserPrincipal.id, email: devUserPrincipal.email, name: devUserPrincipal.name };
  return (await ensureDefaultOrganization(world, dev))._id;
}

/**
 * The update; `world` resolves the default organization once, on the first project rewritten.
 * @param world - the stores; without them (a release only listed) applying throws
 */
export function semanticProjectOrgUpdate(world?: ProjectUpdateWorld): DataUpdate {
  let orgId: Promise<string> | undefined;
  return {
    collection: collections.projects,
    from: 1,
    to: 2,
    description: 'gives each project to the default organization (orgId)',
    apply: async (doc: StoredDocument) => {
      if (typeof doc.orgId === 'string' && doc.orgId !== '') return doc;
      if (!world) throw new Error('this update needs the document store to find the default organization');
      orgId ??= defaultOrganizationId(world);
      return { ...doc, orgId: await orgId };
    },
  };
}
