/**
 * The metrics of the turn path, recorded by the dispatcher's per-turn recorder (core/session/turn-trace.ts): the
 * GenAI client metrics of each model call (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`) and
 * cairn's own of the turn, its queue wait, its worker's start and its tool calls. Attributes are bounded: ids,
 * codes and kinds, never text a caller or a model wrote. With no SDK registered every instrument is the API's no-op.
 * Source: docs/decisions.md D25 (observability).
 */
import { type Attributes, type Counter, type Histogram, type MeterProvider, metrics } from '@opentelemetry/api';
import { attr, INSTRUMENTATION_SCOPE } from './names.ts';

/** Attribute names of these metrics not in {@link attr}. */
export const metricAttr = {
  tokenType: 'gen_ai.token.type',
  turnOutcome: 'cairn.turn.outcome',
} as const;

/** Bucket bounds (seconds) of the duration histograms: 10 ms to 10 minutes. */
const SECONDS_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Bucket bounds (tokens) of the token usage histogram (the GenAI conventions' advice). */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216];

interface TurnInstruments {
  tokens: Histogram;
  operation: Histogram;
  turn: Histogram;
  queueWait: Histogram;
  workerStart: Histogram;
  toolCall: Histogram;
  started: Counter;
  ended: Counter;
}

let made: { provider: MeterProvider; instruments: TurnInstruments } | undefined;

/** The instruments, made on first use from the global meter provider (again when a bin registered another). */
function instruments(): TurnInstruments {
  const provider = metrics.getMeterProvider();
  if (made?.provider === provider) return made.instruments;
  const meter = provider.getMeter(INSTRUMENTATION_SCOPE);
  const seconds = (name: string, description: string) =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: SECONDS_BUCKETS } });
  const instruments: TurnInstruments = {
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      unit: '{token}',
      description: 'Tokens of a model call, by gen_ai.token.type (input, output).',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    operation: seconds('gen_ai.client.operation.duration', 'Duration of a model call.'),
    turn: seconds('cairn.turn.duration', 'Duration of a turn, from its claim to its end.'),
    queueWait: seconds('cairn.turn.queue_wait', 'Time a turn waited queued before a dispatcher claimed it.'),
    workerStart: seconds('cairn.worker.start.duration', 'Time from asking for a turn worker to its channel ready.'),
    toolCall: seconds('cairn.tool.call.duration', 'Duration of a service tool call a turn made.'),
    started: meter.createCounter('cairn.turn.started', { unit: '{turn}', description: 'Turns claimed and started.' }),
    ended: meter.createCounter('cairn.turn.ended', { unit: '{turn}', description: 'Turns ended, by outcome.' }),
  };
  made = { provider, instruments };
  return instruments;
}

/** What a model call reports to the metrics. */
export interface ModelCallMetric {
  /** gen_ai.provider.name, when known. */
  provider?: string;
  /** gen_ai.request.model. */
  model?: string;
  durationMs: number;
  inputTokens?: number;
  outputTokens?: number;
  /** error.type of a failed call. */
  errorType?: string;
}

/** Records one model call: its duration and, when it reported usage, its input and output tokens. */
export function recordModelCallMetric(call: ModelCallMetric): void {
  const { tokens, operation } = instruments();
  const base: Attributes = { [attr.operationName]: 'chat' };
  if (call.provider !== undefined) base[attr.providerName] = call.provider;
  if (call.model !== undefined) base[attr.requestModel] = call.model;
  operation.record(call.durationMs / 1000, call.errorType ? { ...base, [attr.errorType]: call.errorType } : base);
  if (call.inputTokens !== undefined) tokens.record(call.inputTokens, { ...base, [metricAttr.tokenType]: 'input' });
  if (call.outputTokens !== undefined) tokens.record(call.outputTokens, { ...base, [metricAttr.tokenType]: 'output' });
}

/** Records a turn's claim: the started counter and its queue wait (ms), by turn kind. */
export function recordTurnStarted(kind: string, queueWaitMs: number): void {
  const { started, queueWait } = instruments();
  started.add(1, { [attr.turnKind]: kind });
  queueWait.record(Math.max(0, queueWaitMs) / 1000, { [attr.turnKind]: kind });
}

/** Records a turn's end: its duration (ms) and the ended counter, by kind and outcome (the turn's status). */
export function recordTurnEnded(kind: string, outcome: string, durationMs: number): void {
  const { turn, ended } = instruments();
  const attributes = { [attr.turnKind]: kind, [metricAttr.turnOutcome]: outcome };
  turn.record(Math.max(0, durationMs) / 1000, attributes);
  ended.add(1, attributes);
}

/** Records a turn worker's start (ms from asking for it to its channel ready). */
export function recordWorkerStart(durationMs: number): void {
  instruments().workerStart.record(Math.max(0, durationMs) / 1000);
}

/** Records a service tool call (`tool`: `<collection>/<name>`, an id) and its error code when it failed. */
export function recordToolCall(tool: string, durationMs: number, errorType?: string): void {
  const attributes: Attributes = { [attr.toolName]: tool };
  if (errorType !== undefined) attributes[attr.errorType] = errorType;
  instruments().toolCall.record(Math.max(0, durationMs) / 1000, attributes);
}
