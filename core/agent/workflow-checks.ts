/**
 * Checks one workflow.yaml: its schema, then the graph: state names are slugs, transitions and `on_error`
 * name existing states, a human state offers at least one transition, the workflow has a trigger and a
 * terminal state (one without transitions), every state can be reached from a trigger's entry state, and
 * every hook script exists in the workflow's `hooks/` folder.
 *
 * Source: docs/agent-format.md § workflow.yaml, § Triggers.
 */
import { Type } from '@sinclair/typebox';
import { decisionTermProblems } from './decision-terms.ts';
import { notifyProblems } from './decision-notify.ts';
import { slugRegExp, stateSchema, workflowSchema } from './model.ts';
import { schemaProblems } from './schema-problems.ts';
import type { TriggerDeclaration } from './trigger-model.ts';
import { checkStateTriggers } from './triggers.ts';
import { type KeyedProblem, pointer } from './yaml-source.ts';

/** workflow.yaml's schema; triggers are checked per kind by triggers.ts. Source: docs/agent-format.md § workflow.yaml.
 */
export const WorkflowFile = workflowSchema(stateSchema(Type.Record(Type.String(), Type.Unknown())));

/** What one workflow declares, for the agent-wide checks. */
export interface WorkflowSummary {
  slug: string;
  states: string[];
  triggers: TriggerDeclaration[];
}

type State = Record<string, unknown>;
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const targetsOf = (state: State): string[] =>
  listOf(state.transitions).map((t) => (isRecord(t) ? t.to : undefined)).filter((to): to is string =>
    typeof to === 'string'
  );

function transitionProblems(name: string, state: State, states: Set<string>): KeyedProblem[] {
  const problems: KeyedProblem[] = [];
  const seen = new Set<string>();
  listOf(state.transitions).forEach((t, i) => {
    if (!isRecord(t) || typeof t.to !== 'string') return;
    const key = pointer('states', name, 'transitions', i, 'to');
    if (!states.has(t.to)) {
      problems.push({
        key,
        message: `transition to "${t.to}", which is not a state of this workflow; use one of: ${
          [...states].join(', ')
        }, or add the state`,
      });
    } else if (seen.has(t.to)) {
      problems.push({
        key,
        message: `a second transition to "${t.to}"; keep one and put both cases in its description`,
      });
    }
    seen.add(t.to);
  });
  if (typeof state.on_error === 'string' && !states.has(state.on_error)) {
    problems.push({
      key: pointer('states', name, 'on_error'),
      message: `on_error names "${state.on_error}", which is not a state of this workflow; use one of: ${
        [...states].join(', ')
      }`,
    });
  }
  if (state.type === 'human' && targetsOf(state).length === 0) {
    problems.push({
      key: pointer('states', name),
      atKey: true,
      message:
        `human state "${name}" has no transitions, so no decision could be taken; add transitions (one per choice) ` +
        `or make it an agent state`,
    });
  }
  return problems;
}

function hookProblems(workflow: string, name: string, state: State, files: ReadonlySet<string>): KeyedProblem[] {
  return (['before', 'after'] as const).flatMap((when) =>
    listOf(state[when]).flatMap((hook, i) => {
      if (!isRecord(hook)) return [];
      const key = pointer('states', name, when, i);
      const kinds = ['script', 'rubric'].filter((k) => hook[k] !== undefined);
      if (kinds.length !== 1) {
        return [{
          key,
          message: `a hook needs exactly one of script (hooks/<name>.js) and rubric (text graded by a model); found ${
            kinds.length === 0 ? 'neither' : 'both'
          }`,
        }];
      }
      if (typeof hook.script === 'string' && !files.has(`workflows/${workflow}/${hook.script}`)) {
        return [{
          key: `${key}/script`,
          message:
            `hook script "${hook.script}" does not exist; add workflows/${workflow}/${hook.script} or fix the path`,
        }];
      }
      return [];
    })
  );
}

/** States no trigger enters and no transition, `on_error` or `expires.to` of a reachable state leads to. */
function unreachable(states: Record<string, State>, entries: string[]): string[] {
  const reached = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const next = queue.pop() as string;
    if (reached.has(next) || !states[next]) continue;
    reached.add(next);
    queue.push(...targetsOf(states[next]));
    if (typeof states[next].on_error === 'string') queue.push(states[next].on_error as string);
    const expires = states[next].expires;
    if (isRecord(expires) && typeof expires.to === 'string') queue.push(expires.to);
  }
  return Object.keys(states).filter((s) => !reached.has(s));
}

function graphProblems(states: Record<string, State>, triggers: TriggerDeclaration[]): KeyedProblem[] {
  const names = Object.keys(states);
  if (names.length === 0) return [];
  if (triggers.length === 0) {
    return [{
      key: '/states',
      message:
        'no state declares a trigger, so no session could start; add triggers (e.g. chat: {} or manual: {}) to the ' +
        'entry state',
    }];
  }
  const problems: KeyedProblem[] = [];
  if (!names.some((n) => listOf(states[n].transitions).length === 0)) {
    problems.push({
      key: '/states',
      message: 'every state has transitions, so no session could end; add a terminal state (one without transitions)',
    });
  }
  for (const name of unreachable(states, triggers.map((t) => t.state))) {
    problems.push({
      key: pointer('states', name),
      atKey: true,
      message: `state "${name}" cannot be reached: no trigger is declared on it and no transition leads to it; add a ` +
        `transition to it or remove it`,
    });
  }
  return problems;
}

/**
 * Checks one workflow.yaml.
 * @param slug - the workflow folder's name
 * @param data - the parsed YAML
 * @param files - every path of the repository (to find hook scripts)
 * @returns problems (keys are pointers into workflow.yaml) and what the workflow declares
 */
export function checkWorkflow(
  slug: string,
  data: unknown,
  files: ReadonlySet<string>,
): { problems: KeyedProblem[]; summary: WorkflowSummary } {
  const problems = schemaProblems(WorkflowFile, data);
  const root = isRecord(data) ? data : {};
  const states = isRecord(root.states) ? root.states : {};
  const stateRecords = Object.fromEntries(Object.entries(states).filter(([, s]) => isRecord(s))) as Record<
    string,
    State
  >;
  const names = new Set(Object.keys(states));
  const triggers: TriggerDeclaration[] = [];
  for (const [name, state] of Object.entries(stateRecords)) {
    if (!slugRegExp.test(name)) {
      problems.push({
        key: pointer('states', name),
        atKey: true,
        message: `state name "${name}" is not a slug; rename it with lowercase letters and digits joined by single ` +
          `hyphens (e.g. "review-answer")`,
      });
    }
    if (isRecord(state.triggers)) {
      const checked = checkStateTriggers(slug, name, state.triggers);
      problems.push(...checked.problems);
      triggers.push(...checked.declarations);
    }
    problems.push(...transitionProblems(name, state, names), ...hookProblems(slug, name, state, files));
    problems.push(...decisionTermProblems(name, state, names), ...notifyProblems(name, state));
  }
  problems.push(...graphProblems(stateRecords, triggers));
  return { problems, summary: { slug, states: [...names], triggers } };
}
