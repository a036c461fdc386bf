/**
 * Workflow calls: a workflow allowed as a tool runs as a child session with only its arguments passed down and
 * `{message, returns}` passed up. Dispatch ids number the calls (the root's second dispatch is `2`, the first made
 * inside dispatch 1 is `1~1`); depth and concurrency are bounded by the workflow's limits; a call to a workflow
 * already on the chain (a cycle) is refused. A child that parks parks its parent; the decision or reply is taken on
 * the parent and forwarded.
 *
 * Source: docs/agent-format.md § Sub-workflows; spec/platform-service.md § Session facts named.
 */
import type { ModelToolCall, ModelToolResult } from '../ports/model-provider.ts';
import { dispatchIdOf } from './rules.ts';
import type { MessageEffects } from './message-effects.ts';
import type { TurnOutcome } from './turn-host.ts';
import type { TurnRun } from './turn-state.ts';
import type { CallableWorkflow, StateView } from './workflow-view.ts';

import type { WorkflowCall } from './workflow-call.ts';

export type { WorkflowCall } from './workflow-call.ts';

type Settled = { result: ModelToolResult } | {
  parked: { call: WorkflowCall; childSessionId: string; dispatchId: string; outcome: TurnOutcome };
};

const fail = (call: ModelToolCall, output: string): Settled => ({
  result: { callId: call.id, name: call.name, output, isError: true },
});

/** The tool result a settled child turn gives its parent. */
export function childResult(call: ModelToolCall, target: CallableWorkflow, outcome: TurnOutcome): ModelToolResult {
  if (outcome.status === 'succeeded') {
    const returns = Object.fromEntries(
      target.returns.filter((name) => outcome.variables?.[name] !== undefined).map((
        name,
      ) => [name, outcome.variables?.[name]]),
    );
    return { callId: call.id, name: call.name, output: { message: outcome.reply ?? '', returns } };
  }
  const why = outcome.error ? `${outcome.error.code}: ${outcome.error.message}` : outcome.status;
  return {
    callId: call.id,
    name: call.name,
    output: `Workflow ${target.slug} ended ${outcome.status} (${why}).`,
    isError: true,
  };
}

async function callOne(run: TurnRun, item: WorkflowCall): Promise<Settled> {
  const { call, target } = item;
  const limits = run.workflow.limits;
  const chain = [...run.session.ancestry, run.workflow.slug];
  if (chain.includes(target.slug)) {
    return fail(
      call,
      `Calling ${target.slug} would be a cycle (${[...chain, target.slug].join(' → ')}); it is refused.`,
    );
  }
  if (run.session.depth + 1 > limits.childDepth) {
    return fail(call, `Workflow calls may nest at most ${limits.childDepth} deep; this one is refused.`);
  }
  const input = call.input !== null && typeof call.input === 'object' ? call.input as Record<string, unknown> : {};
  const missing = target.parameters.filter((p) => input[p.name] === undefined).map((p) => p.name);
  if (missing.length > 0) return fail(call, `Workflow ${target.slug} needs ${missing.join(', ')}.`);
  run.session.dispatchCount += 1;
  const dispatchId = dispatchIdOf(run.session.dispatchId, run.session.dispatchCount);
  await run.checkpoint({ dispatchCount: run.session.dispatchCount });
  const child = await run.host.openChild(run.turnId, {
    workflow: target.slug,
    dispatchId,
    arguments: input,
    ancestry: chain,
    inheritedForbid: [...run.workflow.tools.forbidAlways, ...run.session.inheritedForbid],
  });
  const outcome = await run.nested(child.turnId);
  if (outcome.status === 'awaiting_decision' || outcome.status === 'awaiting_input') {
    return { parked: { call: item, childSessionId: child.sessionId, dispatchId, outcome } };
  }
  return { result: childResult(call, target, outcome) };
}

/**
 * Runs a message's workflow calls, `childConcurrency` at a time, adding their results to `effects`. The first child
 * that parks parks the parent; calls after it are not run and answer so.
 */
export async function callWorkflows(
  run: TurnRun,
  _state: StateView,
  calls: WorkflowCall[],
  effects: MessageEffects,
): Promise<void> {
  const size = run.workflow.limits.childConcurrency;
  for (let start = 0; start < calls.length; start += size) {
    if (effects.parkedChild) {
      for (const { call } of calls.slice(start)) {
        effects.results.push({
          callId: call.id,
          name: call.name,
          output: 'Not run: an earlier workflow call of this message is waiting; call it again once that is settled.',
          isError: true,
        });
      }
      return;
    }
    const settled = await Promise.all(calls.slice(start, start + size).map((item) => callOne(run, item)));
    for (const item of settled) {
      if ('result' in item) {
        effects.results.push(item.result);
        continue;
      }
      if (effects.parkedChild) {
        effects.results.push({
          callId: item.parked.call.call.id,
          name: item.parked.call.call.name,
          output:
            `Workflow ${item.parked.call.target.slug} is waiting (session ${item.parked.childSessionId}); call it ` +
            `again once the other call is settled.`,
          isError: true,
        });
        continue;
      }
      const status = item.parked.outcome.status as 'awaiting_decision' | 'awaiting_input';
      effects.parkedChild = {
        call: item.parked.call,
        childSessionId: item.parked.childSessionId,
        dispatchId: item.parked.dispatchId,
        status,
        pending: item.parked.outcome.pending,
        held: [],
      };
    }
  }
}
