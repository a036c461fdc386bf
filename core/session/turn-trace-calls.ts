/**
 * The model and tool calls of a turn run, as its recorder (./turn-trace.ts) times them: a `chat {model}` span
 * (CLIENT) per model call with the GenAI usage attributes and cost, the messages only when the operator asked for
 * them (`captureMessageContent`); an `execute_tool {tool}` span per service tool call, active while the service
 * is called (so the MCP client's span is its child), with the call id the model's reply gave; a step each, and the
 * GenAI client metrics. Source: docs/decisions.md D25 (observability).
 */
import { type Attributes, type Context, context, type Span, SpanKind, trace } from '@opentelemetry/api';
import type { ModelMessage, ModelToolCall, ModelUsage } from '../ports/model-provider.ts';
import { attr, cairnTracer } from '../telemetry/names.ts';
import { recordModelCallMetric, recordToolCall } from '../telemetry/turn-metrics.ts';
import { errorTypeOf, markFailed } from '../telemetry/spans.ts';
import type { TurnStep } from '../telemetry/turn-steps.ts';
import { modelToolName, ruleToolName } from './rules.ts';

/** One turn of a run as its recorder keeps it: its span, its context and its steps. */
export interface TurnEntry {
  turnId: string;
  /** The turn's session (gen_ai.conversation.id). */
  conversationId: string;
  kind: string;
  span: Span;
  ctx: Context;
  /** The turn's start on the clock (ms): steps are timed from it. */
  startMs: number;
  steps: TurnStep[];
  dropped: number;
  /** Whether the session's attributes were set on the span. */
  described: boolean;
  /** A child turn: its parent turn and the child's workflow (the parent's `child` step). */
  parent?: { turnId: string; workflow: string };
  /** How the run saw it end (the status it settled with, and its error code). */
  outcome?: { status: string; code?: string };
  /** Whether its span has ended. */
  ended?: boolean;
}

/** What the calls take of the recorder (./turn-trace.ts TurnTrace). */
export interface CallRecorder {
  deps: {
    captureMessageContent?: boolean;
    describeModel?(model: string | undefined): { provider?: string; model?: string };
  };
  /** Now on the clock, in ms. */
  nowMs(): number;
  /** Adds a step to `entry`, begun at `startedMs` (clock ms). */
  step(entry: TurnEntry, step: Omit<TurnStep, 'atMs'>, startedMs?: number): void;
}

/** The tool type of a service tool (an agent-side call to an external API, in the GenAI conventions' terms). */
const SERVICE_TOOL_TYPE = 'extension';
/** Tool calls of model replies kept per turn, waiting for the broker's tool call that answers them. */
const MAX_WAITING_CALLS = 64;
/** Tool calls of the latest replies, per turn entry: the `gen_ai.tool.call.id` of the service call that follows. */
const waitingCalls = new WeakMap<TurnEntry, { name: string; id: string }[]>();

/** A model call being timed. */
export interface ModelCallTrace {
  /** Runs the call with its span active. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** The call answered: its reply and its cost in USD. */
  ended(reply: { text: string; toolCalls: ModelToolCall[]; finish: string; usage: ModelUsage }, cost: number): void;
  /** The call failed with `error`, charged `usage` (when anything was) at `cost` USD. */
  failed(error: unknown, usage: ModelUsage | undefined, cost: number): void;
}

/** The messages in the GenAI conventions' shape (roles and parts); system prompts apart. */
function genAiMessages(messages: ModelMessage[]): { system: unknown[]; input: unknown[] } {
  const system: unknown[] = [];
  const input: unknown[] = [];
  for (const message of messages) {
    if (message.role === 'system') system.push({ type: 'text', content: message.content });
    else if (message.role === 'user') input.push({ role: 'user', parts: [{ type: 'text', content: message.content }] });
    else if (message.role === 'assistant') input.push({ role: 'assistant', parts: assistantParts(message) });
    else {
      const parts = message.results.map((r) => ({ type: 'tool_call_response', id: r.callId, response: r.output }));
      input.push({ role: 'tool', parts });
    }
  }
  return { system, input };
}

function assistantParts(reply: { content?: string; text?: string; toolCalls?: ModelToolCall[] }): unknown[] {
  const text = reply.content ?? reply.text ?? '';
  const calls = (reply.toolCalls ?? []).map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.input }));
  return [...(text ? [{ type: 'text', content: text }] : []), ...calls];
}

/** Usage attributes of a call (GenAI names) and its cost. */
function usageAttributes(usage: ModelUsage, cost: number): Attributes {
  return {
    [attr.inputTokens]: usage.inputTokens,
    [attr.outputTokens]: usage.outputTokens,
    [attr.cacheReadTokens]: usage.cacheReadTokens,
    [attr.cacheCreationTokens]: usage.cacheWriteTokens,
    [attr.costUsd]: cost,
  };
}

