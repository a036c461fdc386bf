/**
 * Runs queued turns for a dispatcher: claims the turn, starts a turn worker for it (one process per turn, within
 * the turn slots), answers the worker's `turn.<method>` requests as the broker over the stores (its token checked
 * by the launcher), stops the worker when the turn or its session is cancelled, and settles the turn when the worker
 * ends badly (a limit, a lost channel): the turn and its running child turns end failed with the worker's message.
 *
 * Source: spec/platform-service.md § Rules 6–7, § Replacement of a container; docs/decisions.md D7 § Dispatcher and
 * workers, § Models; D25 § 3 (the run's spans and steps: ./turn-trace.ts).
 */
import type { ModelProvider } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { ToolCatalog } from '../ports/tool-catalog.ts';
import type { WorkerLauncher, WorkerLimits, WorkerSlot } from '../ports/worker.ts';
import { TURN_HEARTBEAT_MS, type TurnRecord } from './model.ts';
import { beatTurn, claimTurn, sessionsOf, type SessionStoreDeps, type TurnFence } from './session-store.ts';
import { failTurnTree, interruptedError } from './stale-turns.ts';
import { BrokerViolationError } from './broker-rules.ts';
import { createStoreHost } from './store-host.ts';
import type { StoreHostDeps } from './store-host-context.ts';
import type { TextDelta, TextDeltas } from '../ports/text-deltas.ts';
import type { SessionChanges } from '../ports/session-changes.ts';
import { watchCancellation } from './cancel-watch.ts';
import { type TurnContext, type TurnHost, turnHostMethods } from './turn-host.ts';
import { needsNoWorker, runTurnInline } from './turn-inline.ts';
import type { WorkflowView } from './workflow-view.ts';
import { TurnTrace, type TurnTraceDeps } from './turn-trace.ts';

/** The TurnHost methods a worker may ask the broker for. */
const brokerMethods = new Set<string>(turnHostMethods);

/** What a turn runner needs. */
export interface TurnRunnerDeps extends SessionStoreDeps {
  launcher: WorkerLauncher;
  models: ModelProvider;
  /** The model provider of an evaluation session's calls (./store-host.ts); absent: {@link models}. */
  evaluationModels?: StoreHostDeps['evaluationModels'];
  /**
   * Cost in USD of `usage` on `model` (with none named, the model the call ran on), 0 without prices: the config's
   * prices (core/boot/turn-cost.ts `configuredCost`).
   */
  costOf: StoreHostDeps['costOf'];
  catalog: ToolCatalog;
  promptCache: { enabled: boolean; ttl: '5m' | '1h' };
  limits: WorkerLimits;
  instanceId: string;
  workflowOf(buildId: string, slug: string): Promise<WorkflowView>;
  /**
   * How often a running turn's records are read for a cancel whatever the notifications (ms); default 10 000 with
   * `changes`, 1000 without (./cancel-watch.ts).
   */
  cancelPollMs?: number;
  /** Change notifications: published after the claim and the end of the turn; a cancel's stops the worker. */
  changes?: SessionChanges;
  /** Receives `[worker] refused …` lines of broker refusals. */
  log?(line: string): void;
  /**
   * The turn queue: a chat handed to a queued message when its turn settles has that turn queued at once (absent:
   * the turn sweep queues it from the session's outbox; docs/decisions.md D27 § 1).
   */
  enqueueTurn?(turnId: string): Promise<void>;
  /** Called once the turn has settled (e.g. to queue its completion firing). */
  afterTurn?(turnId: string): Promise<void>;
  /** Where model calls' live text goes (the AG-UI streams); none without a queue store. */
  textDeltas?: TextDeltas;
  /**
   * Aborted when the dispatcher stops and its grace has passed: the turn ends failed, interrupted by a platform
   * restart (with its running child turns), then its worker is stopped (platform-service.md § Replacement).
   */
  interrupt?: AbortSignal;
  /**
   * Whether model calls' spans carry their messages (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT); default
   * false: no message text reaches a span (docs/decisions.md D25).
   */
  captureMessageContent?: boolean;
  /** The GenAI provider name and the provider's model name of an offered model id (./turn-trace.ts); optional. */
  describeModel?: TurnTraceDeps['describeModel'];
}

/**
 * Codes of a broker refusal (an operation the worker may not ask for, or a report breaking the workflow's rules:
 * core/session/broker-rules.ts), each logged as a `[worker] refused` line.
 */
const refusalCodes = new Set(['operation_refused', 'turn_not_allowed', 'workflow_violation']);

/**
 * The broker: answers one worker request with the host, refusing operations that are not the host's and turns that
 * are not this worker's; each refusal is logged `[worker] refused <operation> for <subject>` (never a value).
 * Source: spec/platform-service.md § Operational log lines ([worker]).
 */
