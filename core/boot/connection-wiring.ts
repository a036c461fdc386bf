/**
 * Wires the connection use cases (core/connection) to hosted agents (core/agent) and organizations
 * (core/org): the agent found by id or slug among the caller's organizations and the caller's role on it (the
 * one resolver and authorization helper, core/boot/agent-authority.ts `agentScope`), its environment; the member
 * rule of admission (the User role or above holds workflows:use); and the OIDC endpoint verifier (owner-supplied
 * URLs guarded unless PLATFORM_ALLOW_PRIVATE_URLS); connection edits
 * put in effect when their environment is published.
 *
 * Source: docs/decisions.md D8 § Connections; spec/platform-service.md § Incoming connection authentication (rule 1).
 */
import { createEndpointJwtVerifier } from '../adapters/oidc/index.ts';
import type { FetchFunction } from '../adapters/oidc/index.ts';
import { agentCollections, type EnvironmentRecord } from '../agent/hosting-model.ts';
import { agentScope } from './agent-authority.ts';
import { type AdmissionDeps, applyPendingEdits, type ConnectionDeps } from '../connection/index.ts';
import type { OperationRecord } from '../agent/hosting.ts';
import { reconciliationAfter } from '../deployment/index.ts';
import { orgAccess, roleAtLeast } from '../org/index.ts';
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';

/** ConnectionDeps over the stores and core/org's roles. */
export function connectionDeps(parts: {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
  production: boolean;
  allowPrivateUrls?: boolean;
}): ConnectionDeps {
  const { docs } = parts;
  const agentOf = agentScope(docs);
  return {
    docs,
    clock: parts.clock,
    ids: parts.ids,
    production: parts.production,
    allowPrivateUrls: parts.allowPrivateUrls === true,
    scope: async (caller, agentRef, environment, role) => {
      const agent = await agentOf(caller, agentRef, role);
      const env = await docs.collection<EnvironmentRecord>(agentCollections.environments).findOne({
        agentId: agent._id,
        name: environment,
      });
      if (!env) {
        throw new PlatformError(
          'environment_not_found',
          `Agent "${agent.slug}" has no environment "${environment.slice(0, 60)}".`,
          { status: 404 },
        );
      }
      return { orgId: agent.orgId, agentId: agent._id, environment: env.name };
    },
  };
}

/**
 * AdmissionDeps: digests, the endpoint JWT verifier, and the member rule (a member whose role on the agent
 * is User or above holds workflows:use).
 */
export function admissionDeps(parts: {
  docs: DocumentStore;
  ids: Ids;
  fetch?: FetchFunction;
  now?: () => Date;
  allowPrivateUrls?: boolean;
}): AdmissionDeps {
  // Owner-supplied issuer and key URLs are guarded unless PLATFORM_ALLOW_PRIVATE_URLS (never in production).
  const jwt = createEndpointJwtVerifier({
    ...(parts.fetch ? { fetch: parts.fetch } : {}),
    ...(parts.now ? { now: parts.now } : {}),
    allowPrivateUrls: parts.allowPrivateUrls === true,
  });
  return {
    ids: parts.ids,
    jwt,
    memberMayUse: async (subject, orgId, agentId) => {
      try {
        return roleAtLeast((await orgAccess({ docs: parts.docs }, { subject }, orgId)).agentRole(agentId), 'user');
      } catch (error) {
        if (isPlatformError(error, 'not_found')) return false;
        throw error;
      }
    },
  };
}

/**
 * Puts connection edits in effect after a succeeded publish, restore or promotion of their environment (rule 6:
 * edits take effect on publish); nothing for other operations.
 * @param log - receives one line naming the connections whose edits took effect
 */
export async function applyConnectionEditsAfter(
  deps: { docs: DocumentStore; clock: Clock },
  op: Pick<OperationRecord, 'kind' | 'status' | 'agentId' | 'environment' | 'input'>,
  log: (line: string) => void,
): Promise<void> {
  const after = reconciliationAfter(op);
  if (!after) return;
  const applied = await applyPendingEdits(deps, after.env);
  if (applied.length > 0) {
    log(
      `connection edits took effect on the ${after.reason} of environment ` +
        `${after.env.environment} of agent ${after.env.agentId}: ` + `${applied.join(', ')}`,
    );
  }
}
