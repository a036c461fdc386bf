/**
 * The recorder of one turn run in the dispatcher (the trusted side: the worker has no SDK and is not believed): one
 * per root turn claimed, through which every path of the run passes. It opens the turn's span (`invoke_workflow
 * {workflow}`, `invoke_agent design` for the design agent's turns) in the trace of the request or firing that queued
 * it (`turn.trace`), linked to the session's previous turn span (`lastTurnSpan`); a child turn gets its own span,
 * under the parent turn's (its `trace`, written while the parent's span was active). Under them: `queue wait`,
 * `worker start`, each hook the worker announces, each model call (`chat {model}`, ./turn-trace-calls.ts) and each
 * service tool call (`execute_tool {tool}`), and the broker's refusals as `cairn.broker.refusal` events. It keeps
 * each turn's steps (core/telemetry/turn-steps.ts) whatever the sampling, with or without an SDK, timed by the
 * Clock port, and hands them to the settle (`timeline`), and records the turn-path metrics. Source:
 * docs/decisions.md D25 (observability).
 */
import { type Context, context, type Span, trace } from '@opentelemetry/api';
import type { Clock } from '../ports/clock.ts';
import type { WorkerProgress } from '../ports/worker.ts';
import { attr, cairnTracer } from '../telemetry/names.ts';
import { markFailed } from '../telemetry/spans.ts';
import { activeTraceCarrier, contextOf, linkOf } from '../telemetry/trace-context.ts';
import { recordTurnEnded, recordTurnStarted, recordWorkerStart } from '../telemetry/turn-metrics.ts';
import { MAX_TURN_STEPS, type TurnStep } from '../telemetry/turn-steps.ts';
import { designWorkflowSlug, type SessionRecord, type TurnRecord, type TurnTimeline } from './model.ts';
import { type ModelCallTrace, startModelCall, traceToolCall, type TurnEntry } from './turn-trace-calls.ts';

export { type ModelCallTrace, type TurnEntry } from './turn-trace-calls.ts';
export { errorTypeOf } from '../telemetry/spans.ts';

/** What the recorder needs. */
export interface TurnTraceDeps {
  /** The runner's clock: every step's time and the turn-path metrics' durations. */
  clock: Clock;
  /**
   * Whether chat spans carry the messages (`gen_ai.input.messages`, `gen_ai.output.messages`,
   * `gen_ai.system_instructions`): default false; the dispatcher's main sets it from
   * OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT.
   */
  captureMessageContent?: boolean;
  /** The GenAI provider name (`anthropic`, `openai`, `aws.bedrock`) and provider model name of an offered model. */
  describeModel?(model: string | undefined): { provider?: string; model?: string };
}

/** Name of the span event of a broker refusal (its `code` attribute: the rule or refusal code). */
export const REFUSAL_EVENT = 'cairn.broker.refusal';
/** Hooks timed at once per run (a worker may announce more; they are not timed). */
const MAX_OPEN_HOOKS = 64;

/** The span's name and GenAI operation for a session's workflow (the design agent's turns invoke an agent). */
function operationOf(workflow: string): { name: string; operation: string } {
  if (workflow === designWorkflowSlug) return { name: 'invoke_agent design', operation: 'invoke_agent' };
  return { name: `invoke_workflow ${workflow}`, operation: 'invoke_workflow' };
}

/** The per-run recorder; see the module comment. Made by the runner right after the claim of `root`. */
export class TurnTrace {
  private readonly entries = new Map<string, TurnEntry>();
  private readonly hooks = new Map<number, { span: Span; atMs: number }>();
  private worker?: { span: Span; atMs: number; ready: boolean };
  private hooksTimed = 0;

  constructor(readonly deps: TurnTraceDeps, private readonly root: TurnRecord) {}

  /** Now on the clock, in ms. */
  nowMs(): number {
    return this.deps.clock.now().getTime();
  }

  /** The entry of `turnId`, or the root's (opened without its session when not yet opened). */
  entry(turnId: string): TurnEntry {
    return this.entries.get(turnId) ?? this.entries.get(this.root._id) ?? this.open(this.root);
  }

  /** The context a turn's operations run in (its span active). */
  contextOf(turnId: string): Context {
    return this.entry(turnId).ctx;
  }

