/**
 * The machine of a workflow: TypeBox schemas of `workflows/<slug>/workflow.yaml` (its root, its states,
 * tool and skill rules, hooks and budgets). Every object refuses keys it does not name
 * (`additionalProperties: false`) except `metadata`, which is free host data. Trigger declarations are in
 * `trigger-model.ts`; AGENTS.md, SKILL.md and test cases in `documents-model.ts`. Cross-checks that need
 * more than one value (transition targets, hooks on disk, trigger ids across workflows) are in
 * `workflow-checks.ts` and `validate.ts`. The reference for authors is docs/agent-format.md.
 *
 * Source: docs/agent-format.md § workflow.yaml; spec/platform-service.md § What the service does.
 */
import { notifyTerm } from './decision-notify.ts';
import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * A slug: lowercase letters and digits in groups joined by single hyphens (`flight-analyst`).
 * Names workflows, states, skills, trigger ids and connections. Source: docs/agent-format.md (Slugs).
 */
export const slugPattern = '^[a-z0-9]+(-[a-z0-9]+)*$';

/** {@link slugPattern} as a RegExp. Source: docs/agent-format.md (Slugs). */
export const slugRegExp = new RegExp(slugPattern);

/**
 * A variable name: a lowercase letter followed by lowercase letters, digits, `_` or `-` (the rule of
 * session attribute keys). Source: spec/platform-service.md § Session facts named (Session attributes).
 */
export const variableNamePattern = '^[a-z][a-z0-9_-]*$';

/** A string of 1..`max` characters. */
export const Text = (max: number, description?: string) => Type.String({ minLength: 1, maxLength: max, description });

/** One of the given words (a union of literals; reported as "one of …"). */
export const OneOf = <T extends string>(words: readonly T[]) => Type.Union(words.map((w) => Type.Literal(w)));

/** A strict object: unknown keys are errors. */
export const Strict = <P extends Record<string, TSchema>>(properties: P, description?: string) =>
  Type.Object(properties, { additionalProperties: false, description });

/** A slug-valued string. Source: docs/agent-format.md (Slugs). */
export const Slug = Type.String({ pattern: slugPattern, maxLength: 63 });

/** Free host data: never prompted, not part of the content hash. Source: docs/agent-format.md § workflow.yaml. */
export const Metadata = Type.Record(Type.String(), Type.Unknown());

/**
 * A tool rule entry: `<collection>` (every tool of a collection, e.g. `semantic`), `<collection>/<tool>`
 * (`semantic/execute_query`), a `*` wildcard in the tool part (`semantic/get_*`), or a workflow called as a
 * tool (`platform_workflow_<slug>`); or that name with argument guards `{ tool, arguments }`, where each
 * argument must equal the given value for the rule to apply.
 * Source: docs/agent-format.md § workflow.yaml (tools: entries may guard arguments).
 */
export const ToolName = Type.String({ pattern: '^[a-z0-9_-]+(/[A-Za-z0-9_*.-]+)?$', maxLength: 200 });
/** A tool name with argument guards: the rule applies only when each named argument equals its value. */
export const GuardedTool = Strict({ tool: ToolName, arguments: Type.Record(Type.String(), Type.Unknown()) });
/** A tool rule entry: a {@link ToolName} or a {@link GuardedTool}. Source: docs/agent-format.md § workflow.yaml. */
export const ToolEntry = Type.Union([ToolName, GuardedTool]);
export type ToolEntry = Static<typeof ToolEntry>;

/** Root tool rules: deny beats allow and binds child sessions. Source: docs/agent-format.md § workflow.yaml. */
export const RootTools = Strict({
  allow_always: Type.Optional(Type.Array(ToolEntry)),
  forbid_always: Type.Optional(Type.Array(ToolEntry)),
});
/** Root skill rules (skill slugs). Source: docs/agent-format.md § workflow.yaml. */
export const RootSkills = Strict({
  allow_always: Type.Optional(Type.Array(Slug)),
  forbid_always: Type.Optional(Type.Array(Slug)),
});
/** A state's tool rules, added to the root's while the state is active. Source: docs/agent-format.md § workflow.yaml.
 */
export const StateTools = Strict({
  allow: Type.Optional(Type.Array(ToolEntry)),
  forbid: Type.Optional(Type.Array(ToolEntry)),
});
/** A state's skill rules. Source: docs/agent-format.md § workflow.yaml. */
export const StateSkills = Strict({ allow: Type.Optional(Type.Array(Slug)), forbid: Type.Optional(Type.Array(Slug)) });

/**
 * A transition: `to` (a state of the same workflow) and `description`, all the model knows about the edge
 * (for a human state, the label of the decision). Source: docs/agent-format.md § workflow.yaml.
 */
export const Transition = Strict({ to: Slug, description: Text(500) });
export type Transition = Static<typeof Transition>;

