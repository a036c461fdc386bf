/**
 * The consumers of a dispatcher's queues: turns and design turns (in turn slots), triggers by job name, webhook
 * firings (fair, at the pace turns end), environment operations (then their connection edits and reconciliation),
 * trigger deployments, polls and evaluation runs. A job whose handler throws is logged and kept failed.
 *
 * Source: spec/platform-service.md § Processes, § Rules 3 and 4; docs/decisions.md D24 § 1.
 */
import { runCompletionFiring, TRIGGER_QUEUE } from '../../core/trigger/completion-firings.ts';
import { DESIGN_TURN_QUEUE, TURN_QUEUE } from '../../core/session/turn-jobs.ts';
import { runWebhookJob, WEBHOOK_FIRING_QUEUE, type WebhookJob } from '../../core/trigger/webhook-firings.ts';
import { POLL_QUEUE, type PollJob } from '../../core/trigger/poll-sweep.ts';
import { runPoll } from '../../core/trigger/poll-run.ts';
import {
  type CallbackActivationJob,
  callbackLive,
  runCallbackActivation,
} from '../../core/trigger/callback-addresses.ts';
import { type CallbackDeactivationJob, runCallbackDeactivation } from '../../core/trigger/callback-lifecycle.ts';
import { type CallbackDelivery, runCallbackDelivery } from '../../core/trigger/callback-runs.ts';
import { type KeyedFiringJob, runKeyedFiring } from '../../core/trigger/keyed-firings.ts';
import { consumeEnvironmentOperations } from '../../core/boot/environment-operations.ts';
import type { DeploymentWork } from '../../core/boot/deployment-dispatcher.ts';
import { applyConnectionEditsAfter } from '../../core/boot/connection-wiring.ts';
import type { CompletionFiring } from '../../core/session/completion.ts';
import { runQueuedTurn } from '../../core/session/turn-runner.ts';
import { waitForTurnRoom } from '../../core/session/turn-intake.ts';
import { runEvaluation } from '../../core/evaluation/evaluation-runner.ts';
import { EVALUATION_QUEUE } from '../../core/evaluation/model.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { Logger } from '../../core/ports/logger.ts';
import type { StoppableConsumer } from './stop-work.ts';
import type { WorkScope } from './work-deps.ts';

/** A job handler whose failure is logged (the job is kept failed for inspection, as the queue port says). */
function logged(
  logger: Logger,
  queueName: string,
  handler: (job: { id: string; name: string; data: unknown }) => Promise<void>,
) {
  return async (job: { id: string; name: string; data: unknown }) => {
    try {
      await handler(job);
    } catch (error) {
      logger.error({ queue: queueName, job: job.id, err: (error as Error).message }, 'job failed');
      throw error;
    }
  };
}

/** The consumer of a turn queue: each job's turn run in a slot, counted while it runs. */
function turnConsumer(
  ctx: WorkScope,
  queue: JobQueue,
  named: { queueName: string; turnDeps: Parameters<typeof runQueuedTurn>[0] },
) {
  const { runningTurns } = ctx.deps;
  return queue.consume(
    named.queueName,
    logged(ctx.settings.logger, named.queueName, async (job) => {
      const { turnId } = job.data as { turnId: string };
      runningTurns.add(turnId);
      try {
        await runQueuedTurn(named.turnDeps, turnId);
      } finally {
        runningTurns.delete(turnId);
      }
    }),
    { concurrency: ctx.settings.started.boot.env.workers.turn.slots },
  );
}

