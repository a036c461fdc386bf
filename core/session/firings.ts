/**
 * What every trigger kind does when it fires: opens a session of the triggered workflow at the state declaring the
 * trigger, on a given published build, with the firing as the locked `trigger` variable (`{id, type, …payload}`) and
 * its arguments as locked variables, and queues its first turn (a `delivery`). Deliveries that carry an id are
 * claimed once, atomically (an insert under a unique id), so retries and concurrent duplicates fire once. A firing
 * with a session key (its trigger's `session` expression) joins the open session of that key instead, as a new
 * `delivery` turn, when that session awaits input. A firing with a firing key opens its session once however often
 * it runs (a stalled queue job run twice, a claim resumed by the sweep of core/session/delivery-claims.ts): the
 * session and turn ids derive from the key.
 *
 * Source: docs/agent-format.md § Triggers (arguments of a firing become locked variables; `trigger` is
 * reserved); spec/platform-service.md § Firings, § Webhook firing payload; docs/decisions.md D8 (a retry fires once,
 * exactly
 * once under concurrent duplicates; session keys: one open session per key, one session under concurrent firings).
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { Firing, FiringDeps, FiringResult, FiringTarget } from './firing-model.ts';
import { finalStatuses, type SessionRecord, type TurnRecord } from './model.ts';
import {
  checkSessionKey,
  dropClaim,
  nameClaimedSession,
  readClaim,
  releaseClaim,
  type SessionKeyScope,
  takeClaim,
} from './session-key-claims.ts';
import {
  insertSession,
  insertTurn,
  type NewSession,
  sessionsOf,
  type SessionStoreDeps,
  turnsOf,
} from './session-store.ts';
import { moveSessionOn, nextTurn, openSessionWithTurn } from './queued-turns.ts';

export type { Firing, FiringDeps, FiringResult, FiringTarget } from './firing-model.ts';
import { claimDelivery, deliveriesCollection, type DeliveryRecord, settleDelivery } from './delivery-claims.ts';
export {
  claimDelivery,
  deliveriesCollection,
  type DeliveryRecord,
  type PendingFiring,
  releaseDelivery,
  settleDelivery,
} from './delivery-claims.ts';

/** Rounds of claim, read and release a keyed firing makes before it answers busy. */
const KEYED_ROUNDS = 3;

/** The session and turn ids a firing key gives (`fs-` / `ft-` and 32 hex digits of its SHA-256). */
interface FiringIds {
  sessionId: string;
  turnId: string;
}

async function firingIdsOf(deps: Pick<SessionStoreDeps, 'ids'>, firingKey: string): Promise<FiringIds> {
  const digest = (await deps.ids.sha256Hex(firingKey)).slice(0, 32);
  return { sessionId: `fs-${digest}`, turnId: `ft-${digest}` };
}

/** The store deps whose next new id is `id` (insertSession and insertTurn each draw one id). */
const withId = <T extends SessionStoreDeps>(
  deps: T,
  id: string | undefined,
): T => (id === undefined ? deps : { ...deps, ids: { ...deps.ids, newId: () => id } });

/**
 * Opens the session of a firing and queues its first turn. With a `sessionKey`, the firing goes to the open root
 * session of the same agent, environment, workflow and trigger holding that key: a session awaiting input takes it
 * as a `delivery` turn whose message carries the new firing (the `trigger` variable keeps the opening firing); when
 * none is open (never opened, or ended) a new session opens with the key; two concurrent firings with one key open
 * one session (an atomic claim, see session-key-claims.ts). With a `firingKey`, the session and turn ids derive from
 * it, so the same firing run again (a stalled job, a resumed claim) finds what it did and opens nothing new
 * (outcome `existing`; a turn still queued is queued again, the job id being the turn id).
 * @returns the session, the queued turn and whether it was opened, delivered to, or existing
 * @throws PlatformError `session_busy` (409) when the key's session is running or awaiting a decision: the firing is
 *   not taken and the caller tries again later; `invalid_session_key` (400) for a blank key or one over 256 characters
 */
