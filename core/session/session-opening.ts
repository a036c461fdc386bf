/**
 * Opening the session of a firing, as one sequence: {@link openFiredSession} reads top to bottom as the writes it
 * makes, each step saying the invariant it keeps and what completes it when the process dies right after it. Every
 * write is an insert under a known id or a compare-and-set, so two runs of one firing (a stalled job run twice, a
 * claim resumed by the sweep of ./delivery-claims.ts) and two firings of one session key agree.
 * 1. Firing ids: a firing with a firing key derives its session and turn ids from it (./firing-ids.ts); what a
 *    run before wrote is found and finished ({@link firedBefore}) instead of opened anew.
 * 2. Session key claim: a keyed firing takes the key's claim (an insert under a unique id, ./session-key-claims.ts),
 *    or joins the open session of its key as a `delivery` turn (./firing-delivery.ts), or is refused busy.
 * 3. Session insert with its outbox: the first turn is named in the session's own insert (`next`, ./queued-turns.ts).
 * 4. Turn insert under the outbox's id.
 * 5. Enqueue (job id = turn id, so adding twice adds once).
 * 6. Firing record: the key's claim names the session opened.
 * A firing claimed once (fireOnce in ./firings.ts) runs this between its delivery claim and the claim's settling.
 *
 * Source: docs/agent-format.md § Triggers (arguments of a firing become locked variables; `trigger` is reserved);
 * spec/platform-service.md § Firings; docs/architecture.md § Life of a turn; docs/decisions.md D8 (a retry fires
 * once, exactly once under concurrent duplicates; session keys: one open session per key, one session under
 * concurrent firings).
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { Firing, FiringDeps, FiringResult, FiringTarget } from './firing-model.ts';
import { finalStatuses, type NextTurn, type SessionRecord } from './model.ts';
import {
  checkSessionKey,
  dropClaim,
  nameClaimedSession,
  readClaim,
  releaseClaim,
  type SessionKeyScope,
  takeClaim,
} from './session-key-claims.ts';
import { insertSession, sessionsOf, turnsOf } from './session-store.ts';
import { insertNextTurn, nextTurn, queueOpeningTurn } from './queued-turns.ts';
import { type FiringIds, firingIdsOf, insertFiringTurn, withId } from './firing-ids.ts';
import { deliverToSession } from './firing-delivery.ts';

/** Rounds of claim, read and release a keyed firing makes before it answers busy. */
const KEYED_ROUNDS = 3;

/** A session key claim this firing took: it opens the key's session. */
interface KeyClaim {
  /** The scope the session key is claimed in. */
  scope: SessionKeyScope;
  /** The claimed session key (a member's chat's is apart from everyone else's: {@link claimKeyOf}). */
  key: string;
}

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
 *   not taken and the caller tries again later; `invalid_session_key` (400) for a blank key or one over 256
 *   characters; `queue_unavailable` (503) when the queue store refused the turn of a firing without a firing key
 */
export async function openFiredSession(deps: FiringDeps, target: FiringTarget, firing: Firing): Promise<FiringResult> {
  if (firing.sessionKey !== undefined) checkSessionKey(firing.sessionKey);
  // 1. Firing ids. Invariant: one firing key, one session and one turn. A run that died after any later step is
  //    finished here by the next run of the same firing (its queue job again, or the resume sweep of its claim).
  const ids = firing.firingKey === undefined ? undefined : await firingIdsOf(deps, firing.firingKey);
  const before = ids && (await firedBefore(deps, ids, target, firing));
  if (before) return before;
  // 2. Session key claim. Invariant: one open session per key, however many firings race (the claim's unique id).
  //    A claim whose opener died before step 3 names no session: the next firing of the key releases it once it is
  //    SESSION_KEY_CLAIM_STALE_MS old; one whose session ended is released at once.
  const claim = firing.sessionKey === undefined ? undefined : await claimSessionKey(deps, target, firing, ids);
  if (claim !== undefined && 'outcome' in claim) return claim;
  let opened: { session: SessionRecord; turnId: string };
  try {
    // 3. Session insert with its outbox. Invariant: a running session names the turn that must follow. A process
    //    that dies after it leaves the outbox, whose turn the turn sweep inserts and queues (./turn-recovery.ts 1).
    const next = nextTurn(withId(deps, ids?.turnId), 'delivery', { message: firing.message });
    const inserted = await insertFiredSession(deps, { target, firing, ids }, next);
    if ('outcome' in inserted) {
      opened = inserted; // The same firing, run at once elsewhere, inserted it first and finished it here.
    } else {
      // 4. Turn insert under the outbox's id. Invariant: a second insert of it (a concurrent run, the turn sweep) is
      //    the same turn, read back.
      const turn = ids
        ? await insertFiringTurn(deps, inserted, firing.message, next.turnId)
        : (await insertNextTurn(deps, inserted, next))!;
      // 5. Enqueue. The turn of a firing with a firing key whose add was lost is queued again by the turn sweep once
      //    older than its grace (./turn-recovery.ts 2); without a firing key (the caller waits: an AG-UI run, an MCP
      //    call) a refused add removes the turn and the session and answers 503, which the caller may retry.
      if (ids) await deps.enqueueTurn(turn._id);
      else await queueOpeningTurn(deps, inserted, turn);
      opened = { session: inserted, turnId: turn._id };
    }
  } catch (error) {
    // The claim taken in step 2 names no session yet: released, so the next firing of the key opens one.
    if (claim) await dropClaim(deps, claim.scope, claim.key).catch(() => undefined);
    throw error;
  }
  // 6. Firing record: the key's claim names the session. A process that dies before it leaves the claim naming none,
  //    released as in step 2 (a re-run of the same firing that finds the session without its turn names it there).
  if (claim) await nameClaimedSession(deps, claim.scope, claim.key, opened.session._id);
  return { ...opened, outcome: 'opened' };
}

