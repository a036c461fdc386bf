/**
 * Release passes: after a release that changes how desired deployments are computed, their configuration
 * fingerprint or the supported trigger strategies, every environment is reconciled once. The operator tool lists
 * the passes (each environment with its last reconciliation) or, with its apply switch, requests them (reason
 * `release`, which tries every deployment again).
 *
 * Source: spec/platform-service.md § Trigger deployment (an operator tool lists, or with an apply switch
 * requests, the passes; an agent id may limit it to one agent).
 */
import type { EnvironmentRef, ReconciliationRecord } from './model.ts';
import { type ReconciliationDeps, reconciliationOf, requestReconciliation } from './requests.ts';

/** One environment's pass: the environment, whether it has a published build, its last reconciliation request. */
export interface ReleasePass {
  env: EnvironmentRef;
  published: boolean;
  /** The request before this run (null: never reconciled). */
  last: ReconciliationRecord | null;
  /** Set when the apply switch requested the pass. */
  requested?: ReconciliationRecord;
}

/**
 * Lists (and with `apply` requests) the release pass of each environment.
 * @param environments - every environment to reconcile (limited to one agent by the caller when asked), with
 *   whether it has a published build (an unpublished one still gets a pass: it removes deployments left over)
 * @returns one entry per environment, in the order given
 */
export async function releasePasses(
  deps: ReconciliationDeps,
  environments: (EnvironmentRef & { published: boolean })[],
  apply: boolean,
): Promise<ReleasePass[]> {
  const passes: ReleasePass[] = [];
  for (const e of environments) {
    const env = { agentId: e.agentId, environment: e.environment };
    const last = await reconciliationOf(deps, env);
    passes.push({
      env,
      published: e.published,
      last,
      ...(apply ? { requested: await requestReconciliation(deps, env, 'release') } : {}),
    });
  }
  return passes;
}

/** One line describing a pass, e.g. `a1/main: published; last reconciliation done (publish) at 2026-…; requested`. */
export function passLine(pass: ReleasePass): string {
  const last = pass.last
    ? `last reconciliation ${pass.last.status} (${pass.last.reason}) requested ${pass.last.requestedAt.toISOString()}`
    : 'never reconciled';
  return `${pass.env.agentId}/${pass.env.environment}: ${pass.published ? 'published' : 'nothing published'}; ${last}${
    pass.requested ? '; pass requested' : ''
  }`;
}
