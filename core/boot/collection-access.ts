/**
 * Wiring of per-organization collection credentials: the offers built from the config, the credentials over the
 * stores, the catalog whose listing and calls follow them, the semantic service's token check, and the boot line
 * saying whether the deployment's service tokens serve (a single-organization install) or not.
 *
 * Source: spec/platform-service.md § Rules 15, 17; docs/decisions.md D22 § 4.
 */
import {
  askReconnectsForNewClientIds,
  type CollectionApp,
  type CollectionCredentials,
  type CollectionDeps,
  type CollectionOffers,
  collectionOffers,
  type CredentialDeps,
  ensureCollectionIndexes,
  finishDisconnects,
} from '../collection/index.ts';
import type { OAuthAppConfig, PlatformConfig } from '../config/config-model.ts';
import { orgCollections } from '../org/model.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { OAuthClient } from '../ports/oauth-client.ts';
import type { SecretStore } from '../ports/secret-store.ts';
import type { CatalogTool, ToolCallOptions, ToolCatalog, ToolListOptions } from '../ports/tool-catalog.ts';
import {
  type CollectionOwners,
  foreignCollectionRefusal,
  projectOfToken,
  semanticCollectionOwners,
} from './service-owners.ts';

/** The collections the config's services serve, OAuth ones those an app lists. */
export function offersOf(config: Pick<PlatformConfig, 'services' | 'oauthApps'>): CollectionOffers {
  return collectionOffers(config.services.map((s) => s.collection ?? s.id), config.oauthApps.map(appOf));
}

function appOf(app: OAuthAppConfig): CollectionApp {
  const provider = app.provider ?? {};
  return {
    appId: app.id,
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    collections: app.collections,
    ...(app.reach ? { reach: app.reach } : {}),
    ...(provider.issuer ? { issuer: provider.issuer } : {}),
    ...(provider.authorizationUrl ? { authorizationUrl: provider.authorizationUrl } : {}),
    ...(provider.tokenUrl ? { tokenUrl: provider.tokenUrl } : {}),
    ...(provider.revocationUrl ? { revocationUrl: provider.revocationUrl } : {}),
    scopes: provider.scopes ?? [],
    hasProvider: app.provider !== undefined,
  };
}

/** How long the organization count is kept, in ms. */
const ORG_COUNT_TTL_MS = 10_000;

/** How many organizations the deployment has, read at most every 10 s. */
export function organizationCounter(docs: DocumentStore, clock: Clock): () => Promise<number> {
  let kept: { count: number; atMs: number } | undefined;
  return async () => {
    const nowMs = clock.now().getTime();
    if (kept && nowMs - kept.atMs < ORG_COUNT_TTL_MS) return kept.count;
    const count = await docs.collection(orgCollections.organizations).countDocuments({});
    kept = { count, atMs: nowMs };
    return count;
  };
}

/** The deployment-token rule's inputs (core/collection deploymentServes), for the API's listing and the calls. */
export function deploymentTokenRule(
  owners: CollectionOwners,
  organizationCount: () => Promise<number>,
): Pick<CredentialDeps, 'deploymentOwner' | 'organizationCount'> {
  return { deploymentOwner: (collection: string) => owners.ownerOf(collection), organizationCount };
}

/**
 * The boot line about the deployment's service tokens: `[credentials] single-organization install: …` or
 * `[credentials] N organizations: …`. Empty when no service is configured.
 */
export function deploymentTokenLine(services: number, organizations: number): string {
  if (services === 0) return '';
  if (organizations <= 1) {
    return "[credentials] single-organization install: the services' own tokens serve its agents until it " +
      'connects collections of its own (a second organization ends that; each then connects its own)';
  }
  return `[credentials] ${organizations} organizations: the services' own tokens serve no organization (but the ` +
    'one a semantic project token belongs to); each organization connects its collections';
}

/**
 * The semantic service's token check: a token that is a semantic project's access token is stored only by that
 * project's organization, and the semantic collection takes no other token.
 */
