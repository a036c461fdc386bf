/**
 * A workflow and recorded sessions for the unit tests of the broker's rules (core/session/broker-*.test.ts): an
 * agent state `ask` (requires `answer`, on_error `failed`, semantic allowed but execute_query forbidden on the
 * `secret` model), a human state `review`, terminal `done` and `failed`; `lookup` and the workflow itself callable.
 * Source: docs/decisions.md D17 § 4.
 */
import type { SessionRecord } from '../../core/session/model.ts';
import type { StateView, WorkflowView } from '../../core/session/workflow-view.ts';

/** A state with every list empty, then `fields`. */
export const brokerState = (slug: string, fields: Partial<StateView> = {}): StateView => ({
  slug,
  type: 'agent',
  transitions: [],
  tools: { allow: [], forbid: [] },
  requires: [],
  budget: {},
  before: [],
  after: [],
  triggers: [],
  ...fields,
});

/**
 * A workflow `slug` of `states` with the tests' usual settings (no skills, tools or callable workflows, no prompt
 * cache, 60 s turns of at most 20 model calls), then `fields`.
 */
export const testWorkflow = (
  slug: string,
  states: WorkflowView['states'],
  fields: Partial<WorkflowView> = {},
): WorkflowView => ({
  slug,
  agentPrompt: 'You are a test agent.',
  disabled: false,
  promptCache: false,
  limits: { childDepth: 2, childConcurrency: 2, turnSeconds: 60, modelCallsPerTurn: 20 },
  skills: [],
  tools: { allowAlways: [], forbidAlways: [] },
  callable: {},
  states,
  ...fields,
});

const askTools = {
  allow: [{ tool: 'semantic' }],
  forbid: [{ tool: 'semantic/execute_query', arguments: { modelName: 'secret' } }],
};

/** The workflow `analyst` of the rules' tests. */
export const brokerWorkflow: WorkflowView = {
  slug: 'analyst',
  agentPrompt: 'p',
  disabled: false,
  promptCache: true,
  skills: [],
  limits: { childDepth: 2, childConcurrency: 2, turnSeconds: 60, modelCallsPerTurn: 20 },
  tools: {
    allowAlways: [{ tool: 'platform_workflow_lookup' }, { tool: 'platform_workflow_analyst' }],
    forbidAlways: [{ tool: 'semantic/request_improvement' }],
  },
  callable: {
    lookup: {
      slug: 'lookup',
      description: 'd',
      parameters: [{ name: 'airline', type: 'string' }],
      returns: [],
      entry: 'find',
      trigger: 'manual',
    },
    analyst: { slug: 'analyst', description: 'itself', parameters: [], returns: [], entry: 'ask', trigger: 'manual' },
  },
  states: {
    ask: brokerState('ask', {
      triggers: ['manual'],
      requires: ['answer'],
      onError: 'failed',
      transitions: [{ to: 'review', description: 'written' }],
      tools: askTools,
    }),
    review: brokerState('review', {
      type: 'human',
      transitions: [
        { to: 'done', description: 'Approve.' },
        { to: 'ask', description: 'Back.' },
      ],
    }),
    done: brokerState('done'),
    failed: brokerState('failed'),
  },
};

/** A recorded root session of `analyst` in state `ask` (locked: region, trigger), then `fields`. */
export const brokerSession = (fields: Partial<SessionRecord> = {}) => ({
  _id: 's1',
  workflow: 'analyst',
  state: 'ask',
  status: 'running' as const,
  variables: { trigger: { id: 'manual' }, region: 'EU' } as SessionRecord['variables'],
  lockedVariables: ['region', 'trigger'],
  pending: null,
  visit: { modelCalls: 2, parks: 1, entered: true },
  inheritedForbid: [],
  depth: 0,
  ancestry: [],
  dispatchId: undefined,
  ...fields,
});

/** The rule a finding names (undefined for none). */
export const ruleOf = (found: unknown): string | undefined => (found as { rule?: string } | undefined)?.rule;
