/**
 * Schemas of the agent's other files: the front matter of AGENTS.md and of skills/<slug>/SKILL.md, and
 * the evaluation cases `workflows/<slug>/tests/*.test.yaml`. Strict: unknown keys are errors, except
 * under `metadata`, `arguments`, `variables` and payloads, which are free data.
 *
 * Source: docs/agent-format.md (layout; § Tests); spec/platform-service.md § Limits (agent description).
 */
import { type Static, Type } from '@sinclair/typebox';
import { Metadata, OneOf, Slug, Strict, Text, ToolName } from './model.ts';

/** The agent description's limit. Source: spec/platform-service.md § Limits (agent description). */
export const agentDescriptionMaxLength = 500;

/**
 * AGENTS.md front matter: `description` (required, 1..500 characters: what the agent is for, shown to
 * members) and an optional display `name`. The body is the system prompt of every workflow.
 * Source: docs/agent-format.md (AGENTS.md); spec/platform-service.md § Limits.
 */
export const AgentFrontMatter = Strict({
  name: Type.Optional(Text(100)),
  description: Text(agentDescriptionMaxLength),
});
export type AgentFrontMatter = Static<typeof AgentFrontMatter>;

/**
 * SKILL.md front matter: `name` (the folder's slug), `description` (1..1024 characters: when to use the
 * skill; the model sees it before loading the body), optional `license` and free `metadata`.
 * Source: docs/agent-format.md (skills/<slug>/SKILL.md).
 */
export const SkillFrontMatter = Strict({
  name: Slug,
  description: Text(1024),
  license: Type.Optional(Text(200)),
  metadata: Type.Optional(Metadata),
});
export type SkillFrontMatter = Static<typeof SkillFrontMatter>;

/**
 * A mocked tool result, chosen when the call's input contains every key of `input` with equal values:
 * `tool` (`<collection>/<tool>`), `input` (partial match, default any), and `result` or `error`; or `live: true`
 * (neither `result` nor `error`): such a call goes to the service itself, with the organization's credential.
 * Source: docs/agent-format.md § Tests (mocks).
 */
export const Mock = Strict({
  tool: ToolName,
  input: Type.Optional(Metadata),
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Text(2000)),
  live: Type.Optional(Type.Literal(true)),
});

/** Kinds of park a `parked` assertion names. */
export const parkKinds = ['decision', 'input'] as const;

/**
 * One step of a case: exactly one key. Actions: `send` (a message), `decide` ({to, comment}), `deliver`
 * (a trigger payload). Assertions: `succeeded`/`failed` (true), `parked` (decision | input),
 * `reachedState` (a state slug), `calledTool` (a tool name or {tool, input}), `reply` ({includes,
 * excludes}: text or list of texts), `variables` (values the session must hold), `grade` ({rubric,
 * threshold 0..1, model}). Source: docs/agent-format.md § Tests (steps).
 */
export const Step = Strict({
  send: Type.Optional(Text(20000)),
  decide: Type.Optional(Strict({ to: Slug, comment: Type.Optional(Text(2000)) })),
  deliver: Type.Optional(Metadata),
  succeeded: Type.Optional(Type.Literal(true)),
  failed: Type.Optional(Type.Literal(true)),
  parked: Type.Optional(OneOf(parkKinds)),
  reachedState: Type.Optional(Slug),
  calledTool: Type.Optional(Type.Union([ToolName, Strict({ tool: ToolName, input: Type.Optional(Metadata) })])),
  reply: Type.Optional(Strict({
    includes: Type.Optional(Type.Union([Text(2000), Type.Array(Text(2000))])),
    excludes: Type.Optional(Type.Union([Text(2000), Type.Array(Text(2000))])),
  })),
  variables: Type.Optional(Metadata),
  grade: Type.Optional(
    Strict({
      rubric: Text(4000),
      threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })),
      model: Type.Optional(Text(200)),
    }),
  ),
});
export type Step = Static<typeof Step>;

/**
 * An evaluation case (one conversation on one session): `title`, `description`, `trigger` (a trigger id
 * of this workflow; default its first chat or manual trigger), `variables` (set before the first step),
 * `mocks`, `steps` (at least one). Source: docs/agent-format.md § Tests.
 */
export const TestCase = Strict({
  title: Text(200),
  description: Type.Optional(Text(2000)),
  trigger: Type.Optional(Slug),
  variables: Type.Optional(Metadata),
  mocks: Type.Optional(Type.Array(Mock)),
  steps: Type.Array(Step, { minItems: 1 }),
  metadata: Type.Optional(Metadata),
});
export type TestCase = Static<typeof TestCase>;
