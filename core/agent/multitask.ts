/**
 * What a second message to a chat does while a turn of the same chat runs: the `multitask` key of a chat
 * trigger. A pending decision blocks new messages (409 `decision_pending`) whatever the strategy.
 *
 * Source: docs/decisions.md D27 § 1; docs/agent-format.md § Triggers (chat: multitask).
 */

/**
 * The strategies, in the order the docs list them:
 * - `reject`: the message is refused with 409 `turn_running`.
 * - `enqueue`: the message is kept in order and runs as the next turn when the current one ends (the default).
 * - `interrupt`: the running turn stops at its next safe point (before its next model call; tool calls already
 *   started run to their end), what it did so far is kept, and the new message runs next.
 * - `rollback`: as `interrupt`, but what the stopped turn did (its messages, including the one that started it,
 *   variables, state, trail) is discarded; spend incurred and effects outside cairn are not undone.
 *
 * Source: docs/decisions.md D27 § 1.
 */
export const multitaskStrategies = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;

/** One multitask strategy of a chat trigger. Source: docs/decisions.md D27 § 1. */
export type MultitaskStrategy = (typeof multitaskStrategies)[number];

/** The strategy a chat trigger takes when it declares none. Source: docs/decisions.md D27 § 1. */
export const defaultMultitaskStrategy: MultitaskStrategy = 'enqueue';

/** True when `word` is one of {@link multitaskStrategies}. */
export const isMultitaskStrategy = (word: unknown): word is MultitaskStrategy =>
  (multitaskStrategies as readonly unknown[]).includes(word);

/**
 * The strategy declared by a chat trigger's fields (`TriggerDeclaration.fields`).
 * @param fields - the trigger's declared keys; `multitask` is read, every other key ignored
 * @returns the declared strategy, or `'enqueue'` when the key is absent (or, for fields that did not pass the
 *   validator, holds a value that is not a strategy); never throws
 * Source: docs/decisions.md D27 § 1.
 */
export function multitaskOf(fields: Record<string, unknown>): MultitaskStrategy {
  const declared = fields.multitask;
  return isMultitaskStrategy(declared) ? declared : defaultMultitaskStrategy;
}