export function turnBroker(
  host: TurnHost,
  refusal: { subject: string; log?(line: string): void; trace?: Pick<TurnTrace, 'within' | 'refusal'> },
): (op: string, args: unknown) => Promise<unknown> {
  return async (op, args) => {
    const method = op.startsWith('turn.') ? op.slice(5) : '';
    // Every host method names its turn first: it runs with that turn's span active (docs/decisions.md D25).
    const turnId = Array.isArray(args) && typeof args[0] === 'string' ? args[0] : '';
    try {
      if (!brokerMethods.has(method) || !Array.isArray(args)) {
        throw new PlatformError('operation_refused', 'The broker does not answer this operation.');
      }
      const answer = () => (host[method as keyof TurnHost] as (...a: unknown[]) => Promise<unknown>)(...args);
      return await (refusal.trace ? refusal.trace.within(turnId, answer) : answer());
    } catch (error) {
      if (error instanceof PlatformError && refusalCodes.has(error.code)) {
        const rule = error instanceof BrokerViolationError ? `: it breaks the workflow rule ${error.rule}` : '';
        const named = /^[A-Za-z.]{1,40}$/.test(op) ? op : 'an operation';
        refusal.log?.(`[worker] refused ${named} for ${refusal.subject}${rule}`);
        // A violation is recorded by the guard, before the failed settle that carries it.
        if (!(error instanceof BrokerViolationError)) refusal.trace?.refusal(turnId, error.code);
      }
      throw error;
    }
  };
}

/**
 * Runs the queued turn `turnId` to its end; a turn no longer queued (claimed elsewhere, cancelled) is left alone.
 * The turn is claimed only once a turn worker slot is free (spec/platform-service.md § Rules 7: work beyond the slots
 * waits with its job claimed): a dispatcher that dies meanwhile leaves it queued, and its job, stalled, runs again
 * elsewhere. A dispatcher stopping (`interrupt`) before a slot is free leaves it queued too (the turn sweep queues it
 * again).
 */
export async function runQueuedTurn(deps: TurnRunnerDeps, turnId: string): Promise<void> {
  const slot = await deps.launcher.reserve('turn', deps.interrupt);
  if (!slot) return;
  try {
    await runInSlot(deps, turnId, slot);
  } finally {
    slot.release();
  }
}

/** Claims and runs turn `turnId` in the reserved `slot` (the run releases it when it ends). */
async function runInSlot(deps: TurnRunnerDeps, turnId: string, slot: WorkerSlot): Promise<void> {
  const turn = await claimTurn(deps, turnId, deps.instanceId);
  if (!turn) return;
  // The run's recorder: the turn's span and steps, written with its settle (docs/decisions.md D25).
  const timed = new TurnTrace({
    clock: deps.clock,
    captureMessageContent: deps.captureMessageContent === true,
    ...(deps.describeModel ? { describeModel: deps.describeModel } : {}),
  }, turn);
  const controller = new AbortController();
  const watch = startHeartbeat(deps, turnId, controller);
  // A cancel of the turn or its session stops the worker: read once per change notification (./cancel-watch.ts).
  const cancelWatch = await watchCancellation(
    { ...deps, safetyMs: deps.cancelPollMs },
    { ...turn, runner: deps.instanceId },
    () => controller.abort(),
  );
  deps.changes?.changed(cancelWatch.rootId);
  // Writes are fenced by this runner and the claim's lease epoch (a turn failed as stale takes nothing more from it).
  const fence = { runner: deps.instanceId, lease: turn.lease ?? '' };
  const host = hostOf(deps, { turn, fence, controller, timed });
  /** Ends the turn tree failed with `failure` (and what was timed of it); `where`: more conditions on the turn. */
  const failTree = async (failure: { code: string; message: string }, where?: Record<string, unknown>) => {
    const ended = await failTurnTree(deps, { ...turn, timeline: timed.timeline(turnId) }, failure, where);
    if (ended) timed.settled(turnId, 'failed', failure.code);
  };
  // Settled before the worker is stopped, so nothing the dying worker reports can settle it another way.
  const interrupt = () => {
    void failTree(interruptedError).finally(() => controller.abort());
  };
  if (deps.interrupt?.aborted) interrupt();
  else deps.interrupt?.addEventListener('abort', interrupt, { once: true });
  try {
    await runWorker(deps, { turn, fence, controller, timed, host, slot, failTree });
  } finally {
    clearInterval(watch);
    cancelWatch.end();
    // The settle or failure above (or a cancel) changed the chat: its readers read again.
    deps.changes?.changed(cancelWatch.rootId);
    deps.interrupt?.removeEventListener('abort', interrupt);
    // A run that settled nothing was stopped (a cancel) or lost its turn to another writer (a sweep).
    timed.end(controller.signal.aborted ? 'cancelled' : 'unsettled');
  }
}

/**
 * Renews the heartbeat of turn `turnId` every TURN_HEARTBEAT_MS (a stale one means this dispatcher died); a beat
 * that reads the turn cancelled aborts `controller`. @returns the interval to clear when the run ends
 */
function startHeartbeat(
  deps: TurnRunnerDeps,
  turnId: string,
  controller: AbortController,
): ReturnType<typeof setInterval> {
  return setInterval(() => {
    const stopIfCancelled = (status: string | undefined) => {
      if (status === 'cancelled') controller.abort();
    };
    void beatTurn(deps, turnId, deps.instanceId).then(stopIfCancelled, () => undefined);
  }, TURN_HEARTBEAT_MS);
}

