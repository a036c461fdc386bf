/**
 * Wires the session use cases (core/session) to hosted agents (core/agent) and organizations (core/org): agents
 * found by id or slug among the caller's organizations and the caller's role on them (core/boot/agent-authority.ts,
 * the one resolver and authorization helper), who sees every member's chats (sessions:personal), the published
 * build of an environment, and the turn queue.
 *
 * Source: docs/decisions.md D7 § Sessions and turns, § Operators; spec/platform-service.md § Session facts named.
 */
import type { ModelsConfig } from '../config/config-model.ts';
import { modelHasPrices } from './spend-cap-models.ts';
import { loadEnvironment, requirePublished } from '../agent/hosting.ts';
import { orgAccess } from '../org/index.ts';
import { agentScope, requireAgentRoleOf } from './agent-authority.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import type { SessionChanges } from '../ports/session-changes.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionDeps } from '../session/session-access.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import type { WorkflowView } from '../session/workflow-view.ts';
import { enqueueTurnJob } from '../session/turn-jobs.ts';

/**
 * SessionDeps over the stores, core/org's roles and a turn queue.
 * @param workflowOf - the engine's view of a build's workflow (core/session/build-workflows.ts)
 * @param models - the config's models section: given, a spend cap on a workflow whose model has no prices is refused
 * @param changes - told after a cancel (readers of the chat and its running turn read again)
 */
export function sessionDeps(
  parts: SessionStoreDeps & {
    queue: JobQueue | undefined;
    workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
    models?: ModelsConfig;
    changes?: SessionChanges;
  },
): SessionDeps {
  const agentOf = agentScope(parts.docs);
  const lookup = (ref: { orgId?: string }) => (ref.orgId === undefined ? {} : { orgId: ref.orgId });
  return {
    docs: parts.docs,
    objects: parts.objects as ObjectStore,
    clock: parts.clock,
    ids: parts.ids,
    ...(parts.changes ? { changes: parts.changes } : {}),
    requireRole: async (caller, orgId, agentId, role) => {
      await requireAgentRoleOf({ docs: parts.docs }, caller, { orgId, agentId, role });
    },
    seesEveryChat: async (caller, orgId) => {
      const access = await orgAccess({ docs: parts.docs }, caller, orgId).catch(() => undefined);
      return access?.permissions.includes('sessions:personal') ?? false;
    },
    resolveAgent: async (caller, ref) => {
      const agent = await agentOf(caller, ref.agent, 'reader', lookup(ref));
      return { orgId: agent.orgId, agentId: agent._id };
    },
    resolveWorkflow: async (caller, ref) => {
      const agent = await agentOf(caller, ref.agent, 'reader', lookup(ref));
      const published = requirePublished(agent, await loadEnvironment(parts, agent, ref.environment));
      const view = await parts.workflowOf(published.buildId, ref.workflow);
      return {
        orgId: agent.orgId,
        agentId: agent._id,
        environment: ref.environment,
        buildId: published.buildId,
        commitId: published.commitId,
        view,
      };
    },
    ...('models' in parts ? { modelHasPrices: (id: string | undefined) => modelHasPrices(parts.models, id) } : {}),
    enqueueTurn: async (turnId) => {
      if (!parts.queue) {
        throw new PlatformError(
          'queue_unavailable',
          'No queue store is configured (QUEUE_URL), so no turn can run; set QUEUE_URL or run the all-in-one ' +
            'container.',
          { status: 503 },
        );
      }
      await enqueueTurnJob({ queue: parts.queue, docs: parts.docs }, turnId);
    },
  };
}