/**
 * Takes the claim of the firing's session key, or delivers the firing to the key's open session awaiting input;
 * a claim naming an ended session (or none, past its staleness) is released and taken again, at most
 * {@link KEYED_ROUNDS} times.
 * @returns the claim taken (the caller opens the session), or what the delivery did
 * @throws PlatformError `session_busy` (409) when the key's session is someone else's, running or awaiting a
 *   decision, or still changing after the last round
 */
async function claimSessionKey(
  deps: FiringDeps,
  target: FiringTarget,
  firing: Firing,
  ids: FiringIds | undefined,
): Promise<KeyClaim | FiringResult> {
  const key = claimKeyOf(firing);
  const scope = scopeOf(target);
  for (let round = 0; round < KEYED_ROUNDS; round += 1) {
    if (await takeClaim(deps, scope, key)) return { scope, key };
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

/**
 * The `session_busy` refusal a keyed firing would meet now, found by reads alone, for a front door that answers
 * before it opens the session (the AG-UI endpoint, docs/decisions.md D24 § 3): the key's open session is someone
 * else's, running or awaiting a decision. @returns undefined otherwise; {@link openFiredSession} may still refuse it
 * when the key's session moves meanwhile
 */
export async function keyedFiringBusy(
  deps: FiringDeps,
  target: FiringTarget,
  firing: Firing,
): Promise<PlatformError | undefined> {
  if (firing.sessionKey === undefined) return undefined;
  const claim = await readClaim(deps, scopeOf(target), claimKeyOf(firing));
  const session = claim?.sessionId ? await sessionsOf(deps).findOne({ _id: claim.sessionId }) : null;
  if (!session || finalStatuses.includes(session.status)) return undefined;
  if (session.startedBy !== firing.startedBy) return busy(target, 'its session belongs to someone else');
  if (session.status === 'awaiting_input') return undefined;
  return busy(target, `its session ${session._id} is ${session.status.replace('_', ' ')}`);
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

const busy = (target: FiringTarget, why: string) =>
  new PlatformError(
    'session_busy',
    `The firing of trigger "${target.trigger.id}" (workflow "${target.workflow}") was not taken: ${why}; try it ` +
      `again once the session awaits input.`,
    { status: 409 },
  );

/** The firing {@link insertFiredSession} inserts the session of. */
interface FiredOpening {
  target: FiringTarget;
  firing: Firing;
  /** The ids its firing key gives; undefined: new ones. */
  ids: FiringIds | undefined;
}

/**
 * Inserts the session of a firing at the state declaring its trigger, the firing as the locked `trigger` variable
 * and its arguments as locked variables, carrying `next` as its outbox.
 * @returns the session, or what a concurrent run of the same firing (which inserted it first) did, finished here
 */
async function insertFiredSession(
  deps: FiringDeps,
  { target, firing, ids }: FiredOpening,
  next: NextTurn,
): Promise<SessionRecord | FiringResult> {
  const args = firing.args ?? {};
  try {
    return await insertSession(withId(deps, ids?.sessionId), {
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
      next,
    });
  } catch (error) {
    const other = ids && isPlatformError(error, 'duplicate_key')
      ? await firedBefore(deps, ids, target, firing)
      : undefined;
    if (other) return other;
    throw error;
  }
}