/** A claimed turn's run as {@link runWorker} drives it. */
interface WorkerRun extends RunParts {
  /** The store host the worker's broker answers from. */
  host: TurnHost;
  /** The turn worker slot reserved for it. */
  slot: WorkerSlot;
  /** Ends the turn tree failed (what was timed of it with it); `where`: more conditions on the turn. */
  failTree(failure: { code: string; message: string }, where?: Record<string, unknown>): Promise<void>;
}

/**
 * Runs the worker of a claimed turn to its end: a worker that ended failed (or hit a limit) fails the turn tree
 * under the claim's lease; then `afterTurn`.
 */
async function runWorker(deps: TurnRunnerDeps, run: WorkerRun): Promise<void> {
  const { turn, fence, controller, timed, host, slot } = run;
  const turnId = turn._id;
  // The turn's context goes with the job (the worker's first round trip, saved); when it cannot be read, the worker
  // asks for it and reports the failure. The workflow's turn_seconds is enforced from outside the worker too (its
  // own check never runs while it is stuck).
  const context = await host.loadTurn(turnId).catch(() => undefined);
  timed.begin();
  if (context && needsNoWorker(context)) return runWithoutWorker(deps, run, context);
  const turnSeconds = context?.workflow.limits.turnSeconds;
  const outcome = await timed.within(turnId, () =>
    deps.launcher.run({
      kind: 'turn',
      subject: `turn ${turnId}`,
      task: 'turn',
      payload: context ? { turnId, context } : { turnId },
      limits: deps.limits,
      broker: turnBroker(host, { subject: `turn ${turnId}`, log: deps.log, trace: timed }),
      signal: controller.signal,
      slot,
      onProgress: timed.workerStarting(),
      ...(turnSeconds === undefined ? {} : { turnSeconds }),
    }));
  if (outcome.ended === 'failed') {
    const code = outcome.code ?? (outcome.limit ? 'worker_limit' : 'worker_failed');
    await run.failTree({ code, message: outcome.message }, { lease: fence.lease });
  }
  await timed.within(turnId, async () => await deps.afterTurn?.(turnId));
}

/**
 * Runs a turn with nothing to sandbox (./turn-inline.ts) in this process over its store host: a host that cannot
 * write the turn's end fails the turn tree under the claim's lease, as a failed worker does; then `afterTurn`.
 */
async function runWithoutWorker(deps: TurnRunnerDeps, run: WorkerRun, context: TurnContext): Promise<void> {
  const { turn, fence, timed, host } = run;
  try {
    await timed.within(turn._id, () => runTurnInline({ host, clock: deps.clock }, turn._id, context));
  } catch (error) {
    const failure = error instanceof PlatformError ? error : undefined;
    const message = failure?.message ?? 'The turn could not be recorded.';
    await run.failTree({ code: failure?.code ?? 'turn_failed', message }, { lease: fence.lease });
  }
  await timed.within(turn._id, async () => await deps.afterTurn?.(turn._id));
}

/** What {@link hostOf} builds the broker's host from: the claimed turn, its fence, its abort and its recorder. */
interface RunParts {
  turn: TurnRecord;
  fence: TurnFence;
  controller: AbortController;
  timed: TurnTrace;
}

/** The store host of a claimed turn's run (./store-host.ts): its writes fenced, its calls bounded by the run. */
function hostOf(deps: TurnRunnerDeps, { turn, fence, controller, timed }: RunParts): TurnHost {
  let agentLookup: Promise<string | undefined> | undefined;
  const agentOfTurn = () => (agentLookup ??= sessionsOf(deps).findOne({ _id: turn.sessionId })
    .then((s) => s?.agentId, () => undefined));
  return createStoreHost({
    ...deps,
    signal: controller.signal,
    fence,
    trace: timed,
    // A report the broker refused ended the turn failed: the worker is stopped, nothing more of it is taken.
    onViolation: () => controller.abort(),
    // A new message stopped the turn at its safe point (it settled interrupted): the worker is stopped.
    onInterrupted: () => controller.abort(),
    ...(deps.textDeltas ? { onText: (delta: TextDelta) => deps.textDeltas!.publish(delta) } : {}),
    callSignal: (
      timeoutMs,
    ) => (timeoutMs === undefined
      ? controller.signal
      : AbortSignal.any([controller.signal, AbortSignal.timeout(timeoutMs)])),
    costOf: deps.costOf,
    // Only the collections the turn's organization connected (or may use the deployment's token for) are offered.
    serviceTools: () => deps.catalog.tools({ orgId: turn.orgId }),
    // The turn record's organization (written by the platform): an owned collection answers only its owner's agents.
    // With the session's agent (the records, never the worker) it is the service's rate key (docs/decisions.md D17 §
    // 6). It runs inside the tool call's execute_tool span (./turn-trace.ts), so the service call's span is its child.
    callServiceTool: async (call, signal) =>
      deps.catalog.call(call.collection, call.name, call.input, {
        signal,
        orgId: turn.orgId,
        agentId: await agentOfTurn(),
        sessionId: turn.sessionId,
      }),
  }, turn._id);
}
