/**
 * What a model call is made with, decided in the trusted process from the workflow and the session's records, never
 * from what a worker sends: the model (the active state's `model`, else the workflow's; a rubric hook of the state
 * may name its own) and the prompt cache (the operator's setting, on only where the workflow allows it). A worker
 * that names another model gets the state's; one that asks for cache writes the operator turned off gets none.
 *
 * Source: issue "Hardening, round 3" § 5 (the broker takes model and promptCache from the worker);
 * docs/decisions.md D17 § 4 (the worker is not trusted).
 */
import type { PromptCacheSetting } from '../ports/model-provider.ts';
import type { WorkflowView } from './workflow-view.ts';

/** The models a call of `state` in `workflow` may use: the state's (or the workflow's) and its rubric hooks'. */
export function modelsOfState(workflow: WorkflowView, state: string): (string | undefined)[] {
  const view = workflow.states[state];
  const own = view?.model ?? workflow.model;
  const hooks = [...(view?.before ?? []), ...(view?.after ?? [])].filter((h) => h.rubric !== undefined);
  return [own, ...hooks.map((h) => h.model ?? own)];
}

/**
 * The model of a call the worker asked for with `requested`, in the session's recorded `state`: `requested` when it
 * is one the state may use ({@link modelsOfState}), else the state's own.
 */
export function trustedModel(workflow: WorkflowView, state: string, requested: string | undefined): string | undefined {
  const allowed = modelsOfState(workflow, state);
  return allowed.includes(requested) ? requested : allowed[0];
}

/** The prompt cache of every call of `workflow`: the operator's setting, enabled only where the workflow allows. */
export function trustedPromptCache(operator: PromptCacheSetting, workflow: WorkflowView): PromptCacheSetting {
  return { ...operator, enabled: operator.enabled && workflow.promptCache };
}
