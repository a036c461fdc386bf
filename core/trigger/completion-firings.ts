/**
 * Completion firings through the trigger queue: when a turn settles, its firing (if any) is put on the `triggers`
 * queue; a dispatcher consuming it opens the sessions of the completion triggers that name the workflow, on the
 * environment's current published build.
 *
 * Source: spec/platform-service.md § Processes (trigger queues), § What the service does (completion);
 * docs/decisions.md D7 § Sessions and turns.
 */
import type { JobQueue } from '../ports/job-queue.ts';
import { type CompletionFiring, completionFiring, fireCompletion } from '../session/completion.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from '../session/session-store.ts';
import { publishedWorkflows, workflowView } from '../session/build-workflows.ts';
import { publishedEnvironment } from '../session/published-environment.ts';

/** The queue trigger firings are put on. Source: spec § Processes (trigger queues). */
export const TRIGGER_QUEUE = 'triggers';

/** Puts the completion firing of a settled turn on the trigger queue (nothing when none fires). */
export async function queueCompletionFiring(
  deps: SessionStoreDeps & { queue: JobQueue },
  turnId: string,
): Promise<CompletionFiring | undefined> {
  const turn = await turnsOf(deps).findOne({ _id: turnId });
  const session = turn ? await sessionsOf(deps).findOne({ _id: turn.sessionId }) : null;
  const firing = turn && session ? completionFiring(session, turn) : undefined;
  if (firing) await deps.queue.add(TRIGGER_QUEUE, 'completion', { firing }, { jobId: `completion-${turnId}` });
  return firing;
}

/** Runs one completion firing: the completion triggers of the environment's published build naming its workflow. */
export async function runCompletionFiring(
  deps: SessionStoreDeps & {
    enqueueTurn(turnId: string): Promise<void>;
    builds: ReturnType<typeof publishedWorkflows>;
  },
  firing: CompletionFiring,
): Promise<string[]> {
  const published = await publishedEnvironment(deps, firing.agentId, firing.environment);
  if (!published) return [];
  const { env, agent } = published;
  const targets = Object.values(agent.workflows).map((workflow) => ({
    view: workflowView(agent, workflow.slug),
    triggers: workflow.triggers.filter((t) => t.type === 'completion').map((t) => ({
      id: t.id,
      state: t.state,
      workflow: String(t.fields.workflow ?? ''),
    })),
  })).filter((target) => target.triggers.length > 0);
  return fireCompletion(deps, firing, {
    orgId: env.orgId,
    buildId: env.published.buildId,
    commitId: env.published.commitId,
    targets,
  });
}
