/**
 * The semantic service offered to hosted agents as a tool collection answers only the organization that owns it.
 *
 * The config's services list holds one deployment-wide token per service; for the semantic service that token is
 * an access token of one semantic project, which belongs to one organization. Without a connection of its own, an
 * organization's agents use that token only when it is their organization's (core/boot/collection-access.ts); a
 * call into such a collection for any other organization is refused in the dispatcher before anything reaches the
 * service. A service whose token is not a semantic project's token has no owner (it then serves only a
 * single-organization install).
 *
 * Source: docs/decisions.md D17 § 1 (the semantic service as a tool collection), D22 § 4;
 * spec/platform-service.md § Rules 15.
 */
import type { ServiceConfig } from '../config/config-model.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { ToolCallResult } from '../ports/tool-catalog.ts';
import { collections, type ProjectRecord, type TokenRecord } from '../semantic/records.ts';

/** Which organization, if any, a collection's service belongs to. */
export interface CollectionOwners {
  /** The owning organization's id, or undefined when the collection's service belongs to none. */
  ownerOf(collection: string): Promise<string | undefined>;
}

/**
 * The owners of the configured services' collections: for a service whose token is a semantic project's access
 * token, the project's organization. The first service of a collection counts (as in the catalog). An owner once
 * found is kept (a token's project and a project's organization never change); a token not found is looked up
 * again on the next call (it may be minted later).
 */
export function semanticCollectionOwners(
  deps: { docs: DocumentStore; ids: Pick<Ids, 'sha256Hex'> },
  services: readonly ServiceConfig[],
): CollectionOwners {
  const tokenOf = new Map<string, string>();
  for (const service of services) {
    const collection = service.collection ?? service.id;
    if (!tokenOf.has(collection)) tokenOf.set(collection, service.token);
  }
  const found = new Map<string, string>();
  return {
    ownerOf: async (collection) => {
      const known = found.get(collection);
      if (known !== undefined) return known;
      const token = tokenOf.get(collection);
      if (token === undefined) return undefined;
      const project = await projectOfToken(deps, token);
      if (!project?.orgId) return undefined;
      found.set(collection, project.orgId);
      return project.orgId;
    },
  };
}

/** The semantic project `token` is an access token of, or null when it is none's. */
export async function projectOfToken(
  deps: { docs: DocumentStore; ids: Pick<Ids, 'sha256Hex'> },
  token: string,
): Promise<ProjectRecord | null> {
  const tokenHash = await deps.ids.sha256Hex(token);
  const record = await deps.docs.collection<TokenRecord>(collections.tokens).findOne({ tokenHash });
  return record ? deps.docs.collection<ProjectRecord>(collections.projects).findOne({ _id: record.projectId }) : null;
}

/** The tool error an agent of another organization gets (names no organization). */
export function foreignCollectionRefusal(collection: string): ToolCallResult {
  return {
    isError: true,
    output:
      `The ${collection} service of this deployment belongs to another organization; its tools answer only that ` +
      `organization's agents. Ask the operator for a ${collection} service of your own organization.`,
  };
}
