/**
 * What a model message's tool calls decided besides their results (shared by the tool-call and workflow-call steps).
 *
 * Source: docs/agent-format.md § workflow.yaml (control tools), § Sub-workflows.
 */
import type { ModelToolResult } from '../ports/model-provider.ts';
import type { HeldResult } from './turn-host.ts';
import type { WorkflowCall } from './workflow-call.ts';

/** What a message's tool calls decided besides their results. */
export interface MessageEffects {
  results: ModelToolResult[];
  advanceTo?: { to: string; reason: string };
  wait?: { reason: string; until?: string };
  raise?: { code: string; reason: string };
  /** A workflow call whose child parked: the parent parks on it. */
  parkedChild?: {
    call: WorkflowCall;
    childSessionId: string;
    dispatchId: string;
    status: 'awaiting_decision' | 'awaiting_input';
    pending: unknown;
    held: HeldResult[];
  };
  variables: Record<string, unknown>;
}