export async function openFiredSession(deps: FiringDeps, target: FiringTarget, firing: Firing): Promise<FiringResult> {
  if (firing.sessionKey !== undefined) checkSessionKey(firing.sessionKey);
  const ids = firing.firingKey === undefined ? undefined : await firingIdsOf(deps, firing.firingKey);
  const before = ids && await firedBefore(deps, ids, target, firing);
  if (before) return before;
  if (firing.sessionKey === undefined) return { ...(await openSession(deps, target, firing, ids)), outcome: 'opened' };
  const key = claimKeyOf(firing);
  const scope = scopeOf(target);
  for (let round = 0; round < KEYED_ROUNDS; round += 1) {
    if (await takeClaim(deps, scope, key)) {
      return { ...(await openClaimed(deps, target, firing, { scope, key, ids })), outcome: 'opened' };
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
      const delivered = await deliverToSession(deps, session, { target, firing, turnId: ids?.turnId });
      if (delivered) return { session: { ...session, status: 'running' }, turnId: delivered, outcome: 'delivered' };
      continue;
    }
    throw busy(target, `its session ${session._id} is ${session.status.replace('_', ' ')}`);
  }
  throw busy(target, 'its session is being opened or is changing status');
}

/** A member's chats are personal: their keys are claimed apart from everyone else's. */
const claimKeyOf = (
  firing: Firing,
) => (firing.startedBy === undefined ? firing.sessionKey! : `${firing.sessionKey!}\u0000member:${firing.startedBy}`);

const scopeOf = (target: FiringTarget): SessionKeyScope => ({
  agentId: target.agentId,
  environment: target.environment,
  workflow: target.workflow,
  trigger: target.trigger.id,
});

/**
 * What a firing with these ids did before, or undefined: its turn (queued again while it waits), or its session
 * alone (its opener stopped before the turn: the turn is inserted and queued now, and a keyed claim names it).
 */
async function firedBefore(
  deps: FiringDeps,
  ids: FiringIds,
  target: FiringTarget,
  firing: Firing,
): Promise<FiringResult | undefined> {
  const turn = await turnsOf(deps).findOne({ _id: ids.turnId });
  const session = await sessionsOf(deps).findOne({ _id: turn?.sessionId ?? ids.sessionId });
  if (!session) return undefined;
  if (!turn && finalStatuses.includes(session.status)) return { session, turnId: ids.turnId, outcome: 'existing' };
  const queued = turn ?? await insertFiringTurn(deps, session, firing.message, ids.turnId);
  if (!turn && firing.sessionKey !== undefined) {
    await nameClaimedSession(deps, scopeOf(target), claimKeyOf(firing), session._id);
  }
  if (queued.status === 'queued') await deps.enqueueTurn(queued._id);
  return { session, turnId: queued._id, outcome: 'existing' };
}

/** Inserts the `delivery` turn of a firing under `turnId` (given: a concurrent run's insert of it is the same turn). */
async function insertFiringTurn(
  deps: FiringDeps,
  session: SessionRecord,
  message: string,
  turnId?: string,
): Promise<TurnRecord> {
  try {
    return await insertTurn(withId(deps, turnId), session, { kind: 'delivery', input: { message } });
  } catch (error) {
    const again = turnId !== undefined && isPlatformError(error, 'duplicate_key');
    const existing = again ? await turnsOf(deps).findOne({ _id: turnId }) : null;
    if (existing) return existing;
    throw error;
  }
}

const busy = (target: FiringTarget, why: string) =>
  new PlatformError(
    'session_busy',
    `The firing of trigger "${target.trigger.id}" (workflow "${target.workflow}") was not taken: ${why}; try it ` +
      `again once the session awaits input.`,
    { status: 409 },
  );

/**
 * Opens the session of a firing with its first turn. Without a firing key (an AG-UI run, an MCP call: the caller
 * waits for the answer), a queue store that refuses the add leaves no session behind and the caller gets 503
 * `queue_unavailable` (./queued-turns.ts). With one (an acknowledged firing, which must not be lost), the session
 * stays with its turn in its outbox and the turn sweep queues it: the session moves on.
 */
