/**
 * What every trigger kind does when it fires: opens a session of the triggered workflow at the state declaring the
 * trigger, on a given published build, with the firing as the locked `trigger` variable (`{id, type, …payload}`) and
 * its arguments as locked variables, and queues its first turn (a `delivery`). Deliveries that carry an id are
 * claimed once, atomically (an insert under a unique id), so retries and concurrent duplicates fire once. A firing
 * with a session key (its trigger's `session` expression) joins the open session of that key instead, as a new
 * `delivery` turn, when that session awaits input.
 *
 * Source: ../shared/AGENT-FORMAT.md § Triggers (arguments of a firing become locked variables; `trigger` is
 * reserved); spec/platform-service.md § Firings, § Webhook firing payload; issue 8 (a retry fires once, exactly
 * once under concurrent duplicates; session keys: one open session per key, one session under concurrent firings).
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { finalStatuses, sessionCollections, sessionSchemaVersion, type SessionRecord, type SessionValue } from './model.ts';
import { checkSessionKey, dropClaim, nameClaimedSession, readClaim, releaseClaim, takeClaim, type SessionKeyScope } from './session-key-claims.ts';
import { insertSession, insertTurn, sessionsOf, type SessionStoreDeps } from './session-store.ts';

/** Collection of claimed deliveries (`_id` = {@link deliveryKey}). */
export const deliveriesCollection = sessionCollections.deliveries;

const deliveryKey = (scope: string, deliveryId: string) => `${scope}:${deliveryId}`;

/** A claimed delivery. */
export interface DeliveryRecord { _id: string; schemaVersion: typeof sessionSchemaVersion; scope: string; deliveryId: string; claimedAt: Date }

/** Where a firing opens its session. */
export interface FiringTarget {
  orgId: string;
  agentId: string;
  environment: string;
  buildId: string;
  commitId: string;
  workflow: string;
  /** The state declaring the trigger, and the trigger's id and kind. */
  state: string;
  trigger: { id: string; type: string };
}

/** A firing: what the session's `trigger` variable holds, locked arguments, the first turn's message, its key. */
export interface Firing {
  /** The firing (kept whole in the `trigger` variable). */
  payload: Record<string, unknown>;
  /** The firing's arguments (an mcp call's, a workflow call's): locked variables by name. */
  args?: Record<string, SessionValue>;
  /** The message of the turn that opens the session. */
  message: string;
  /**
   * The session key (the trigger's `session` expression evaluated over the firing, see core/agent
   * session-key-expression.ts `sessionKeyOf`); undefined opens a new session. Source: AGENT-FORMAT.md § Triggers.
   */
  sessionKey?: string;
  /**
   * The member whose chat this firing opens (a chat through the AG-UI endpoint with the member's own sign-in),
   * written as the session's `startedBy`; undefined for sessions that belong to no member. A keyed firing of a member
   * joins only that member's session of its key. Source: spec § Session facts named (a chat is personal).
   */
  startedBy?: string;
}

/** What a firing did: `opened` a new session, or `delivered` a turn to the open session of its key. */
export interface FiringResult { session: SessionRecord; turnId: string; outcome: 'opened' | 'delivered' }

/** What firing a session needs: the stores and the turn queue. */
export type FiringDeps = SessionStoreDeps & { enqueueTurn(turnId: string): Promise<void> };

/** Rounds of claim, read and release a keyed firing makes before it answers busy. */
const KEYED_ROUNDS = 3;

/**
 * Opens the session of a firing and queues its first turn. With a `sessionKey`, the firing goes to the open root
 * session of the same agent, environment, workflow and trigger holding that key: a session awaiting input takes it
 * as a `delivery` turn whose message carries the new firing (the `trigger` variable keeps the opening firing); when
 * none is open (never opened, or ended) a new session opens with the key; two concurrent firings with one key open
 * one session (an atomic claim, see session-key-claims.ts).
 * @returns the session, the queued turn and whether it was opened or delivered to
 * @throws PlatformError `session_busy` (409) when the key's session is running or awaiting a decision: the firing is
 *   not taken and the caller tries again later; `invalid_session_key` (400) for a blank key or one over 256 characters
 */
export async function openFiredSession(deps: FiringDeps, target: FiringTarget, firing: Firing): Promise<FiringResult> {
  if (firing.sessionKey === undefined) return { ...(await openSession(deps, target, firing)), outcome: 'opened' };
  checkSessionKey(firing.sessionKey);
  // A member's chats are personal: their keys are claimed apart from everyone else's.
  const key = firing.startedBy === undefined
    ? firing.sessionKey : `${firing.sessionKey}\u0000member:${firing.startedBy}`;
  const scope: SessionKeyScope = { agentId: target.agentId, environment: target.environment, workflow: target.workflow, trigger: target.trigger.id };
  for (let round = 0; round < KEYED_ROUNDS; round += 1) {
    if (await takeClaim(deps, scope, key)) {
      return { ...(await openClaimed(deps, target, firing, scope, key)), outcome: 'opened' };
    }
    const claim = await readClaim(deps, scope, key);
    if (!claim) continue;
    const session = claim.sessionId === null ? null : await sessionsOf(deps).findOne({ _id: claim.sessionId });
    if (session === null || finalStatuses.includes(session.status)) {
      // Ended (or its opener stopped before inserting it): release it so this firing opens the next session.
      await releaseClaim(deps, claim);
      continue;
    }
    if (session.startedBy !== firing.startedBy) throw busy(target, 'its session belongs to someone else');
    if (session.status === 'awaiting_input') {
      const delivered = await deliverToSession(deps, session, target, firing);
      if (delivered) return { session: { ...session, status: 'running' }, turnId: delivered, outcome: 'delivered' };
      continue;
    }
    throw busy(target, `its session ${session._id} is ${session.status.replace('_', ' ')}`);
  }
  throw busy(target, 'its session is being opened or is changing status');
}

