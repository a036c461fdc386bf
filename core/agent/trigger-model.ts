/**
 * Trigger declarations, authored on a workflow state under `triggers`: the key is the trigger id (a slug,
 * unique across the agent's workflows) and `type` says the kind; when the key itself is a kind word
 * (`chat:`, `schedule:` …) `type` may be left out. Each kind has its own strict schema.
 *
 * Source: docs/agent-format.md § Triggers; spec/platform-service.md § Resources and their fields
 * (Trigger declarations), § Limits (example prompts per chat trigger).
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Metadata, OneOf, Slug, Strict, Text, variableNamePattern } from './model.ts';
import { multitaskStrategies } from './multitask.ts';

/** The trigger kinds. Source: docs/agent-format.md § Triggers. */
export const triggerTypes = [
  'chat',
  'mcp',
  'webhook',
  'callback',
  'schedule',
  'polling',
  'completion',
  'manual',
] as const;
/** One trigger kind. */
export type TriggerType = (typeof triggerTypes)[number];

/** Example prompts per chat trigger: at most 6, each at most 200 characters. Source: spec/platform-service.md § Limits.
 */
export const chatExampleLimits = { count: 6, length: 200 } as const;

/**
 * Value types of a trigger's parameters and results. `file` is accepted by `manual` only: an mcp trigger
 * declaring a file entry is a validation error. Source: spec/platform-service.md § Trigger declarations.
 */
export const parameterTypes = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'file'] as const;

/**
 * A parameter the trigger requires: `name` (variable name; becomes a locked session variable),
 * `type` (default string), `description`, `required` (default true).
 * Source: spec/platform-service.md § Trigger declarations (mcp requires).
 */
export const Parameter = Strict({
  name: Type.String({ pattern: variableNamePattern, maxLength: 64 }),
  type: Type.Optional(OneOf(parameterTypes)),
  description: Type.Optional(Text(1000)),
  required: Type.Optional(Type.Boolean()),
});
export type Parameter = Static<typeof Parameter>;

/** A value carried in an mcp tool result: `name`, `type`, optional `description`. Source: spec/platform-service.md §
 * Trigger declarations. */
export const ReturnValue = Strict({
  name: Type.String({ pattern: variableNamePattern, maxLength: 64 }),
  type: OneOf(parameterTypes),
  description: Type.Optional(Text(1000)),
});

const connection = Type.Optional(Slug);
const session = Type.Optional(Text(500));

/**
 * The schema of each trigger kind (keys other than `type`).
 * - chat: `session` (session key expression), `examples` (≤ 6 × ≤ 200 chars), `connection` (AG-UI),
 *   `multitask` (reject | enqueue | interrupt | rollback, default enqueue; docs/decisions.md D27 § 1).
 * - mcp: `description`, `requires`, `returns`, `trace`, `connection`.
 * - webhook: `connection`, `session`. callback: `collection`, `event`, `arguments`, `session`.
 * - schedule: `cron` (5 fields or @daily-style nickname), `timezone` (IANA, default UTC).
 * - polling: `collection`, `tool`, `arguments`, `interval_minutes` (1..10080, default 5).
 * - completion: `workflow` (another workflow of the agent). manual: `description`, `requires`.
 * Source: docs/agent-format.md § Triggers; spec/platform-service.md § Trigger declarations.
 */
export const triggerProperties: Record<TriggerType, Record<string, TSchema>> = {
  chat: {
    session,
    examples: Type.Optional(Type.Array(Text(chatExampleLimits.length), { maxItems: chatExampleLimits.count })),
    connection,
    multitask: Type.Optional(OneOf(multitaskStrategies)),
  },
  mcp: {
    description: Type.Optional(Text(2000)),
    requires: Type.Optional(Type.Array(Parameter, { maxItems: 50 })),
    returns: Type.Optional(Type.Array(ReturnValue, { maxItems: 50 })),
    trace: Type.Optional(Type.Boolean()),
    connection,
  },
  webhook: { connection, session },
  callback: { collection: Slug, event: Text(200), arguments: Type.Optional(Metadata), session },
  schedule: { cron: Text(200), timezone: Type.Optional(Text(100)) },
  polling: {
    collection: Slug,
    tool: Type.String({ pattern: '^[A-Za-z0-9_.-]+$', maxLength: 200 }),
    arguments: Type.Optional(Metadata),
    interval_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: 10080 })),
  },
  completion: { workflow: Slug },
  manual: { description: Type.Optional(Text(2000)), requires: Type.Optional(Type.Array(Parameter, { maxItems: 50 })) },
};

/**
 * The strict schema of one trigger kind; `type` is required unless `typeFromKey` (the id is the kind word).
 * Source: docs/agent-format.md § Triggers.
 */
export function triggerSchema(type: TriggerType, typeFromKey: boolean): TSchema {
  const typeKey = typeFromKey ? Type.Optional(Type.Literal(type)) : Type.Literal(type);
  return Strict({ type: typeKey, ...triggerProperties[type] });
}

/** True when `word` is a trigger kind. */
export const isTriggerType = (word: unknown): word is TriggerType =>
  (triggerTypes as readonly unknown[]).includes(word);

/**
 * A trigger as read from a state, after its schema passed: the kind, the id, and the declared keys.
 * Source: docs/agent-format.md § Triggers.
 */
export interface TriggerDeclaration {
  id: string;
  type: TriggerType;
  workflow: string;
  state: string;
  fields: Record<string, unknown>;
}
