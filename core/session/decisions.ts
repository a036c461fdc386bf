/**
 * The one way a decision is taken, whatever its channel (the API's decide for the web app and the CLI, an AG-UI
 * resume, an MCP decide call, a decision link, an evaluation's step): {@link takeDecision}. It refuses a decision
 * after its expiry, checks the declared fields, and moves the session on by a compare-and-set on the pending
 * decision's id, which the park sweep's expiry ({@link expireDecision}) also takes: of a decision and an expiry racing,
 * exactly one wins.
 *
 * Source: docs/decisions.md D26 § 2; D7 § Sessions and turns (a decision is taken once).
 */
import { PlatformError } from '../ports/platform-error.ts';
import { checkDecisionFields } from './decision-terms.ts';
import type { DecisionChannel, DecisionInput } from './decision-input.ts';
import type { MessageRecord } from './thread-model.ts';
import { type PendingWork, sessionCollections, type SessionRecord, type TurnRecord } from './model.ts';
import { moveSessionOn, type TurnQueueDeps } from './queued-turns.ts';
import { turnsOf } from './session-store.ts';

/** A decision as a channel gives it. Source: docs/decisions.md D26 § 2. */
export interface DecisionRequest {
  /** The state chosen: one of the pending decision's options. */
  to: string;
  comment?: string;
  /** Values of the decision's declared fields, by name; they become session variables. */
  fields?: Record<string, unknown>;
  /** The channel it came through, kept on the decision turn and its trail entry. */
  channel?: DecisionChannel;
}

type DecisionPending = Extract<PendingWork, { kind: 'decision' }>;

/** Who decides when a decision expires (the trail entry's `by`). */
export const EXPIRY_DECIDER = 'platform';

const noDecision = (session: SessionRecord) =>
  new PlatformError(
    'no_decision_pending',
    `Session ${session._id} is ${session.status}, not waiting for a decision; a decision is taken once and a ` +
      `second one is refused.`,
    { status: 409 },
  );

/**
 * The session's pending decision, refused when there is none or it expired at `now`.
 * @throws PlatformError `no_decision_pending` (409), `decision_expired` (409) saying when it expired and where the
 *   session goes (or went)
 */
export function openDecision(session: SessionRecord, now: Date): DecisionPending {
  const pending = session.pending;
  if (session.status !== 'awaiting_decision' || pending?.kind !== 'decision') throw noDecision(session);
  if (pending.expiresAt !== undefined && now.getTime() >= Date.parse(pending.expiresAt)) {
    throw new PlatformError(
      'decision_expired',
      `The decision of session ${session._id} expired at ${pending.expiresAt}: nobody decided in time, so the ` +
        `session moves to "${pending.expiresTo ?? 'its expiry state'}" by itself; a decision is no longer taken.`,
      { status: 409 },
    );
  }
  return pending;
}

/**
 * Takes a decision on a session already loaded (the caller's right to it checked): refused after the decision's
 * `expiresAt`, its `fields` checked against the declared ones, then a compare-and-set on the pending decision's id,
 * and the turn is queued (its input carries the decision, the fields and the channel; the fields become variables).
 * Every channel calls it: decideSession ('api'), the AG-UI resume ('agui'), evaluations ('evaluation'), MCP ('mcp')
 * and decision links ('link').
 * @param by - who decided (a member's subject, or an endpoint caller's), kept on the trail
 * @throws PlatformError `no_decision_pending` (409), `decision_expired` (409), `invalid_decision` (400) naming the
 *   options, `invalid_decision_fields` (400) naming the field, `queue_unavailable` (503)
 */
export async function takeDecision(
  deps: TurnQueueDeps,
  session: SessionRecord,
  decision: DecisionRequest,
  by: string,
): Promise<TurnRecord> {
  const pending = openDecision(session, deps.clock.now());
  if (!pending.options.some((o) => o.to === decision.to)) {
    throw new PlatformError(
      'invalid_decision',
      `"${decision.to}" is not a choice here; decide one of: ${pending.options.map((o) => o.to).join(', ')}.`,
      { status: 400 },
    );
  }
  const fields = checkDecisionFields(pending.fields, decision.fields);
  const locked = Object.keys(fields).find((name) => session.lockedVariables.includes(name));
  if (locked !== undefined) {
    const why = `field "${locked}" names a locked variable of this session (a firing argument); it cannot be set.`;
    throw new PlatformError('invalid_decision_fields', why, { status: 400 });
  }
  const input: DecisionInput = {
    to: decision.to,
    comment: decision.comment,
    by,
    ...(decision.channel === undefined ? {} : { channel: decision.channel }),
    ...(pending.fields ? { fields } : {}),
    pendingId: pending.id,
  };
  const turn = await moveSessionOn(deps, session, {
    filter: { 'pending.id': pending.id },
    from: 'awaiting_decision',
    kind: 'decision',
    input: { decision: input },
  });
  if (!turn) {
    const why = `Session ${session._id} was decided meanwhile (or its decision expired); a second decision is refused.`;
    throw new PlatformError('no_decision_pending', why, { status: 409 });
  }
  return turn;
}

/**
 * Moves a session whose decision expired to its `expiresTo`, by `platform`, on the same compare-and-set as
 * {@link takeDecision} (the pending decision's id), so it happens once and a racing decision either wins or is
 * refused. Used by the park sweep.
 * @returns the decision turn queued, or undefined when the session moved meanwhile (decided, expired by another
 *   sweep, cancelled) or its decision has no expiry
 */
export async function expireDecision(deps: TurnQueueDeps, session: SessionRecord): Promise<TurnRecord | undefined> {
  const pending = session.pending;
  if (session.status !== 'awaiting_decision' || pending?.kind !== 'decision' || !pending.expiresTo) return undefined;
  const input: DecisionInput = { to: pending.expiresTo, by: EXPIRY_DECIDER, expired: true, pendingId: pending.id };
  return moveSessionOn(deps, session, {
    filter: { 'pending.id': pending.id },
    from: 'awaiting_decision',
    kind: 'decision',
    input: { decision: input },
  });
}

/**
 * The decision turn that answered pending decision `pendingId` of session `sessionId`, with the sequence number of
 * the first message it wrote (the session's message count when it has written none yet), or undefined when none did:
 * a repeated answer to the same decision (an AG-UI resume sent twice) is given that turn's result.
 */
export async function decisionTurnOf(
  deps: Pick<TurnQueueDeps, 'docs'>,
  session: Pick<SessionRecord, '_id' | 'messageCount'>,
  pendingId: string,
): Promise<{ turn: TurnRecord; fromSeq: number } | undefined> {
  const filter = { sessionId: session._id, kind: 'decision', 'input.decision.pendingId': pendingId };
  const turn = await turnsOf(deps).findOne(filter);
  if (!turn) return undefined;
  const messages = deps.docs.collection<MessageRecord>(sessionCollections.messages);
  const first = await messages.find({ sessionId: session._id, turnId: turn._id }, { sort: { seq: 1 }, limit: 1 });
  return { turn, fromSeq: first[0]?.seq ?? session.messageCount };
}
