/**
 * The semantic service as a tool collection answers only the organization that owns the configured token's project
 * (docs/decisions.md D17 § 1): the dispatcher's catalog (core/boot/service-owners.ts over the mcp-services catalog)
 * against the
 * real product started from sources (semantic-mcp behind the front proxy) and its own document store. An agent of
 * another organization, or a call naming none, gets a tool error naming no organization, and the service never
 * sees the call (its call log does not grow); the owner's agents are answered; a service whose token is not a
 * semantic project's is not restricted.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceCatalog, type ServiceCatalog } from '../../core/adapters/mcp-services/index.ts';
import { cryptoIds } from '../../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { semanticCollectionOwners } from '../../core/boot/service-owners.ts';
import { credentialCatalog, deploymentTokenRule, offersOf, organizationCounter } from '../../core/boot/collection-access.ts';
import { openSecretStore } from '../../core/boot/secret-store.ts';
import { createOAuthClient } from '../../core/adapters/oauth/index.ts';
import { systemClock } from '../../core/adapters/runtime/system.ts';
import { collectionCredentials } from '../../core/collection/index.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import type { ServiceConfig } from '../../core/config/config-model.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { flightsModel, projectDir } from '../helpers/semantic-fixtures.ts';

let product: RunningProduct;
let docs: DocumentStore;
let token: string;
let ownerOrg: string;
const catalogs: ServiceCatalog[] = [];

beforeAll(async () => {
  product = await startProduct({}, { mode: 'sources' });
  const sources = { mode: 'sources' } as const;
  const dir = projectDir([flightsModel]);
  const imported = runCairn(product.url, ['semantic', 'import', dir, '--project', 'flights', '--publish'], sources);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['semantic', 'token', 'create', 'flights', '--models', 'flights'], sources);
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();
  const orgs = (await (await fetch(`${product.url}/api/orgs`)).json()) as { organizations: { id: string }[] };
  ownerOrg = orgs.organizations[0]!.id;
  docs = await openSqliteDocumentStore({ path: join(product.dataDir, 'docdb.sqlite') });
}, 180_000);

afterAll(async () => {
  await Promise.all(catalogs.map((catalog) => catalog.close()));
  await docs?.close();
  await product?.stop();
});

/**
 * The dispatcher's catalog over `services` (core/boot/collection-access.ts as bins/dispatcher/main.ts wires it): no
 * organization has a connection of its own, so the deployment's token serves only where it is the organization's.
 */
function guarded(services: ServiceConfig[]) {
  const catalog = createServiceCatalog({ services, log: () => undefined });
  catalogs.push(catalog);
  const owners = semanticCollectionOwners({ docs, ids: cryptoIds }, services);
  const rule = deploymentTokenRule(owners, organizationCounter(docs, systemClock));
  const secrets = openSecretStore({ kind: 'db' }, { docs, clock: systemClock, ids: cryptoIds });
  const offers = offersOf({ services, oauthApps: [] });
  const log = () => undefined;
  return credentialCatalog(catalog, collectionCredentials({ docs, clock: systemClock, secrets, offers, oauth: createOAuthClient(), lease: createDocumentLease(docs, systemClock), owner: 'dispatcher@test', log, ...rule }));
}

/** A query every organization's agent might send. */
const one = { modelName: 'flights', sql: 'SELECT 1 AS one', store: false };

/** Calls of the flights project the semantic service logged. */
async function loggedCalls(): Promise<number> {
  const answer = await fetch(`${product.url}/api/semantic/projects/flights/calls`);
  return ((await answer.json()) as { calls: unknown[] }).calls.length;
}

describe('the semantic collection of a deployment-wide token', () => {
  it('refuses agents of another organization, and calls naming none, before the service sees them', async () => {
    const catalog = guarded([{ id: 'semantic', endpoint: `${product.url}/mcp/flights/mcp`, token }]);
    expect((await catalog.tools()).map((t) => t.name)).toContain('list_semantic_models');
    // Offered to the owner's agents only: another organization's agents are not offered the collection at all.
    expect((await catalog.tools({ orgId: ownerOrg })).map((t) => t.name)).toContain('list_semantic_models');
    expect(await catalog.tools({ orgId: 'another-org' })).toEqual([]);
    const before = await loggedCalls();
    for (const orgId of ['another-org', undefined]) {
      const refused = await catalog.call('semantic', 'execute_query', one, { orgId });
      expect(refused.isError).toBe(true);
      expect(refused.output).toBe('The semantic service of this deployment belongs to another organization; its tools '
        + 'answer only that organization\'s agents. Ask the operator for a semantic service of your own organization.');
      expect(String(refused.output)).not.toContain(ownerOrg);
    }
    expect(await loggedCalls()).toBe(before);

    const answered = await catalog.call('semantic', 'execute_query', one, { orgId: ownerOrg });
    // Query results travel once, as JSON text (docs/decisions.md D18 § 3), so the catalog's output is that text.
    expect(answered.isError).toBe(false);
    expect(JSON.parse(String(answered.output))).toMatchObject({ rows: [[1]], rowCount: 1 });
    expect(await loggedCalls()).toBe(before + 1);
  });

  it('leaves a service whose token is no semantic project\'s unrestricted (no refusal without an owner)', async () => {
    // The same service under another collection with a token the platform never minted: the service refuses the token
    // itself (401), so the answer is the service's own error, not the ownership refusal.
    const endpoint = `${product.url}/mcp/flights/mcp`;
    const catalog = guarded([{ id: 'other', endpoint, token: 'cairn_mcp_not-a-minted-token-0000' }]);
    const result = await catalog.call('other', 'list_semantic_models', {}, { orgId: 'another-org' });
    expect(result.isError).toBe(true);
    expect(String(result.output)).not.toContain('belongs to another organization');
  });
});