  /** Runs `fn` with the span of `turnId` active (the root's for an unknown id). */
  within<T>(turnId: unknown, fn: () => T): T {
    return context.with(this.contextOf(typeof turnId === 'string' ? turnId : this.root._id), fn);
  }

  /** Opens the root turn's span when no read of its records did (its session then unknown). */
  begin(): void {
    this.entry(this.root._id);
  }

  /** A turn and its session as the broker read them: the first read of a turn opens its span. */
  seen(turn: TurnRecord, session: SessionRecord): void {
    const known = this.entries.get(turn._id);
    if (known === undefined) this.open(turn, session);
    else if (!known.described) this.describe(known, session);
  }

  /** A child turn the parent turn `parentTurnId` opened or resumed on `child`: its span and the parent's step. */
  childOpened(parentTurnId: string, turn: TurnRecord, child: SessionRecord): void {
    const entry = this.entries.get(turn._id) ?? this.open(turn, child);
    entry.parent = { turnId: parentTurnId, workflow: child.workflow };
  }

  private open(turn: TurnRecord, session?: SessionRecord): TurnEntry {
    const isRoot = turn._id === this.root._id;
    const parent = contextOf(turn.trace);
    const startMs = (turn.startedAt ?? this.deps.clock.now()).getTime();
    const link = linkOf(session?.lastTurnSpan);
    const span = cairnTracer().startSpan('invoke_workflow', {
      attributes: {
        [attr.operationName]: 'invoke_workflow',
        [attr.turnId]: turn._id,
        [attr.turnKind]: turn.kind,
        [attr.orgId]: turn.orgId,
        [attr.conversationId]: turn.sessionId,
      },
      ...(link ? { links: [link] } : {}),
    }, parent);
    const entry: TurnEntry = {
      turnId: turn._id,
      conversationId: turn.sessionId,
      kind: turn.kind,
      span,
      ctx: trace.setSpan(parent, span),
      startMs,
      steps: [],
      dropped: 0,
      described: false,
    };
    this.entries.set(turn._id, entry);
    if (session) this.describe(entry, session);
    if (isRoot) this.queueWait(turn, parent);
    return entry;
  }

  private describe(entry: TurnEntry, session: SessionRecord): void {
    entry.described = true;
    if (!entry.span.isRecording()) return;
    const { name, operation } = operationOf(session.workflow);
    entry.span.updateName(name);
    entry.span.setAttributes({
      [attr.operationName]: operation,
      [attr.agentId]: session.agentId,
      [attr.environment]: session.environment,
      [attr.workflow]: session.workflow,
      [attr.state]: session.state,
      ...(operation === 'invoke_agent' ? { [attr.agentName]: 'design' } : { [attr.workflowName]: session.workflow }),
    });
  }

  /** The root turn's wait in the queue: a span beside the turn's (in the queuing request's trace), and a metric. */
  private queueWait(turn: TurnRecord, parent: Context): void {
    const startedAt = turn.startedAt ?? this.deps.clock.now();
    recordTurnStarted(turn.kind, startedAt.getTime() - turn.queuedAt.getTime());
    const tracer = cairnTracer();
    const attributes = { [attr.turnId]: turn._id };
    tracer.startSpan('queue wait', { startTime: turn.queuedAt, attributes }, parent).end(startedAt);
  }

  /** Adds a step to `entry` (past MAX_TURN_STEPS it is counted, not kept). */
  step(entry: TurnEntry, step: Omit<TurnStep, 'atMs'>, startedMs?: number): void {
    if (entry.steps.length >= MAX_TURN_STEPS) {
      entry.dropped += 1;
      return;
    }
    const at = Math.max(0, (startedMs ?? this.nowMs()) - entry.startMs);
    entry.steps.push({ ...step, atMs: at, durationMs: Math.max(0, step.durationMs) });
  }

  /** The worker of the run is being asked for: returns the launcher's progress callback (worker start, hooks). */
  workerStarting(): (progress: WorkerProgress) => void {
    const root = this.entry(this.root._id);
    const span = cairnTracer().startSpan('worker start', { attributes: { [attr.turnId]: this.root._id } }, root.ctx);
    this.worker = { span, atMs: this.nowMs(), ready: false };
    return (progress) => this.onProgress(progress);
  }

