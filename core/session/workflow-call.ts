/**
 * One `platform_workflow_<slug>` call of a model message. Source: docs/agent-format.md § Sub-workflows.
 */
import type { ModelToolCall } from '../ports/model-provider.ts';
import type { CallableWorkflow } from './workflow-view.ts';

/** A workflow call: the model's tool call and the workflow it targets. */
export interface WorkflowCall {
  call: ModelToolCall;
  target: CallableWorkflow;
}