export function semanticTokenCheck(
  deps: { docs: DocumentStore; ids: Pick<Ids, 'sha256Hex'> },
  owners: CollectionOwners,
): NonNullable<CollectionDeps['checkToken']> {
  return async (orgId, collection, token) => {
    const project = await projectOfToken(deps, token);
    if (project && project.orgId !== orgId) {
      return "This token is not one of your organization's: create an access token of one of its own semantic " +
        'projects (cairn semantic token create <project>).';
    }
    if (!project && (await owners.ownerOf(collection)) !== undefined) {
      return `The ${collection} collection takes an access token of one of your organization's semantic projects ` +
        '(cairn semantic token create <project>).';
    }
    return undefined;
  };
}

/**
 * `catalog` whose listing offers an organization only the collections it may use, and whose calls carry the
 * organization's credential: its own connection's, else the service's own token where that serves it; a call
 * into a collection it may not use is refused before the service sees it (a tool error the model reads).
 */
export function credentialCatalog<C extends ToolCatalog>(catalog: C, credentials: CollectionCredentials): C {
  const tools = async (options: ToolListOptions = {}): Promise<CatalogTool[]> => {
    const all = await catalog.tools();
    if (options.orgId === undefined) return all;
    const offered = await credentials.offered(options.orgId, [...new Set(all.map((t) => t.collection))]);
    return all.filter((tool) => offered.has(tool.collection));
  };
  const call = async (collection: string, name: string, input: unknown, options: ToolCallOptions = {}) => {
    const { credential: _ignored, ...rest } = options;
    const found = options.orgId === undefined
      ? { kind: 'none', reason: 'foreign' } as const
      : await credentials.credentialFor(options.orgId, collection);
    if (found.kind === 'own') return catalog.call(collection, name, input, { ...rest, credential: found.token });
    if (found.kind === 'deployment') return catalog.call(collection, name, input, rest);
    if (found.kind === 'failed') return { isError: true, output: found.message };
    if (found.reason === 'foreign') return foreignCollectionRefusal(collection);
    return notConnectedRefusal(collection, found.reason);
  };
  return { ...catalog, tools, call };
}

/** The tool error of a collection the agent's organization has not connected (or must connect again). */
export function notConnectedRefusal(collection: string, reason: 'not_connected' | 'reconnect') {
  const what = reason === 'reconnect' ? 'must connect it again' : 'has not connected it';
  return {
    isError: true,
    output: `The ${collection} collection is not available to this agent: its organization ${what}. An ` +
      'Organization Administrator connects it on the Collections page (Members → Collections).',
  };
}

/** What {@link collectionDepsOf} reads. */
export interface CollectionWiringParts {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
  secrets: SecretStore;
  oauth: OAuthClient;
  config: Pick<PlatformConfig, 'services' | 'oauthApps'>;
  /** OAUTH2_REDIRECT_URL. */
  redirectUrl?: string;
  log(line: string): void;
}

/** The API's collection use cases' deps: offers, the semantic token check and the deployment-token rule. */
export function collectionDepsOf(parts: CollectionWiringParts): CollectionDeps {
  const owners = semanticCollectionOwners(parts, parts.config.services);
  return {
    docs: parts.docs,
    clock: parts.clock,
    ids: parts.ids,
    secrets: parts.secrets,
    offers: offersOf(parts.config),
    oauth: parts.oauth,
    ...(parts.redirectUrl ? { redirectUrl: parts.redirectUrl } : {}),
    log: parts.log,
    checkToken: semanticTokenCheck(parts, owners),
    ...deploymentTokenRule(owners, organizationCounter(parts.docs, parts.clock)),
  };
}

/**
 * The API's start: indexes, the connections of an app whose client id changed asked to reconnect, interrupted
 * disconnects completed, and the deployment-token line.
 */
export async function startCollections(deps: CollectionDeps, services: number): Promise<void> {
  await ensureCollectionIndexes(deps.docs);
  await askReconnectsForNewClientIds(deps);
  await finishDisconnects(deps);
  const line = deploymentTokenLine(
    services,
    await deps.docs.collection(orgCollections.organizations).countDocuments({}),
  );
  if (line) deps.log(line);
}