  private onProgress(progress: WorkerProgress): void {
    const worker = this.worker;
    if (progress.kind === 'spawned') worker?.span.addEvent('spawned');
    else if (progress.kind === 'ready' && worker && !worker.ready) {
      worker.ready = true;
      worker.span.end();
      const durationMs = this.nowMs() - worker.atMs;
      recordWorkerStart(durationMs);
      this.step(this.entry(this.root._id), { kind: 'worker_start', name: 'turn worker', durationMs }, worker.atMs);
    } else if (progress.kind === 'hook') this.onHook(progress.id, progress.ended);
  }

  /** A hook the worker announced (its id is the worker's: only a bounded number is timed). */
  private onHook(id: number, ended: boolean): void {
    const open = this.hooks.get(id);
    const root = this.entry(this.root._id);
    if (ended) {
      if (!open) return;
      this.hooks.delete(id);
      open.span.end();
      this.step(root, { kind: 'hook', name: 'hook', durationMs: this.nowMs() - open.atMs }, open.atMs);
      return;
    }
    if (open || this.hooks.size >= MAX_OPEN_HOOKS || this.hooksTimed >= MAX_TURN_STEPS) return;
    this.hooksTimed += 1;
    const span = cairnTracer().startSpan('hook', { attributes: { [attr.turnId]: this.root._id } }, root.ctx);
    this.hooks.set(id, { span, atMs: this.nowMs() });
  }

  /** A broker refusal for `turnId` (its code or the rule broken): a span event on the turn's span and a step. */
  refusal(turnId: string, code: string): void {
    const entry = this.entry(turnId);
    entry.span.addEvent(REFUSAL_EVENT, { code });
    this.step(entry, { kind: 'refusal', name: code, durationMs: 0 });
  }

  /** Starts a model call of `turnId` (see ./turn-trace-calls.ts). */
  modelCall(turnId: string, request: Parameters<typeof startModelCall>[2]): ModelCallTrace {
    return startModelCall(this, this.entry(turnId), request);
  }

  /** Runs a service tool call of `turnId` inside its `execute_tool` span (see ./turn-trace-calls.ts). */
  toolCall<T extends { isError: boolean }>(
    turnId: string,
    call: { collection: string; name: string },
    run: () => Promise<T>,
  ): Promise<T> {
    return traceToolCall(this, this.entry(turnId), call, run);
  }

  /** What to write with the settle of `turnId`: its steps so far and its span. */
  timeline(turnId: string): TurnTimeline {
    const entry = this.entry(turnId);
    const span = activeTraceCarrier(entry.ctx);
    return { steps: [...entry.steps], stepsDropped: entry.dropped, ...(span ? { span } : {}) };
  }

  /**
   * `turnId` settled with `status` (first settle wins): a child turn's span ends and its parent gets a `child` step;
   * the root's ends with the run ({@link end}).
   */
  settled(turnId: string, status: string, code?: string): void {
    const entry = this.entries.get(turnId);
    if (!entry || entry.outcome) return;
    entry.outcome = { status, ...(code === undefined ? {} : { code }) };
    if (!entry.parent) return;
    this.finish(entry);
    const parent = this.entries.get(entry.parent.turnId);
    const durationMs = this.nowMs() - entry.startMs;
    const error = status === 'failed' ? { error: code ?? 'failed' } : {};
    if (parent) this.step(parent, { kind: 'child', name: entry.parent.workflow, durationMs, ...error }, entry.startMs);
  }

  /** Ends every span of the run; the root turn's with its outcome, `fallback` when this run settled nothing. */
  end(fallback: string): void {
    for (const [id, hook] of this.hooks) {
      hook.span.end();
      this.hooks.delete(id);
    }
    if (this.worker && !this.worker.ready) this.worker.span.end();
    const root = this.entry(this.root._id);
    for (const entry of this.entries.values()) if (entry !== root) this.finish(entry);
    root.outcome ??= { status: fallback };
    this.finish(root);
    recordTurnEnded(root.kind, root.outcome.status, this.nowMs() - root.startMs);
  }

  private finish(entry: TurnEntry): void {
    if (entry.ended) return;
    entry.ended = true;
    if (!entry.span.isRecording()) return;
    const outcome = entry.outcome ?? { status: 'unsettled' };
    entry.span.setAttribute('cairn.turn.outcome', outcome.status);
    if (outcome.status === 'failed') markFailed(entry.span, outcome.code ?? 'failed');
    entry.span.end();
  }
}
