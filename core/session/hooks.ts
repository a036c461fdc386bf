/**
 * Before and after hooks of a state: a script (run by the HookRunner, QuickJS inside a worker) or a rubric graded
 * by a model. A before hook runs once when a visit starts; a script may return `{ variables }` to set. An after hook
 * gates leaving: a script returning `{ ok: false, message }` or a rubric scored below its threshold refuses the
 * advance with an error result the model can act on. A hook that throws fails the turn (`hook_failed`).
 *
 * Source: docs/agent-format.md § workflow.yaml (before/after hooks; only hook errors, exhausted budgets and
 * timeouts fail a turn).
 */
import { PlatformError } from '../ports/platform-error.ts';
import { lockedNames } from './broker-rules.ts';
import { type Judgement, judgeMessages, readJudgement } from './rubric-judge.ts';
import type { TurnRun } from './turn-state.ts';
import type { HookView, StateView } from './workflow-view.ts';

/** Time a hook script may run (ms). */
export const hookTimeoutMs = 10_000;

const record = (
  value: unknown,
): Record<
  string,
  unknown
> => (value !== null && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : {});

async function runScript(run: TurnRun, hook: HookView, input: unknown): Promise<Record<string, unknown>> {
  if (!run.deps.hooks || hook.source === undefined) {
    throw new PlatformError('hook_failed', `Hook ${hook.name} cannot run here: no script sandbox is available.`);
  }
  try {
    return record(await run.deps.hooks.run(hook.source, input, { timeoutMs: hookTimeoutMs }));
  } catch (error) {
    throw new PlatformError('hook_failed', `Hook ${hook.name} failed: ${(error as Error).message}`);
  }
}

async function grade(run: TurnRun, hook: HookView, state: StateView): Promise<Judgement> {
  const reply = await run.host.callModel(run.turnId, {
    model: hook.model ?? state.model ?? run.workflow.model,
    messages: judgeMessages(hook.rubric ?? '', run.lastReply()),
    tools: [],
    promptCache: run.ctx.promptCache,
  });
  const judgement = readJudgement(reply.text);
  if (judgement === undefined) {
    throw new PlatformError('hook_failed', `Rubric hook of state "${state.slug}" got no score from the model.`);
  }
  return judgement;
}

/**
 * Runs the before hooks of `state`; returns variables the scripts set. A script setting a locked variable or
 * `trigger` fails (the broker would refuse the write: core/session/broker-rules.ts).
 * @throws PlatformError `hook_failed`
 */
export async function runBeforeHooks(run: TurnRun, state: StateView): Promise<Record<string, unknown>> {
  const variables: Record<string, unknown> = {};
  const locked = lockedNames(run.session);
  for (const hook of state.before) {
    if (hook.rubric !== undefined) {
      const { score, reason } = await grade(run, hook, state);
      if (score < hook.threshold) {
        throw new PlatformError(
          'hook_failed',
          `Rubric hook of state "${state.slug}" scored ${score} (below ${hook.threshold}): ${reason}`,
        );
      }
      continue;
    }
    const result = await runScript(run, hook, {
      when: 'before',
      state: state.slug,
      variables: { ...run.session.variables, ...variables },
    });
    const set = record(result.variables);
    const refused = Object.keys(set).filter((name) => locked.has(name));
    if (refused.length > 0) {
      const names = refused.join(', ');
      throw new PlatformError('hook_failed', `Hook ${hook.name} may not set ${names}: locked (set by the firing).`);
    }
    Object.assign(variables, set);
  }
  return variables;
}

/** Runs the after hooks of `state`; returns why leaving is refused, or undefined. @throws PlatformError `hook_failed`
 */
export async function runAfterHooks(
  run: TurnRun,
  state: StateView,
  variables: Record<string, unknown>,
): Promise<string | undefined> {
  for (const hook of state.after) {
    if (hook.rubric !== undefined) {
      const { score, reason } = await grade(run, hook, state);
      if (score < hook.threshold) {
        return `Not done yet: the work scored ${score} against this step's rubric (needs ${hook.threshold}). ${reason}`;
      }
      continue;
    }
    const result = await runScript(run, hook, { when: 'after', state: state.slug, variables, reply: run.lastReply() });
    if (result.ok === false) {
      return `Not done yet: ${typeof result.message === 'string' ? result.message : `hook ${hook.name} refused`}`;
    }
  }
  return undefined;
}
