/**
 * A spend cap needs prices: a capped workflow whose model has none (not offered, or offered with input and output
 * prices of 0) could never reach its cap. A publish that would leave a capped workflow on such a model is refused
 * (a problem located at the workflow's `settings.model`), and so is a new cap on a published workflow that runs on
 * one; the broker also refuses such a call (core/session/spend-reservations.ts `spend_cap_unpriced`).
 *
 * Source: docs/decisions.md D17 § 5 (refuse when a capped workflow uses a model without prices).
 */
import { offeredModelId } from '../adapters/models/ai-model-provider.ts';
import type { AgentFile } from '../agent/documents.ts';
import { readPublishedAgent } from '../agent/published-workflows.ts';
import type { AgentProblem } from '../agent/yaml-source.ts';
import type { ModelsConfig } from '../config/config-model.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { sessionCollections } from '../session/model.ts';
import type { SpendCapRecord } from '../session/spend-model.ts';

/** Whether model `id` (undefined: the default) is offered with prices (input or output above 0). */
export function modelHasPrices(models: ModelsConfig | undefined, id: string | undefined): boolean {
  const offered = models?.offered.find((m) => m.id === offeredModelId(models, id));
  return offered !== undefined && (offered.prices.input > 0 || offered.prices.output > 0);
}

/** The models a workflow's calls run on: the workflow's (undefined: the default) and each state's own. */
export function workflowModels(
  workflow: { model?: string; states: Record<string, { model?: string }> },
): (string | undefined)[] {
  return [...new Set([workflow.model, ...Object.values(workflow.states).map((s) => s.model ?? workflow.model)])];
}

/** The message of a capped workflow on a model without prices. */
export function unpricedCapMessage(workflow: string, environment: string, model: string | undefined): string {
  return `Workflow "${workflow}" has a spend cap in environment "${environment}", ` +
    `but its model "${model ?? 'default'}" ` +
    'has no prices in the config (not offered, or its input and output prices are 0), so the cap could never be ' +
    'reached: give the model prices in the models section, name a priced model, or remove the cap.';
}

/**
 * The publish check of an environment: one problem per capped workflow of `files` whose model has no prices.
 * Wired into the environment operations (core/agent publishing's `publishChecks`).
 */
export function unpricedCapProblems(parts: { docs: DocumentStore; models: ModelsConfig | undefined }) {
  return async (agentId: string, environment: string, files: AgentFile[]): Promise<AgentProblem[]> => {
    const caps = await parts.docs.collection<SpendCapRecord>(sessionCollections.spendCaps)
      .find({ agentId, environment });
    if (caps.length === 0) return [];
    const agent = readPublishedAgent({ files });
    const problems: AgentProblem[] = [];
    for (const slug of new Set(caps.map((c) => c.workflow))) {
      const definition = agent.workflows[slug]?.definition;
      if (!definition) continue;
      const states = (definition.states ?? {}) as Record<string, { model?: string }>;
      const models = workflowModels({ model: definition.settings?.model, states });
      const unpriced = models.findIndex((m) => !modelHasPrices(parts.models, m));
      if (unpriced < 0) continue;
      const file = `workflows/${slug}/workflow.yaml`;
      const message = unpricedCapMessage(slug, environment, models[unpriced]);
      problems.push({ file, line: 1, column: 1, key: 'settings.model', message });
    }
    return problems;
  };
}
