/**
 * An agent environment with the build it has published, read once for whoever serves or fires from it (endpoints,
 * firings, polls, callbacks, deployments): the environment record, then its build from the build cache.
 *
 * Source: spec/platform-service.md § Trigger deployment (the current published build serves); docs/decisions.md D8.
 */
import type { PublishedAgent } from '../agent/hosting.ts';
import { agentCollections, type EnvironmentRecord } from '../agent/hosting-model.ts';
import type { TriggerDeclaration, TriggerType } from '../agent/trigger-model.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { publishedWorkflows } from './build-workflows.ts';

/** An environment record that has a published build. */
export type PublishedEnvironmentRecord = EnvironmentRecord & { published: NonNullable<EnvironmentRecord['published']> };

/** An environment and the build it publishes. */
export interface PublishedEnvironment {
  env: PublishedEnvironmentRecord;
  agent: PublishedAgent;
}

/** What reading one needs: the document store and the build cache. */
export interface PublishedEnvironmentDeps {
  docs: DocumentStore;
  builds: ReturnType<typeof publishedWorkflows>;
}

/** Environment `environment` of agent `agentId` with its published build; null when it has none (or does not exist). */
export async function publishedEnvironment(
  deps: PublishedEnvironmentDeps,
  agentId: string,
  environment: string,
): Promise<PublishedEnvironment | null> {
  const env = await deps.docs.collection<EnvironmentRecord>(agentCollections.environments).findOne({
    agentId,
    name: environment,
  });
  if (!env?.published) return null;
  return { env: env as PublishedEnvironmentRecord, agent: await deps.builds.agentOf(env.published.buildId) };
}

/**
 * Trigger `trigger` of kind `type` in workflow `workflow` of the environment's published build, with the environment;
 * null when nothing is published or the build does not declare it.
 */
export async function publishedTrigger(
  deps: PublishedEnvironmentDeps,
  ref: { agentId: string; environment: string; workflow: string; trigger: string },
  type: TriggerType,
): Promise<(PublishedEnvironment & { trigger: TriggerDeclaration }) | null> {
  const published = await publishedEnvironment(deps, ref.agentId, ref.environment);
  const trigger = published?.agent.workflows[ref.workflow]?.triggers.find((t) =>
    t.id === ref.trigger && t.type === type
  );
  return published && trigger ? { ...published, trigger } : null;
}