const busy = (target: FiringTarget, why: string) => new PlatformError(
  'session_busy',
  `The firing of trigger "${target.trigger.id}" (workflow "${target.workflow}") was not taken: ${why}; try it again once the session awaits input.`,
  { status: 409 },
);

async function openSession(deps: FiringDeps, target: FiringTarget, firing: Firing): Promise<{ session: SessionRecord; turnId: string }> {
  const args = firing.args ?? {};
  const session = await insertSession(deps, {
    orgId: target.orgId, agentId: target.agentId, environment: target.environment, workflow: target.workflow, buildId: target.buildId, commitId: target.commitId,
    state: target.state, trigger: target.trigger.id, depth: 0, inheritedForbid: [],
    variables: { ...args, trigger: { id: target.trigger.id, type: target.trigger.type, ...firing.payload } } as never,
    lockedVariables: [...Object.keys(args), 'trigger'],
    ...(firing.sessionKey === undefined ? {} : { sessionKey: firing.sessionKey }),
    ...(firing.startedBy === undefined ? {} : { startedBy: firing.startedBy }),
  });
  const turn = await insertTurn(deps, session, 'delivery', { message: firing.message });
  await deps.enqueueTurn(turn._id);
  return { session, turnId: turn._id };
}

/** Opens the session of a claim this firing took and names it on the claim; the claim is dropped if opening fails. */
async function openClaimed(
  deps: FiringDeps, target: FiringTarget, firing: Firing, scope: SessionKeyScope, key: string,
): Promise<{ session: SessionRecord; turnId: string }> {
  let opened: { session: SessionRecord; turnId: string };
  try {
    opened = await openSession(deps, target, firing);
  } catch (error) {
    await dropClaim(deps, scope, key).catch(() => undefined);
    throw error;
  }
  await nameClaimedSession(deps, scope, key, opened.session._id);
  return opened;
}

/**
 * Delivers a keyed firing to a session awaiting input: a compare-and-set moves it to running, then a `delivery`
 * turn carrying the firing is queued. @returns the turn id, or undefined when the session changed status meanwhile
 */
async function deliverToSession(deps: FiringDeps, session: SessionRecord, target: FiringTarget, firing: Firing): Promise<string | undefined> {
  const { matched } = await sessionsOf(deps).updateOne({ _id: session._id, status: 'awaiting_input' }, { $set: { status: 'running', updatedAt: deps.clock.now() } });
  if (matched === 0) return undefined;
  const turn = await insertTurn(deps, session, 'delivery', { message: deliveryMessage(target, firing) });
  await deps.enqueueTurn(turn._id);
  return turn._id;
}

/**
 * The message of a firing delivered to an open session (in place of the firing's own message, which points at the
 * `trigger` variable): the new firing as JSON, since `trigger` keeps the firing that opened the session.
 */
export function deliveryMessage(target: FiringTarget, firing: Firing): string {
  const payload = { id: target.trigger.id, type: target.trigger.type, ...firing.payload, ...(firing.args ? { arguments: firing.args } : {}) };
  return `A new ${target.trigger.type} firing of trigger "${target.trigger.id}" joined this session by its session key ${JSON.stringify(firing.sessionKey)}. `
    + `The variable "trigger" still holds the firing that opened the session; this firing is:\n${JSON.stringify(payload)}`;
}

/**
 * Claims delivery `deliveryId` of `scope` (e.g. a connection id) once: true for the first claim, false for every
 * later one, also under concurrent duplicates (the store's unique `_id` decides, not a read-then-write).
 */
export async function claimDelivery(deps: Pick<SessionStoreDeps, 'docs' | 'clock'>, scope: string, deliveryId: string): Promise<boolean> {
  try {
    await deps.docs.collection<DeliveryRecord>(deliveriesCollection).insertOne({ _id: deliveryKey(scope, deliveryId), schemaVersion: sessionSchemaVersion, scope, deliveryId, claimedAt: deps.clock.now() });
    return true;
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) return false;
    throw error;
  }
}

/** Releases a claim whose firing could not be taken (queue store down), so the sender's retry is taken. */
export async function releaseDelivery(deps: Pick<SessionStoreDeps, 'docs'>, scope: string, deliveryId: string): Promise<void> {
  await deps.docs.collection<DeliveryRecord>(deliveriesCollection).deleteOne({ _id: deliveryKey(scope, deliveryId) });
}
