/**
 * The turn engine: runs one turn of a session from its recorded state until the session parks (a decision in a
 * human state, a wait or a reply), reaches a terminal state (succeeded), raises or fails. Each step is checkpointed
 * through the host, so resuming continues from the recorded state and never re-runs a finished step. The model
 * moves only through the control tools and sees only the active state's out-edges.
 *
 * Source: docs/agent-format.md § workflow.yaml; spec/platform-service.md § Session facts named, § Tool-call
 * result status; docs/decisions.md D7 § Sessions and turns.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { runBeforeHooks } from './hooks.ts';
import { controlTools, offeredTools, systemPrompt } from './state-prompt.ts';
import { answerToolCalls, type MessageEffects } from './tool-calls.ts';
import type { PendingView, TurnContext, TurnOutcome } from './turn-host.ts';
import type { DecisionInput } from './decision-input.ts';
import { type EngineDeps, type StateEntry, TurnRun } from './turn-state.ts';
import { childResult } from './workflow-calls.ts';
import type { StateView } from './workflow-view.ts';

export type { EngineDeps } from './turn-state.ts';

/** Codes that may be routed to a state's `on_error` instead of failing the turn. */
const routable = new Set(['hook_failed', 'budget_exhausted', 'model_unavailable', 'turn_limit']);

/**
 * Runs the claimed turn `turnId` to its end and settles it through the host. `context`: the turn as the host's
 * `loadTurn` gave it, when the starting process sent it with the job (one round trip fewer); else it is loaded.
 * @returns how the turn ended (also written by `host.endTurn`)
 */
export async function runTurn(deps: EngineDeps, turnId: string, context?: TurnContext): Promise<TurnOutcome> {
  const run = new TurnRun(deps, context?.turnId === turnId ? context : await deps.host.loadTurn(turnId));
  run.nested = (childTurnId) => runTurn(deps, childTurnId);
  let outcome: TurnOutcome;
  try {
    outcome = (await applyInput(run)) ?? (await loop(run));
  } catch (error) {
    outcome = { status: 'failed', error: errorOf(error), reply: run.lastReply(), variables: run.session.variables };
  }
  await deps.host.endTurn(turnId, outcome);
  return outcome;
}

function errorOf(error: unknown): { code: string; message: string } {
  if (isPlatformError(error)) return { code: error.code, message: error.message };
  return { code: 'turn_failed', message: `The turn failed: ${(error as Error).message ?? String(error)}` };
}

async function applyInput(run: TurnRun): Promise<TurnOutcome | undefined> {
  const { kind, input } = run.ctx;
  const pending = run.session.pending;
  if (pending?.childSessionId) return forwardToChild(run, pending);
  if (kind === 'decision') {
    const decision = input.decision;
    if (pending?.kind !== 'decision' || !decision) {
      throw new PlatformError('no_decision_pending', 'This session is not waiting for a decision.');
    }
    await run.enter(decision.to, decision.expired ? 'expired' : 'decision', decisionEntry(decision));
    return undefined;
  }
  // Entering a state without before hooks is written with the input (the loop's own checkpoint would hold only it).
  const state = run.workflow.states[run.session.state];
  const entered = state && !run.session.visit.entered && state.before.length === 0
    ? { visit: { ...run.session.visit, entered: true } }
    : {};
  if (input.message !== undefined && input.message.length > 0) {
    await run.checkpoint({ messages: [{ role: 'user', content: input.message }], pending: null, ...entered });
  } else if (pending) await run.checkpoint({ pending: null, ...entered });
  return undefined;
}

/** The trail entry, thread note and variables of a decision turn (its fields become variables: D26 § 2). */
function decisionEntry(decision: DecisionInput): StateEntry {
  const note = decision.expired
    ? `Nobody decided in time: the decision expired and the session moved to ${decision.to}.`
    : `Decision by ${decision.by}: move to ${decision.to}${decision.comment ? `. Comment: ${decision.comment}` : ''}.`;
  const fields = decision.fields && Object.keys(decision.fields).length > 0
    ? `\nFields: ${JSON.stringify(decision.fields)}`
    : '';
  return {
    note: decision.comment,
    message: note + fields,
    by: decision.by,
    ...(decision.channel === undefined ? {} : { channel: decision.channel }),
    ...(decision.fields ? { variables: decision.fields } : {}),
  };
}

async function forwardToChild(run: TurnRun, pending: PendingView): Promise<TurnOutcome | undefined> {
  const child = await run.host.resumeChild(run.turnId, pending.childSessionId!, {
    kind: run.ctx.kind,
    ...run.ctx.input,
  });
  const outcome = await run.nested(child.turnId);
  if ((outcome.status === 'awaiting_decision' || outcome.status === 'awaiting_input') && outcome.pending) {
    return run.park(parentPending(outcome.pending, pending.childSessionId!, pending.dispatchId, pending));
  }
  const target = run.workflow.callable[pending.calledWorkflow ?? ''];
  const call = { id: pending.callId ?? '', name: pending.callName ?? '', input: {} };
  const result = target ? childResult(call, target, outcome) : {
    callId: call.id,
    name: call.name,
    output: `Workflow call ended ${outcome.status}.`,
    isError: outcome.status !== 'succeeded',
  };
  const held = (pending.heldResults ?? []).map((h) => ({
    callId: h.callId,
    name: h.name,
    output: h.output,
    isError: h.isError,
  }));
  await run.checkpoint({ messages: [{ role: 'tool', results: [...held, result] }], pending: null });
  return undefined;
}