/**
 * A hook run before the state's first model call (`before`) or before it is left (`after`): either a
 * `script` (`hooks/<name>.js` in the workflow folder, run in the worker's sandbox) or a `rubric` graded by
 * a model against `threshold` (0..1, default 0.7) with an optional `model`; exactly one of script and rubric.
 * A hook error fails the turn. Source: docs/agent-format.md § workflow.yaml (before/after hooks).
 */
export const Hook = Strict({
  script: Type.Optional(Type.String({ pattern: '^hooks/[A-Za-z0-9_.-]+\\.js$' })),
  rubric: Type.Optional(Text(4000)),
  threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
  model: Type.Optional(Text(200)),
});
export type Hook = Static<typeof Hook>;

/**
 * Per-visit budget of a state: `model_calls` (1..1000), `call_seconds` (time per model call, 1..3600),
 * `parks` (times the visit may park awaiting input, 0..1000). Exhausting it fails the turn.
 * Source: docs/agent-format.md § workflow.yaml (budget).
 */
export const Budget = Strict({
  model_calls: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  call_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
  parks: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
});
export type Budget = Static<typeof Budget>;

/** The kinds of state: `agent` (the model acts) or `human` (parks for a decision). */
export const stateTypes = ['agent', 'human'] as const;

/**
 * A human state's decision terms (docs/decisions.md D26 § 2): `expires: {after, to}` (a duration such as `48h` or
 * `P7D`, and the state the session goes to when nobody decided by then) and `fields` (typed values the decision
 * carries, which become variables). Kept here (not in decision-terms.ts, which imports this module) as schemas only.
 */
const decisionTerms = {
  expires: Type.Optional(Strict({ after: Type.Union([Text(40), Type.Integer()]), to: Slug })),
  fields: Type.Optional(Type.Array(
    Strict({
      name: Type.String({ pattern: variableNamePattern, maxLength: 64 }),
      type: Type.Optional(OneOf(['string', 'number', 'integer', 'boolean', 'object', 'array', 'file'] as const)),
      description: Type.Optional(Text(1000)),
      required: Type.Optional(Type.Boolean()),
    }),
    { maxItems: 50 },
  )),
};

/**
 * Builds the state schema around the trigger map schema (kept in trigger-model.ts, checked per type).
 * Source: docs/agent-format.md § workflow.yaml (A state).
 */
export const stateSchema = (triggers: TSchema) =>
  Strict({
    title: Type.Optional(Text(200)),
    instructions: Type.Optional(Type.String({ maxLength: 20000 })),
    type: Type.Optional(OneOf(stateTypes)),
    triggers: Type.Optional(triggers),
    transitions: Type.Optional(Type.Array(Transition, { maxItems: 50 })),
    tools: Type.Optional(StateTools),
    skills: Type.Optional(StateSkills),
    requires: Type.Optional(Type.Array(Type.String({ pattern: variableNamePattern, maxLength: 64 }))),
    before: Type.Optional(Type.Array(Hook, { maxItems: 10 })),
    after: Type.Optional(Type.Array(Hook, { maxItems: 10 })),
    budget: Type.Optional(Budget),
    on_error: Type.Optional(Slug),
    model: Type.Optional(Text(200)),
    ...decisionTerms,
    ...notifyTerm,
  });

/**
 * Workflow settings: `model` (model id, default the platform's first offered model), `prompt_cache`
 * (default true), and `limits`: `child_depth` (1..8, default 3), `child_concurrency` (1..16, default 4),
 * `turn_seconds` (1..3600, default 600), `model_calls_per_turn` (1..1000, default 50), `output_tokens_per_call`
 * (1..200000, default 4096: the output bound sent with every model call and reserved against spend caps).
 * Source: docs/agent-format.md § workflow.yaml (settings: model, prompt cache, limits).
 */
export const Settings = Strict({
  model: Type.Optional(Text(200)),
  prompt_cache: Type.Optional(Type.Boolean()),
  limits: Type.Optional(Strict({
    child_depth: Type.Optional(Type.Integer({ minimum: 1, maximum: 8 })),
    child_concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 16 })),
    turn_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 3600 })),
    model_calls_per_turn: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    output_tokens_per_call: Type.Optional(Type.Integer({ minimum: 1, maximum: 200_000 })),
  })),
});

/**
 * Builds the workflow.yaml root schema around the state schema. `states` maps state slugs to states
 * (at least one). Source: docs/agent-format.md § workflow.yaml (Root).
 */
export const workflowSchema = (state: TSchema) =>
  Strict({
    title: Type.Optional(Text(200)),
    instructions: Type.Optional(Type.String({ maxLength: 20000 })),
    disabled: Type.Optional(Type.Boolean()),
    settings: Type.Optional(Settings),
    tools: Type.Optional(RootTools),
    skills: Type.Optional(RootSkills),
    states: Type.Record(Type.String(), state, { minProperties: 1 }),
    metadata: Type.Optional(Metadata),
  });
