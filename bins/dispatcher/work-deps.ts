/**
 * What a dispatcher's work runs with: the parts (./work-parts.ts), the abort signals of a stop, the bounded intake,
 * and the deps of the turn runners, environment operations, design chats, evaluation runs and trigger calls.
 *
 * Source: spec/platform-service.md § Processes, § Rules 3, § Replacement; docs/decisions.md D24 § 1, D25, D26 § 3.
 */
import { turnCost } from '../../core/boot/turn-cost.ts';
import { genAiModels } from '../../core/boot/gen-ai-models.ts';
import { createAiModelProvider } from '../../core/adapters/models/ai-model-provider.ts';
import { queueCompletionFiring } from '../../core/trigger/completion-firings.ts';
import { designRunnerDeps } from '../../core/boot/design-wiring.ts';
import { operationHostingDeps } from '../../core/boot/environment-operations.ts';
import { evaluationGatePort, evaluationModelsOf, evaluationRunnerDeps } from '../../core/boot/evaluation-wiring.ts';
import { notifyParkedDecision } from '../../core/session/decision-notify.ts';
import type { DispatcherSettings } from './dispatcher-settings.ts';
import { openWorkParts } from './work-parts.ts';

/** The parts the work is built on ({@link openWorkParts}). */
type WorkParts = Awaited<ReturnType<typeof openWorkParts>>;

/** What the dispatcher's work runs with ({@link openWorkDeps}). */
export type WorkDeps = Awaited<ReturnType<typeof openWorkDeps>>;

/** What the steps of the work share: the settings, the deps, and the log of its lines. */
export interface WorkScope {
  settings: DispatcherSettings;
  deps: WorkDeps;
  log(line: string): void;
}

/** The deps of the turn runners: models, costs, limits, what follows a turn, live text and change notifications. */
function turnRunnerDeps(settings: DispatcherSettings, parts: WorkParts & { interrupt: AbortSignal }) {
  const { boot: { env, config } } = settings.started;
  const { store, queue, catalog, builds, liveChannel } = parts;
  const { print } = settings;
  const baseModels = createAiModelProvider({ models: config.models });
  const evaluationModels = evaluationModelsOf(store, baseModels);
  return {
    ...store,
    enqueueTurn: parts.enqueueTurn,
    launcher: parts.launcher,
    catalog,
    instanceId: settings.instanceId,
    interrupt: parts.interrupt,
    models: baseModels,
    costOf: turnCost(config.models),
    describeModel: genAiModels(config.models),
    // An evaluation session's model calls are recorded, or answered from a recording, as its run says.
    evaluationModels,
    promptCache: { enabled: env.promptCache, ttl: env.promptCacheTtl },
    limits: env.workers.turn,
    workflowOf: builds.workflowOf,
    log: print,
    // Message content on spans only when OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (D25).
    captureMessageContent: settings.captureMessageContent,
    afterTurn: async (turnId: string) => {
      if (queue) await queueCompletionFiring({ ...store, queue }, turnId);
      // A decision the turn parked on goes out where its human state's `notify` says (docs/decisions.md D26 § 3).
      await notifyParkedDecision({
        ...store,
        catalog,
        agentOf: builds.agentOf,
        appBaseUrl: env.appBaseUrl ?? '',
        log: print,
      }, turnId);
    },
    // Live text of model calls for the AG-UI streams, and change notifications (Redis pub/sub on the queue store).
    ...(liveChannel ? { textDeltas: liveChannel, changes: liveChannel } : {}),
  };
}

/** The deps of environment operations, design chats' turns, evaluation runs and trigger calls. */
function jobRunnerDeps(settings: DispatcherSettings, parts: WorkParts, turnDeps: ReturnType<typeof turnRunnerDeps>) {
  const { boot: { env, config } } = settings.started;
  const { print } = settings;
  const { store, queue, catalog, builds, enqueueTurn, launcher } = parts;
  const operationDeps = {
    ...operationHostingDeps({ ...store, scratchDir: env.scratchDir, models: config.models }),
    // A gated publish runs the draft's cases through the evaluations queue; a gated promotion reads the runs.
    evaluationGate: evaluationGatePort({ ...store, queue }),
  };
  // Design chats' turns: the designAgent model, the design workflow and tools, in turn workers like any turn.
  const designTurnDeps = designRunnerDeps({
    turns: turnDeps,
    config,
    services: catalog,
    queue: queue ?? undefined,
    hosting: operationHostingDeps({ ...store, scratchDir: env.scratchDir }),
  });
  /** A step of an evaluation case may take a turn's wall time and a minute more before the case fails. */
  const evaluationRunner = evaluationRunnerDeps({
    ...store,
    enqueueTurn,
    workflowOf: builds.workflowOf,
    agentOf: builds.agentOf,
    models: turnDeps.models,
    costOf: turnDeps.costOf,
    promptCache: turnDeps.promptCache,
    settleTimeoutMs: (env.workers.turn.wallTimeSeconds + 60) * 1000,
    log: print,
  });
  /** Polls, callback runs and callback activations run in call workers; the broker's calls go through the catalog. */
  const triggerCallDeps = {
    ...store,
    enqueueTurn,
    builds,
    launcher,
    catalog,
    callLimits: env.workers.call,
    log: print,
    appBaseUrl: env.appBaseUrl ?? '',
  };
  return { operationDeps, designTurnDeps, evaluationRunner, triggerCallDeps };
}

/**
 * Opens what the work runs with: the parts, the abort signals of a stop, the bounded intake, the turns running, and
 * every runner's deps.
 */
export async function openWorkDeps(settings: DispatcherSettings) {
  const { env } = settings.started.boot;
  const parts = await openWorkParts(settings);
  /** Aborted when a stop's grace has passed: running turns end interrupted (./stop-work.ts). */
  const stopInterrupt = new AbortController();
  /** Aborted when a stop starts: firings waiting for room in the turn queue go on (core/session/turn-intake.ts). */
  const intakeStop = new AbortController();
  /** Bounded intake: background turns waiting at which firings wait, twice this dispatcher's turn slots. */
  const intake = {
    queue: parts.queue!,
    bound: env.workers.turn.slots * 2,
    stop: intakeStop.signal,
    sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  };
  const turnDeps = turnRunnerDeps(settings, { ...parts, interrupt: stopInterrupt.signal });
  return {
    ...parts,
    stopInterrupt,
    intakeStop,
    intake,
    /** Turns this dispatcher runs now (for the stop's log lines). */
    runningTurns: new Set<string>(),
    turnDeps,
    ...jobRunnerDeps(settings, parts, turnDeps),
  };
}
