/**
 * Wires the design agent (core/design) into a dispatcher: the config's `designAgent` as a model provider of its own
 * (never one of the models offered to workflows), the design workflow, and the design tools as the catalog of the
 * design queue's turn runner, over the hosting use cases; `design_run_evaluations` runs the draft's cases through the
 * evaluations queue and waits for the verdict.
 *
 * Source: issue "The design agent" § Runtime; spec/platform-service.md § Config sections named (designAgent);
 * docs/decisions.md D21.
 */
import { createAiModelProvider } from '../adapters/models/ai-model-provider.ts';
import type { AgentDeps } from '../agent/hosting.ts';
import type { DesignAgentConfig, ModelsConfig, PlatformConfig } from '../config/config-model.ts';
import { MODEL_PROVIDER_TYPES } from '../config/config-model.ts';
import { DESIGN_BUILD, designCatalog, designWorkflowView } from '../design/design-runtime.ts';
import type { DesignOffer, DesignTarget, DesignToolDeps } from '../design/design-tools.ts';
import { startEvaluationRun } from '../evaluation/evaluation-runs.ts';
import { runEnd, runSummary } from '../evaluation/gate.ts';
import type { JobQueue } from '../ports/job-queue.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { ToolCatalog } from '../ports/tool-catalog.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import type { TurnRunnerDeps } from '../session/turn-runner.ts';
import { evaluationDeps } from './evaluation-wiring.ts';
import { turnCost } from './turn-cost.ts';

/** The provider id the design agent's model is reached through (internal to its own ModelsConfig). */
const DESIGN_PROVIDER = 'design-agent';

/**
 * The design agent's model as a ModelsConfig of one provider and one model (its prices, 0 when none are given).
 * `provider` is a models provider type (openai-compatible, anthropic, bedrock); `openai` is openai-compatible at
 * https://api.openai.com/v1 unless `apiBaseUrl` says otherwise.
 * @throws PlatformError `invalid_config` naming designAgent.provider when it is none of those
 */
export function designModelsConfig(design: DesignAgentConfig): ModelsConfig {
  const known = (MODEL_PROVIDER_TYPES as readonly string[]).includes(design.provider);
  if (!known && design.provider !== 'openai') {
    throw new PlatformError(
      'invalid_config',
      `designAgent.provider "${design.provider}" is not a provider cairn speaks: use openai-compatible (with ` +
        'apiBaseUrl), openai, anthropic or bedrock (with region).',
      { status: 500 },
    );
  }
  const type = known ? design.provider as ModelsConfig['providers'][number]['type'] : 'openai-compatible';
  const apiBaseUrl = design.apiBaseUrl ?? (design.provider === 'openai' ? 'https://api.openai.com/v1' : undefined);
  return {
    providers: [{
      id: DESIGN_PROVIDER,
      type,
      ...(apiBaseUrl === undefined ? {} : { apiBaseUrl }),
      ...(design.apiKey === undefined ? {} : { apiKey: design.apiKey }),
      ...(design.region === undefined ? {} : { region: design.region }),
    }],
    offered: [{ id: design.model, provider: DESIGN_PROVIDER, prices: design.prices ?? { input: 0, output: 0 } }],
    default: design.model,
  };
}

/** What the design queue's runner is made from: the turn queue's runner deps and the process's parts. */
export interface DesignRunnerParts {
  /** The turn queue's runner deps (stores, launcher, slots, limits, live channel, instance). */
  turns: TurnRunnerDeps;
  config: Pick<PlatformConfig, 'designAgent'>;
  hosting: AgentDeps;
  /** The service catalog (what design_list_tools lists). */
  services: ToolCatalog;
  queue?: JobQueue;
}

/**
 * The runner deps of the `design-agent-turns` queue: the designAgent model and prices, the design workflow, the
 * design tools; no completion firing after a turn. Undefined without a designAgent section (the API refuses to start
 * design chats then, so none is queued).
 */
export function designRunnerDeps(parts: DesignRunnerParts): TurnRunnerDeps | undefined {
  const design = parts.config.designAgent;
  if (!design) return undefined;
  const models = designModelsConfig(design);
  const view = designWorkflowView(design.model, parts.turns.promptCache.enabled);
  const tools: DesignToolDeps = {
    hosting: parts.hosting,
    offer: () => offerOf(parts.services),
    runEvaluations: (target, selection) => runDraftEvaluations({ ...parts.turns, ...parts }, target, selection),
  };
  const { afterTurn: _afterTurn, evaluationModels: _evaluationModels, ...turns } = parts.turns;
  return {
    ...turns,
    models: createAiModelProvider({ models }),
    costOf: turnCost(models),
    catalog: designCatalog(tools),
    workflowOf: (buildId) => {
      if (buildId === DESIGN_BUILD) return Promise.resolve(view);
      return Promise.reject(
        new PlatformError('not_found', 'The design queue runs design chats only.', { status: 404 }),
      );
    },
  };
}

/** The tool collections of the service catalog, with their tools; skills come with skill registries (none yet). */
async function offerOf(services: ToolCatalog): Promise<DesignOffer> {
  const collections = new Map<string, DesignOffer['collections'][number]>();
  for (const tool of await services.tools()) {
    const entry = collections.get(tool.collection) ?? { name: tool.collection, description: '', tools: [] };
    entry.tools.push({ name: tool.name, description: tool.description });
    collections.set(tool.collection, entry);
  }
  return { collections: [...collections.values()], skills: [] };
}

/** How long design_run_evaluations waits for its run (ms): within a turn's default wall time. */
const DESIGN_EVALUATION_WAIT_MS = 300_000;

/** Runs the draft's cases (as the chat's member) and waits for the verdict. */
async function runDraftEvaluations(
  parts: SessionStoreDeps & { hosting: AgentDeps; queue?: JobQueue },
  target: DesignTarget,
  selection: { workflow?: string; case?: string },
): Promise<{ runId: string; passed: boolean; summary: string }> {
  const deps = evaluationDeps({ ...parts, queue: parts.queue });
  const ref = {
    agent: target.agentId,
    environment: target.envName,
    draft: true,
    ...(selection.workflow === undefined ? {} : { workflow: selection.workflow }),
    ...(selection.case === undefined ? {} : { stem: selection.case }),
  };
  const started = await startEvaluationRun(deps, target.caller, ref);
  const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  const run = await runEnd({ ...parts, sleep }, started._id, DESIGN_EVALUATION_WAIT_MS);
  if (run) return { runId: run._id, passed: run.status === 'passed', summary: runSummary(run) };
  return { runId: started._id, passed: false, summary: `evaluation run ${started._id} is still running` };
}
