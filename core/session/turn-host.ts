/**
 * The turn engine's boundary: everything a running turn needs from the platform, as plain JSON in and out, so
 * the same engine runs in a worker (each method one request over its channel to the broker, which checks the
 * worker's token) and in-process (core/session/store-host.ts, over the stores). Times are stamped by the host.
 *
 * Source: spec/platform-service.md § Rules 6 (a worker reaches platform data only through the process that
 * started it); docs/decisions.md D7 § Dispatcher and workers, § Models.
 */
import type { ModelMessage, ModelToolCall, ModelToolDefinition, ModelUsage } from '../ports/model-provider.ts';
import type { DecisionInput } from './decision-input.ts';
import type { PendingWork, SessionStatus, SessionValue, TrailEntry, TurnError, TurnKind } from './model.ts';
import type { ToolRule, WorkflowView } from './workflow-view.ts';

/** A pending decision or input as JSON (dates as ISO text). */
export type PendingView =
  & (
    | Extract<PendingWork, { kind: 'decision' }>
    | (Extract<PendingWork, { kind: 'input' }> & { childSessionId?: string; dispatchId?: string })
  )
  & ParkedCall;

/** A parent parked on a child: the workflow call waiting for the child, and results of its message already settled. */
export interface ParkedCall {
  callId?: string;
  callName?: string;
  calledWorkflow?: string;
  heldResults?: HeldResult[];
}

/** A workflow call's result already settled while another call of the same message parked. */
export interface HeldResult {
  callId: string;
  name: string;
  output: unknown;
  isError: boolean;
}

/** What the engine knows of the session a turn runs on. */
export interface SessionView {
  id: string;
  workflow: string;
  status: SessionStatus;
  state: string;
  variables: Record<string, unknown>;
  lockedVariables: string[];
  pending: PendingView | null;
  /** Model calls and parks of the current visit of `state` (reset on entering a state). */
  visit: { modelCalls: number; parks: number; entered: boolean };
  dispatchCount: number;
  dispatchId?: string;
  depth: number;
  /** Forbid rules of the parents (they bind child sessions). */
  inheritedForbid: ToolRule[];
  /** Workflows of the parent sessions, root first (a call to one of them would be a cycle). */
  ancestry: string[];
}

/** A tool of a configured service (core/ports/tool-catalog.ts's CatalogTool). */
export interface ServiceTool {
  collection: string;
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** True when its service marks it `readOnlyHint: true` (MCP tool annotations): an evaluation may call it live. */
  readOnly?: boolean;
  /**
   * The name the model sees; default `<collection>__<name>` (./rules.ts modelToolName). The design agent's tools are
   * offered under their own names (`design_list_files`, …).
   */
  modelName?: string;
}

/** Everything a turn starts from. */
export interface TurnContext {
  turnId: string;
  kind: TurnKind;
  input: { message?: string; decision?: DecisionInput };
  session: SessionView;
  workflow: WorkflowView;
  /** The checkpoint thread so far, oldest first. */
  messages: ModelMessage[];
  /** Tools of the configured services (the catalog); the engine offers those the state's rules allow. */
  serviceTools: ServiceTool[];
  /** PLATFORM_PROMPT_CACHE of the starting process (a workflow's `prompt_cache: false` turns it off). */
  promptCache: { enabled: boolean; ttl: '5m' | '1h' };
}

/** One model call as the engine asks for it. */
export interface ModelCallRequest {
  model?: string;
  messages: ModelMessage[];
  tools: ModelToolDefinition[];
  promptCache: { enabled: boolean; ttl: '5m' | '1h' };
  /** Per-call time bound (a state's `budget.call_seconds`). */
  timeoutMs?: number;
}

/** A model call's result: the text, the tool calls, why it stopped, usage and its cost in USD. */
export interface ModelCallReply {
  text: string;
  toolCalls: ModelToolCall[];
  finish: string;
  usage: ModelUsage;
  costUsd: number;
}

/** A change to the session a step made; the host applies it atomically and stamps times. */
export interface SessionPatch {
  state?: string;
  /** A state entered (the host stamps `at`). */
  trail?: Omit<TrailEntry, 'at'>;
  /** Messages appended to the thread, in order. */
  messages?: ModelMessage[];
  variables?: Record<string, unknown>;
  visit?: SessionView['visit'];
  /** `null` clears it; a pending without `id` gets one from the host. */
  pending?: (PendingView & { id?: string }) | null;
  dispatchCount?: number;
}

/** How a turn ended. */
export interface TurnOutcome {
  status: Exclude<SessionStatus, 'running'> | 'running';
  error?: TurnError;
  /** The last assistant text. */
  reply?: string;
  /** The session's variables when it ended (a child passes its `returns` up from them). */
  variables?: Record<string, unknown>;
  /** What a parked session waits for (a child's pending surfaces on its parent). */
  pending?: PendingView;
}

/** Options of a workflow call (a child session). */
export interface ChildRequest {
  workflow: string;
  dispatchId: string;
  /** The call's arguments: the child's locked variables. */
  arguments: Record<string, SessionValue | unknown>;
  inheritedForbid: ToolRule[];
  /** The parent's ancestry plus the parent's workflow. */
  ancestry: string[];
}

/**
 * The platform as a turn sees it. Errors are PlatformErrors with codes: `model_*` (core/ports/model-provider.ts),
 * `spend_cap_reached`, `turn_cancelled`, `not_found`.
 */
export interface TurnHost {
  /** Loads a claimed turn. */
  loadTurn(turnId: string): Promise<TurnContext>;
  /** Calls a model; the host records usage and cost on the turn, the session and the spend totals, and refuses once a
   * cap is reached. */
  callModel(turnId: string, request: ModelCallRequest): Promise<ModelCallReply>;
  /** Calls a service tool; failures come back as `isError` results. */
  callTool(
    turnId: string,
    call: { collection: string; name: string; input: unknown },
  ): Promise<{ output: unknown; isError: boolean }>;
  /** Applies a step's change to the turn's session. */
  checkpoint(turnId: string, patch: SessionPatch): Promise<void>;
  /** Opens a child session with a running first turn; returns the child turn's id. */
  openChild(turnId: string, request: ChildRequest): Promise<{ sessionId: string; turnId: string }>;
  /** Opens the next turn of a parked child session (a decision or reply forwarded by its parent). */
  resumeChild(
    turnId: string,
    childSessionId: string,
    input: TurnContext['input'] & { kind: TurnKind },
  ): Promise<{ turnId: string }>;
  /** Settles a turn and its session. */
  endTurn(turnId: string, outcome: TurnOutcome): Promise<void>;
}

/** The TurnHost methods, each a broker operation `turn.<method>` of a worker (the broker answers no other). */
export const turnHostMethods = [
  'loadTurn',
  'callModel',
  'callTool',
  'checkpoint',
  'openChild',
  'resumeChild',
  'endTurn',
] as const satisfies readonly (keyof TurnHost)[];

/** Runs author hook scripts (QuickJS in a worker). A thrown error fails the turn with `hook_failed`. */
export interface HookRunner {
  run(source: string, input: unknown, options: { timeoutMs: number }): Promise<unknown>;
}