/** The handler of the `triggers` queue, by job name. */
function triggerJob(ctx: WorkScope, queue: JobQueue) {
  const { store, enqueueTurn, builds, intake, triggerCallDeps } = ctx.deps;
  const { print } = ctx.settings;
  return async (job: { id: string; name: string; data: unknown }) => {
    // Bounded intake: a firing opens its session only while few background turns wait (core/session/turn-intake.ts).
    if (job.name !== 'callback-activate' && job.name !== 'callback-deactivate') {
      await waitForTurnRoom(intake, () => performance.now());
    }
    const firingDeps = { ...store, enqueueTurn, builds };
    if (job.name === 'completion') {
      await runCompletionFiring(firingDeps, (job.data as { firing: CompletionFiring }).firing);
    }
    // A keyed session that is busy (running, or awaiting a decision) takes the delivery later: runWebhookJob re-queues
    // it with a delay.
    if (job.name === 'webhook') await runWebhookJob({ ...firingDeps, queue, log: print }, job.data as WebhookJob);
    if (job.name === 'callback') await runCallbackDelivery({ ...triggerCallDeps, queue }, job.data as CallbackDelivery);
    if (job.name === 'keyed-firing') {
      await runKeyedFiring({ ...firingDeps, queue, log: print }, job.data as KeyedFiringJob);
    }
    if (job.name === 'callback-activate') {
      await runCallbackActivation(triggerCallDeps, job.data as CallbackActivationJob);
    }
    if (job.name === 'callback-deactivate') {
      await runCallbackDeactivation({
        ...triggerCallDeps,
        isLive: (record) => callbackLive(triggerCallDeps, record),
      }, job.data as CallbackDeactivationJob);
    }
  };
}

/**
 * Every consumer of the queues. The turn queues are fair (core/adapters/redis/fair-queue.ts): a turn is taken when a
 * slot can run it, interactive first, round robin between organizations and their agents (docs/decisions.md D24 § 1).
 */
export function consumeQueues(ctx: WorkScope, queue: JobQueue, deployments: DeploymentWork): StoppableConsumer[] {
  const { env } = ctx.settings.started.boot;
  const { logger, print } = ctx.settings;
  const { store, enqueueTurn, builds, intake, designTurnDeps, triggerCallDeps, log } = { ...ctx.deps, log: ctx.log };
  return [
    turnConsumer(ctx, queue, { queueName: TURN_QUEUE, turnDeps: ctx.deps.turnDeps }),
    // Without a designAgent section no design chat starts (the API refuses), so none is queued.
    ...(designTurnDeps ? [turnConsumer(ctx, queue, { queueName: DESIGN_TURN_QUEUE, turnDeps: designTurnDeps })] : []),
    queue.consume(TRIGGER_QUEUE, logged(logger, TRIGGER_QUEUE, triggerJob(ctx, queue)), { concurrency: 2 }),
    // Webhook deliveries' firings, fair between organizations and their agents, at the pace turns end (bounded intake).
    queue.consume(
      WEBHOOK_FIRING_QUEUE,
      logged(logger, WEBHOOK_FIRING_QUEUE, async (job) => {
        await waitForTurnRoom(intake, () => performance.now());
        await runWebhookJob({ ...store, enqueueTurn, builds, queue, log: print }, job.data as WebhookJob);
      }),
      { concurrency: 2 },
    ),
    consumeEnvironmentOperations(queue, ctx.deps.operationDeps, log, {
      afterEnded: async (op) => {
        await applyConnectionEditsAfter(store, op, log).catch((error: Error) =>
          log(`connection edits after environment operation ${op._id} were not applied: ${error.message}`)
        );
        await deployments.afterEnded(op);
      },
    }),
    deployments,
    // Polls at once per dispatcher: PLATFORM_TRIGGER_POLL_CONCURRENCY (Rule 4); each takes a call slot while it runs.
    queue.consume(
      POLL_QUEUE,
      logged(logger, POLL_QUEUE, async (job) => {
        await waitForTurnRoom(intake, () => performance.now());
        await runPoll(triggerCallDeps, job.data as PollJob);
      }),
      { concurrency: env.triggerPollConcurrency },
    ),
    // Evaluation runs, one at a time: their cases' turns go through the turn queue like any other (core/evaluation).
    queue.consume(
      EVALUATION_QUEUE,
      logged(logger, EVALUATION_QUEUE, async (job) => {
        await runEvaluation(ctx.deps.evaluationRunner, (job.data as { runId: string }).runId);
      }),
      { concurrency: 1 },
    ),
  ];
}