function parentPending(
  childPending: PendingView,
  childSessionId: string,
  dispatchId: string | undefined,
  call: { callId?: string; callName?: string; calledWorkflow?: string; heldResults?: PendingView['heldResults'] },
): PendingView {
  const { id: _id, heldResults: _h, callId: _c, callName: _n, calledWorkflow: _w, ...rest } = childPending;
  return {
    ...rest,
    id: '',
    childSessionId,
    dispatchId: childPending.dispatchId ?? dispatchId,
    callId: call.callId,
    callName: call.callName,
    calledWorkflow: call.calledWorkflow,
    heldResults: call.heldResults,
  } as PendingView;
}

async function loop(run: TurnRun): Promise<TurnOutcome> {
  for (;;) {
    const state = run.state();
    try {
      if (!run.session.visit.entered) {
        const variables = await runBeforeHooks(run, state);
        await run.checkpoint({
          visit: { ...run.session.visit, entered: true },
          ...(Object.keys(variables).length > 0 ? { variables } : {}),
        });
      }
      if (state.type === 'human') {
        return await run.park({ kind: 'decision', id: '', state: state.slug, options: state.transitions });
      }
      if (state.transitions.length === 0) return await finish(run, state);
      const outcome = await modelStep(run, state);
      if (outcome) return outcome;
    } catch (error) {
      if (!state.onError || !isPlatformError(error) || !routable.has(error.code)) throw error;
      await run.enter(
        state.onError,
        'error',
        { note: error.message, message: `The step "${state.slug}" failed (${error.code}): ${error.message}` },
      );
    }
  }
}

async function finish(run: TurnRun, state: StateView): Promise<TurnOutcome> {
  if (state.instructions && state.instructions.trim().length > 0) {
    run.checkLimits(state);
    const reply = await run.host.callModel(run.turnId, {
      model: state.model ?? run.workflow.model,
      messages: [{ role: 'system', content: systemPrompt(run.workflow, state) }, ...run.messages],
      tools: [],
      promptCache: run.ctx.promptCache,
      timeoutMs: secondsMs(state.budget.callSeconds),
    });
    run.modelCalls += 1;
    await run.checkpoint({
      messages: [{ role: 'assistant', content: reply.text }],
      visit: { ...run.session.visit, modelCalls: run.session.visit.modelCalls + 1 },
    });
  }
  return { status: 'succeeded', reply: run.lastReply(), variables: run.session.variables };
}

const secondsMs = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);

async function modelStep(run: TurnRun, state: StateView): Promise<TurnOutcome | undefined> {
  run.checkLimits(state);
  const tools = offeredTools(run.workflow, state, run.session, run.ctx.serviceTools);
  const reply = await run.host.callModel(run.turnId, {
    model: state.model ?? run.workflow.model,
    messages: [{ role: 'system', content: systemPrompt(run.workflow, state) }, ...run.messages],
    tools: tools.map((t) => t.definition),
    promptCache: run.ctx.promptCache,
    timeoutMs: secondsMs(state.budget.callSeconds),
  });
  run.modelCalls += 1;
  const visit = { ...run.session.visit, modelCalls: run.session.visit.modelCalls + 1 };
  const assistant = {
    role: 'assistant' as const,
    content: reply.text,
    ...(reply.toolCalls.length > 0 ? { toolCalls: reply.toolCalls } : {}),
  };
  if (reply.toolCalls.length === 0) {
    // The reply and the park it makes are one checkpoint (one round trip and one session write).
    const waits = { kind: 'input' as const, id: '', reason: 'The assistant replied and waits for the next message.' };
    return run.park(waits, { messages: [assistant], visit });
  }
  await run.checkpoint({ messages: [assistant], visit });
  const effects = await answerToolCalls(run, state, reply.toolCalls, tools);
  return settleMessage(run, effects);
}

async function settleMessage(run: TurnRun, effects: MessageEffects): Promise<TurnOutcome | undefined> {
  const variables = Object.keys(effects.variables).length > 0 ? effects.variables : undefined;
  const parked = effects.parkedChild;
  if (parked) {
    // An advance in the same message as a parked workflow call is not applied: the model advances again after it
    // settles.
    const held = effects.results.map((
      r,
    ) => (r.name === controlTools.advance && effects.advanceTo
      ? {
        callId: r.callId,
        name: r.name,
        output: 'Not moved: a workflow call of this message was waiting; advance again now that it is settled.',
        isError: true,
      }
      : { callId: r.callId, name: r.name, output: r.output, isError: r.isError ?? false })
    );
    if (variables) await run.checkpoint({ variables });
    const call = {
      callId: parked.call.call.id,
      callName: parked.call.call.name,
      calledWorkflow: parked.call.target.slug,
      heldResults: held,
    };
    return run.park(parentPending(parked.pending as PendingView, parked.childSessionId, parked.dispatchId, call));
  }
  await run.checkpoint({ messages: [{ role: 'tool', results: effects.results }], ...(variables ? { variables } : {}) });
  if (effects.raise) {
    return {
      status: 'failed',
      error: { code: effects.raise.code, message: effects.raise.reason },
      reply: run.lastReply(),
      variables: run.session.variables,
    };
  }
  if (effects.advanceTo) {
    await run.enter(effects.advanceTo.to, 'advance', { note: effects.advanceTo.reason });
    return undefined;
  }
  if (effects.wait) {
    return run.park({ kind: 'input', id: '', reason: effects.wait.reason, until: effects.wait.until, wait: true });
  }
  return undefined;
}