async function openSession(
  deps: FiringDeps,
  target: FiringTarget,
  firing: Firing,
  ids?: FiringIds,
): Promise<{ session: SessionRecord; turnId: string }> {
  const args = firing.args ?? {};
  const fields: NewSession = {
    orgId: target.orgId,
    agentId: target.agentId,
    environment: target.environment,
    workflow: target.workflow,
    buildId: target.buildId,
    commitId: target.commitId,
    state: target.state,
    trigger: target.trigger.id,
    depth: 0,
    inheritedForbid: [],
    variables: { ...args, trigger: { id: target.trigger.id, type: target.trigger.type, ...firing.payload } } as never,
    lockedVariables: [...Object.keys(args), 'trigger'],
    ...(firing.sessionKey === undefined ? {} : { sessionKey: firing.sessionKey }),
    ...(firing.startedBy === undefined ? {} : { startedBy: firing.startedBy }),
    ...(firing.evaluation === undefined ? {} : { evaluation: firing.evaluation }),
  };
  if (!ids) {
    const { session, turn } = await openSessionWithTurn(deps, fields, 'delivery', { message: firing.message });
    return { session, turnId: turn._id };
  }
  // The insert carries the first turn as the session's outbox: a process that dies before the turn is written
  // leaves it to the turn sweep (core/session/turn-recovery.ts).
  const next = nextTurn(withId(deps, ids.turnId), 'delivery', { message: firing.message });
  let session: SessionRecord;
  try {
    session = await insertSession(withId(deps, ids.sessionId), { ...fields, next });
  } catch (error) {
    // The same firing, run at once elsewhere, inserted it first: finish what that run does (the turn is one).
    const other = isPlatformError(error, 'duplicate_key') ? await firedBefore(deps, ids, target, firing) : undefined;
    if (other) return other;
    throw error;
  }
  const turn = await insertFiringTurn(deps, session, firing.message, next.turnId);
  await deps.enqueueTurn(turn._id);
  return { session, turnId: turn._id };
}

/** The session-key claim {@link openClaimed} opens the session of. */
interface ClaimToOpen {
  /** The scope the session key is claimed in. */
  scope: SessionKeyScope;
  /** The claimed session key. */
  key: string;
  /** The session's and first turn's ids (a keyed firing's, derived from its firing key). Default: new ones. */
  ids?: FiringIds;
}

/** Opens the session of a claim this firing took and names it on the claim; the claim is dropped if opening fails. */
async function openClaimed(
  deps: FiringDeps,
  target: FiringTarget,
  firing: Firing,
  { scope, key, ids }: ClaimToOpen,
): Promise<{ session: SessionRecord; turnId: string }> {
  let opened: { session: SessionRecord; turnId: string };
  try {
    opened = await openSession(deps, target, firing, ids);
  } catch (error) {
    await dropClaim(deps, scope, key).catch(() => undefined);
    throw error;
  }
  await nameClaimedSession(deps, scope, key, opened.session._id);
  return opened;
}

/** The firing {@link deliverToSession} delivers, and the turn it queues. */
interface SessionDelivery {
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
async function deliverToSession(
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

/** The firing {@link fireOnce} fires, and the claim it fires under. */
export interface ClaimedFiring {
  /** The delivery claim's scope (e.g. a connection id, or `schedule:<environment>:<trigger>`). */
  scope: string;
  /** The firing's delivery id in `scope`: claimed once; a later firing with it is taken before. */
  firingId: string;
  /** The trigger fired and the agent environment it belongs to. */
  target: FiringTarget;
  /** The firing; its `firingKey` names the session and turn it opens. */
  firing: Firing & { firingKey: string };
}

/**
 * Fires a claimed firing once, as one recoverable step: the claim of `firingId` in `scope` records the session to
 * open (`firing.firingKey` must be set), the session is opened, the claim settled. A firing claimed before whose
 * claim is still pending (its process stopped before opening) is opened now; one claimed and done is left alone.
 * @returns what opening did, or undefined when the firing was taken before
 * @throws what {@link openFiredSession} throws (the claim stays pending: a later sweep opens it)
 */
export async function fireOnce(
  deps: FiringDeps,
  { scope, firingId, target, firing }: ClaimedFiring,
): Promise<FiringResult | undefined> {
  if (!(await claimDelivery(deps, scope, firingId, { open: { target, firing } }))) {
    const claims = deps.docs.collection<DeliveryRecord>(deliveriesCollection);
    const claim = await claims.findOne({ _id: `${scope}:${firingId}` });
    if (!claim?.pending) return undefined;
  }
  const fired = await openFiredSession(deps, target, firing);
  await settleDelivery(deps, scope, firingId);
  return fired;
}
