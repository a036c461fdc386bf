/**
 * Delivering a firing to an open session that awaits input, as a `delivery` turn whose message carries the new
 * firing (the session's `trigger` variable keeps the firing that opened it): a keyed firing joining the open session
 * of its session key (./session-opening.ts), and an evaluation's `deliver` step after the first.
 *
 * Source: docs/agent-format.md § Triggers (`session`: session key expression); docs/decisions.md D8 (session keys:
 * one open session per key).
 */
import type { SessionRecord } from './model.ts';
import type { Firing, FiringDeps, FiringTarget } from './firing-model.ts';
import { insertFiringTurn, withId } from './firing-ids.ts';
import { sessionsOf } from './session-store.ts';
import { moveSessionOn, nextTurn } from './queued-turns.ts';

/** The firing {@link deliverToSession} delivers, and the turn it queues. */
export interface SessionDelivery {
  /** The trigger fired and the agent environment it belongs to. */
  target: FiringTarget;
  /** The firing delivered. */
  firing: Firing;
  /**
   * The `delivery` turn's id when the firing has a key. Default: a new one, a refused add putting the session back
   * to awaiting input.
   */
  turnId?: string;
}

/**
 * Delivers a keyed firing to a session awaiting input: a compare-and-set moves it to running, then a `delivery`
 * turn carrying the firing is queued (under `turnId` when the firing has a key).
 * @returns the turn id, or undefined when the session changed status meanwhile
 */
export async function deliverToSession(
  deps: FiringDeps,
  session: SessionRecord,
  { target, firing, turnId }: SessionDelivery,
): Promise<string | undefined> {
  const message = deliveryMessage(target, firing);
  // Without a firing key a refused add puts the session back to awaiting input (503 to the caller, ./queued-turns.ts).
  if (turnId === undefined) {
    return (await moveSessionOn(deps, session, {
      filter: {},
      from: 'awaiting_input',
      kind: 'delivery',
      input: { message },
    }))?._id;
  }
  // The move carries the turn as the session's outbox (./queued-turns.ts): a crash after it loses nothing.
  const next = nextTurn(withId(deps, turnId), 'delivery', { message });
  const moved = { status: 'running', next, updatedAt: next.at };
  const { matched } = await sessionsOf(deps).updateOne({ _id: session._id, status: 'awaiting_input' }, { $set: moved });
  if (matched === 0) return undefined;
  const turn = await insertFiringTurn(deps, session, message, next.turnId);
  await deps.enqueueTurn(turn._id);
  return turn._id;
}

/**
 * Delivers `firing` to `session`, which awaits input, as a `delivery` turn carrying the firing (an evaluation's
 * `deliver` step after the first).
 * @returns the turn id, or undefined when the session does not await input (any more)
 */
export function deliverFiring(
  deps: FiringDeps,
  session: SessionRecord,
  delivery: { target: FiringTarget; firing: Firing },
): Promise<string | undefined> {
  return deliverToSession(deps, session, delivery);
}

/**
 * The message of a firing delivered to an open session (in place of the firing's own message, which points at the
 * `trigger` variable): the new firing as JSON, since `trigger` keeps the firing that opened the session.
 */
export function deliveryMessage(target: FiringTarget, firing: Firing): string {
  const payload = {
    id: target.trigger.id,
    type: target.trigger.type,
    ...firing.payload,
    ...(firing.args ? { arguments: firing.args } : {}),
  };
  const how = firing.sessionKey === undefined
    ? 'was delivered to this session'
    : `joined this session by its session key ${JSON.stringify(firing.sessionKey)}`;
  return `A new ${target.trigger.type} firing of trigger "${target.trigger.id}" ${how}. ` +
    `The variable "trigger" still holds the firing that opened the session; this firing is:\n${
      JSON.stringify(payload)
    }`;
}
