/**
 * Wires the session use cases (core/session) to hosted agents (core/agent) and organizations (core/org): agent
 * roles, agents found by id or slug, the published build of an environment, and the turn queue.
 *
 * Source: issue 7 § Sessions and turns, § Operators; spec/platform-service.md § Session facts named.
 */
import { agentCollections, type AgentRecord, type EnvironmentRecord } from '../agent/hosting-model.ts';
import { orgAccess, requireAgentRole, type OrgDeps } from '../org/index.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionDeps, SessionCaller } from '../session/sessions.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import type { WorkflowView } from '../session/workflow-view.ts';

/** The queue turns are put on (every dispatcher consumes it). Source: spec § Processes (dispatcher: turns). */
export const TURN_QUEUE = 'turns';

/**
 * Puts turn `turnId` on the turn queue. `jobId` defaults to the turn id (a second add of the same turn is one job);
 * a re-queue after a lost queue store gives a new one. BullMQ refuses job ids holding `:`.
 */
export async function enqueueTurnJob(queue: JobQueue, turnId: string, jobId = turnId): Promise<void> {
  await queue.add(TURN_QUEUE, 'turn', { turnId }, { jobId });
}

/** Finds an agent by id, or by slug among the organizations the caller belongs to (or `orgId`). */
async function findAgent(docs: DocumentStore, orgDeps: Pick<OrgDeps, 'docs'>, caller: SessionCaller, ref: { orgId?: string; agent: string }): Promise<AgentRecord> {
  const agents = docs.collection<AgentRecord>(agentCollections.agents);
  const byId = await agents.findOne({ _id: ref.agent });
  if (byId && (ref.orgId === undefined || byId.orgId === ref.orgId)) return byId;
  const candidates = await agents.find(ref.orgId === undefined ? { slug: ref.agent } : { slug: ref.agent, orgId: ref.orgId });
  const visible: AgentRecord[] = [];
  for (const agent of candidates) {
    const member = await orgAccess(orgDeps, caller, agent.orgId).then(() => true, () => false);
    if (member) visible.push(agent);
  }
  if (visible.length === 1) return visible[0];
  if (visible.length > 1) throw new PlatformError('ambiguous_agent', `Agent "${ref.agent}" exists in several of your organizations (${visible.map((a) => a.orgId).join(', ')}); name one with orgId (--org).`, { status: 409 });
  throw new PlatformError('agent_not_found', `No agent "${ref.agent.slice(0, 80)}" was found in your organizations.`, { status: 404 });
}

/**
 * SessionDeps over the stores, core/org's roles and a turn queue.
 * @param workflowOf - the engine's view of a build's workflow (core/boot/workflow-view.ts)
 */
export function sessionDeps(parts: SessionStoreDeps & { queue: JobQueue | undefined; workflowOf(buildId: string, slug: string): Promise<WorkflowView> }): SessionDeps {
  const orgDeps = { docs: parts.docs };
  return {
    docs: parts.docs, objects: parts.objects as ObjectStore, clock: parts.clock, ids: parts.ids,
    requireRole: async (caller, orgId, agentId, role) => { await requireAgentRole(orgDeps, caller, orgId, agentId, role); },
    resolveAgent: async (caller, ref) => {
      const agent = await findAgent(parts.docs, orgDeps, caller, ref);
      return { orgId: agent.orgId, agentId: agent._id };
    },
    resolveWorkflow: async (caller, ref) => {
      const agent = await findAgent(parts.docs, orgDeps, caller, ref);
      await requireAgentRole(orgDeps, caller, agent.orgId, agent._id, 'reader');
      const env = await parts.docs.collection<EnvironmentRecord>(agentCollections.environments).findOne({ agentId: agent._id, name: ref.environment });
      if (!env) throw new PlatformError('environment_not_found', `Agent "${agent.slug}" has no environment "${ref.environment.slice(0, 60)}".`, { status: 404 });
      if (!env.published) throw new PlatformError('not_published', `Environment "${env.name}" of agent "${agent.slug}" has nothing published yet; publish it first.`, { status: 409 });
      const view = await parts.workflowOf(env.published.buildId, ref.workflow);
      return { orgId: agent.orgId, agentId: agent._id, environment: env.name, buildId: env.published.buildId, commitId: env.published.commitId, view };
    },
    enqueueTurn: async (turnId) => {
      if (!parts.queue) throw new PlatformError('queue_unavailable', 'No queue store is configured (QUEUE_URL), so no turn can run; set QUEUE_URL or run the all-in-one container.', { status: 503 });
      await enqueueTurnJob(parts.queue, turnId);
    },
  };
}
