/**
 * What every operation of a store host shares (./store-host.ts): its deps, the turns the worker may name (the root
 * turn and the child turns it opened; any other is refused `turn_not_allowed`), the broker's guard of the run and
 * the root session as first read (what a rollback restores), and the read of a named turn's records.
 *
 * Source: spec/platform-service.md § Rules 6 (a worker reaches platform data only through the process that
 * started it); docs/decisions.md D7 § Dispatcher and workers, D17 § 4.
 */
import type { ModelProvider, ModelUsage } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionChanges } from '../ports/session-changes.ts';
import type { TextDelta } from '../ports/text-deltas.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { loadTurnRecords, type SessionStoreDeps, type TurnFence } from './session-store.ts';
import { restoreOf } from './turn-interrupt.ts';
import type { SessionRestore } from './chat-queue-model.ts';
import { type BrokerGuard, createBrokerGuard } from './broker-guard.ts';
import type { BrokerViolationError } from './broker-rules.ts';
import type { ServiceTool } from './turn-host.ts';
import type { TurnTrace } from './turn-trace.ts';
import type { WorkflowView } from './workflow-view.ts';

/** What a store host needs besides the stores. */
export interface StoreHostDeps extends SessionStoreDeps {
  /** The workflow `slug` of published build `buildId`. @throws PlatformError `not_found` */
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
  models: ModelProvider;
  /**
   * The model provider of an evaluation session's calls (its run may record them or replay a recording:
   * core/evaluation/cassette-store.ts); absent: {@link models}.
   */
  evaluationModels?(mark: { runId: string; caseId: string }): Promise<ModelProvider>;
  /** Cost in USD of a call's usage on `model` (the config's prices; 0 for a model without prices). */
  costOf(model: string | undefined, usage: ModelUsage): number;
  serviceTools(): Promise<ServiceTool[]>;
  callServiceTool(
    call: { collection: string; name: string; input: unknown },
    signal?: AbortSignal,
  ): Promise<{ output: unknown; isError: boolean }>;
  promptCache: { enabled: boolean; ttl: '5m' | '1h' };
  /** Aborted when the turn is cancelled or its worker ends: aborts tool calls in flight. */
  signal?: AbortSignal;
  /** The signal of one model call: {@link signal} combined with a timeout of `timeoutMs` when given (a state's
   * call_seconds). */
  callSignal(timeoutMs?: number): AbortSignal | undefined;
  /** Called with each text delta of a model call (live chat streams); optional. */
  onText?(delta: TextDelta): void;
  /** Told of the first report the broker refused (the turn tree already ended failed): stop the worker. */
  onViolation?(error: BrokerViolationError): void;
  /** Told when a new message stopped the turn (it settled interrupted: ./turn-interrupt.ts): stop the worker. */
  onInterrupted?(): void;
  /** The turn queue: a chat handed to a queued message when its turn settles has that turn queued at once. */
  enqueueTurn?(turnId: string): Promise<void>;
  /**
   * The runner and lease epoch of the claim (core/session/turn-runner.ts): checkpoints and the settle write only while
   * the turn is still that runner's under that lease, and child turns are run under it. Absent (in-process tests),
   * writes check the turn's status only.
   */
  fence?: TurnFence;
  /** Told after each checkpoint, child opened or resumed and settle (readers read the chat again); optional. */
  changes?: SessionChanges;
  /**
   * The turn run's recorder (./turn-trace.ts): told of each turn read, child opened and settle, it times model and
   * tool calls and its steps are written with each settle (docs/decisions.md D25). Absent: nothing is timed.
   */
  trace?: TurnTrace;
}

/** What the operations of one store host share. */
export interface HostContext {
  deps: StoreHostDeps;
  rootTurnId: string;
  guard: BrokerGuard;
  /** The root turn and the child turns it opened: the only turns the worker may name. */
  allowed: Set<string>;
  /** The root session as the host first read it, before the turn wrote anything: what a rollback restores. */
  before?: SessionRestore;
}

/** The context of a store host for root turn `rootTurnId`: only that turn allowed yet, a new guard. */
export function hostContext(deps: StoreHostDeps, rootTurnId: string): HostContext {
  return { deps, rootTurnId, guard: createBrokerGuard(deps, rootTurnId), allowed: new Set([rootTurnId]) };
}

/**
 * The records of turn `turnId` the worker named (the first read of the root's session is kept as `before`).
 * @throws the guard's violation once the run was refused; PlatformError `turn_not_allowed` (403) for a turn not
 *   this worker's, `not_found` (404)
 */
export async function recordsOf(
  ctx: HostContext,
  turnId: string,
): Promise<{ turn: TurnRecord; session: SessionRecord }> {
  const { deps } = ctx;
  ctx.guard.ensureOpen();
  if (typeof turnId !== 'string' || !ctx.allowed.has(turnId)) {
    const named = String(turnId).slice(0, 80);
    throw new PlatformError('turn_not_allowed', `Turn ${named} is not this worker's.`, { status: 403 });
  }
  const loaded = await loadTurnRecords(deps, turnId);
  if (turnId === ctx.rootTurnId) ctx.before ??= restoreOf(loaded.session);
  deps.trace?.seen(loaded.turn, loaded.session);
  return loaded;
}

/** After a write succeeded: the chat's readers read again (docs/architecture.md § Life of a turn). */
export const changed = (ctx: HostContext, session: SessionRecord) =>
  ctx.deps.changes?.changed(session.rootId ?? session._id);