/** Starts the `chat` span and timing of one model call of `entry` (the model is the trusted one, the records'). */
export function startModelCall(
  recorder: CallRecorder,
  entry: TurnEntry,
  request: { model?: string; messages: ModelMessage[] },
): ModelCallTrace {
  const described = recorder.deps.describeModel?.(request.model) ?? {};
  const model = described.model ?? request.model;
  const attributes: Attributes = { [attr.operationName]: 'chat', [attr.conversationId]: entry.conversationId };
  if (described.provider !== undefined) attributes[attr.providerName] = described.provider;
  if (model !== undefined) attributes[attr.requestModel] = model;
  const span = cairnTracer().startSpan(`chat ${model ?? ''}`.trim(), { kind: SpanKind.CLIENT, attributes }, entry.ctx);
  const capture = recorder.deps.captureMessageContent === true && span.isRecording();
  if (capture) {
    const { system, input } = genAiMessages(request.messages);
    if (system.length > 0) span.setAttribute(attr.systemInstructions, JSON.stringify(system));
    span.setAttribute(attr.inputMessages, JSON.stringify(input));
  }
  const atMs = recorder.nowMs();
  let over = false;
  const done = (usage: ModelUsage | undefined, cost: number, error?: string) => {
    over = true;
    const durationMs = recorder.nowMs() - atMs;
    const metric = { provider: described.provider, model, durationMs };
    recordModelCallMetric({
      ...metric,
      inputTokens: usage?.inputTokens,
      outputTokens: usage?.outputTokens,
      errorType: error,
    });
    const tokens = usage ? { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens } : {};
    const step = { kind: 'model_call' as const, name: model ?? 'model', durationMs, ...tokens, costUsd: cost };
    recorder.step(entry, error === undefined ? step : { ...step, error }, atMs);
    if (usage && span.isRecording()) span.setAttributes(usageAttributes(usage, cost));
  };
  return {
    run: (fn) => context.with(trace.setSpan(entry.ctx, span), fn),
    ended(reply, cost) {
      if (over) return;
      noteToolCalls(entry, reply.toolCalls);
      done(reply.usage, cost);
      if (span.isRecording()) {
        span.setAttribute(attr.finishReasons, [reply.finish]);
        if (model !== undefined) span.setAttribute(attr.responseModel, model);
        const output = { role: 'assistant', parts: assistantParts(reply), finish_reason: reply.finish };
        if (capture) span.setAttribute(attr.outputMessages, JSON.stringify([output]));
      }
      span.end();
    },
    failed(error, usage, cost) {
      if (over) return;
      const type = errorTypeOf(error);
      done(usage, cost, type);
      fail(span, type);
    },
  };
}

function fail(span: Span, type: string): void {
  markFailed(span, type);
  span.end();
}

/** Keeps the ids of a reply's tool calls for the service calls that answer them (bounded). */
function noteToolCalls(entry: TurnEntry, calls: ModelToolCall[]): void {
  if (calls.length === 0) return;
  const waiting = calls.slice(0, MAX_WAITING_CALLS).map((call) => ({ name: call.name, id: call.id }));
  waitingCalls.set(entry, waiting);
}

/** The id of the waiting tool call a service call answers (by the name the model saw), taken once. */
function takeCallId(entry: TurnEntry, call: { collection: string; name: string }): string | undefined {
  const waiting = waitingCalls.get(entry);
  const seen = modelToolName(call.collection, call.name);
  const at = waiting?.findIndex((c) => c.name === seen || c.name === call.name) ?? -1;
  return at < 0 ? undefined : waiting!.splice(at, 1)[0].id;
}

/**
 * Runs `run` (the service call of a tool call of `entry`) inside an `execute_tool {collection/name}` span; a result
 * with `isError` or a throw marks it failed (`error.type` `tool_error` or the error's code).
 */
export async function traceToolCall<T extends { isError: boolean }>(
  recorder: CallRecorder,
  entry: TurnEntry,
  call: { collection: string; name: string },
  run: () => Promise<T>,
): Promise<T> {
  const tool = ruleToolName(call.collection, call.name);
  const attributes: Attributes = {
    [attr.operationName]: 'execute_tool',
    [attr.toolName]: tool,
    [attr.toolType]: SERVICE_TOOL_TYPE,
    [attr.conversationId]: entry.conversationId,
  };
  const id = takeCallId(entry, call);
  if (id !== undefined) attributes[attr.toolCallId] = id;
  const span = cairnTracer().startSpan(`execute_tool ${tool}`, { kind: SpanKind.INTERNAL, attributes }, entry.ctx);
  const atMs = recorder.nowMs();
  const done = (error?: string) => {
    const durationMs = recorder.nowMs() - atMs;
    recordToolCall(tool, durationMs, error);
    recorder.step(entry, { kind: 'tool_call', name: tool, durationMs, ...(error ? { error } : {}) }, atMs);
    if (error === undefined) span.end();
    else fail(span, error);
  };
  try {
    const result = await context.with(trace.setSpan(entry.ctx, span), run);
    done(result.isError ? 'tool_error' : undefined);
    return result;
  } catch (error) {
    done(errorTypeOf(error));
    throw error;
  }
}
