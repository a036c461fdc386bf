/**
 * Session use cases of the API and the operator command on a session: decide, reply, cancel, list, show, set
 * attributes (starting one: ./session-start.ts; spend caps: ./spend-cap-setting.ts; who sees one:
 * ./session-access.ts). Every one checks the caller's agent role (Reader reads, User answers). A child session is
 * answered only through its parent. A turn is queued here and run by a dispatcher.
 *
 * Source: spec/platform-service.md § Session facts named, § Tool-call result status; docs/decisions.md D7 § Sessions
 * and turns, § Operators.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { designWorkflowSlug, finalStatuses, type SessionRecord, type SessionValue, type TurnRecord } from './model.ts';
import { type DecisionRequest, takeDecision } from './decisions.ts';
import { checkAttributes } from './rules.ts';
import { moveSessionOn } from './queued-turns.ts';
import { readThread, sessionsOf, turnsOf } from './session-store.ts';
import { checkSpendCaps } from './spend.ts';
import { loadSession, type SessionCaller, type SessionDeps, type TurnQueueDeps } from './session-access.ts';

export { type DecisionRequest, expireDecision, takeDecision } from './decisions.ts';

/**
 * Refuses to answer a child session directly: a child is decided (or replied to, or cancelled) only through its
 * parent, whose pending work mirrors the child's; answering the child itself would run a second live turn. Refuses
 * a member's decision or reply to an evaluation case's session (its case's steps take them; a cancel is allowed),
 * and to a design chat (continued through its own endpoint).
 * @throws PlatformError `<what>_through_parent` (409) naming the parent session (same organization, visible);
 *   `evaluation_session` (409) naming the run and the case; `design_session` (409) naming the design endpoint
 */
function refuseChild(session: SessionRecord, what: 'decide' | 'reply' | 'cancel'): void {
  if (session.workflow === designWorkflowSlug && what !== 'cancel') {
    // A design chat is continued through its own endpoint, which checks the member may still change the draft.
    throw new PlatformError(
      'design_session',
      `Session ${session._id} is a design chat: continue it in the Design tab (or POST ` +
        `/api/agents/${session.agentId}/environments/${session.environment}/design), not here.`,
      { status: 409 },
    );
  }
  if (session.evaluation && what !== 'cancel') {
    // An evaluation case's steps decide and reply: a member's answer would change what the case tests.
    throw new PlatformError(
      'evaluation_session',
      `Session ${session._id} is case ${session.evaluation.caseId} of evaluation run ${session.evaluation.runId}: ` +
        `its steps ${what === 'decide' ? 'take its decisions' : 'reply'}, not a member (cancel it to stop the case).`,
      { status: 409 },
    );
  }
  if (session.depth === 0 && !session.parentId) return;
  const how = what === 'cancel'
    ? 'cancel its root session'
    : `${what} through its parent session ${session.parentId ?? ''}`;
  const message = `This is a child session of a workflow call: ${how}.`;
  throw new PlatformError(`${what}_through_parent`, message, { status: 409 });
}

/**
 * Takes the decision of a session parked in a human state (or on a child's): routes to `to` with the declared
 * `fields`, through {@link takeDecision} (channel `api`: the web app and the CLI), and queues the turn.
 * Idempotent: the first decision moves the session on; any later one is refused and re-runs nothing.
 * @throws PlatformError `no_decision_pending` (409), `decision_expired` (409), `invalid_decision` (400) naming the
 *   options, `invalid_decision_fields` (400) naming the field
 */
export async function decideSession(
  deps: SessionDeps,
  caller: SessionCaller,
  sessionId: string,
  decision: Omit<DecisionRequest, 'channel'>,
): Promise<TurnRecord> {
  const session = await loadSession(deps, caller, sessionId, 'user');
  refuseChild(session, 'decide');
  return takeDecision(deps, session, { ...decision, channel: 'api' }, caller.subject);
}

/**
 * Sends the reply a session waiting for input takes, and queues the turn.
 * @throws PlatformError `not_awaiting_input` (409) saying what the session waits for
 */
export async function replySession(
  deps: SessionDeps,
  caller: SessionCaller,
  sessionId: string,
  message: string,
): Promise<TurnRecord> {
  const session = await loadSession(deps, caller, sessionId, 'user');
  refuseChild(session, 'reply');
  return takeReply(deps, session, message);
}

/**
 * Queues the reply of a session already loaded (the caller's right to it checked) that waits for input: the
 * spend caps are checked, then a compare-and-set on its status. Shared by {@link replySession} and the AG-UI endpoint.
 * @throws PlatformError `invalid_argument` (400) for empty text, `not_awaiting_input` (409) saying what the session
 *   waits for, `spend_cap_reached` (429)
 */
export async function takeReply(deps: TurnQueueDeps, session: SessionRecord, message: string): Promise<TurnRecord> {
  if (message.trim().length === 0) throw new PlatformError('invalid_argument', 'A reply needs text.', { status: 400 });
  if (session.status !== 'awaiting_input') {
    const why = session.status === 'awaiting_decision'
      ? 'it waits for a decision; decide first'
      : `it is ${session.status}`;
    throw new PlatformError('not_awaiting_input', `Session ${session._id} takes no reply now: ${why}.`, {
      status: 409,
    });
  }
  await checkSpendCaps(deps, session);
  const turn = await moveSessionOn(deps, session, {
    filter: {},
    from: 'awaiting_input',
    kind: 'reply',
    input: { message },
  });
  if (!turn) {
    const why = `Session ${session._id} took another message meanwhile; send yours once it is settled.`;
    throw new PlatformError('not_awaiting_input', why, { status: 409 });
  }
  return turn;
}

/**
 * Cancels a session that has not ended, its queued or running turns and its child sessions. A running turn's
 * dispatcher sees it at its next step and stops the worker. Exclusive with a claim (`claimTurn`): each session is
 * cancelled first, then every turn queued or running at the time of the write (not at the time of the read), so a
 * turn claimed in between is cancelled too, and a claim after the session's write backs off.
 * @throws PlatformError `session_ended` (409) when it already ended
 */
export async function cancelSession(
  deps: SessionDeps,
  caller: SessionCaller,
  sessionId: string,
): Promise<SessionRecord> {
  const session = await loadSession(deps, caller, sessionId, 'user');
  refuseChild(session, 'cancel');
  if (finalStatuses.includes(session.status)) {
    throw new PlatformError('session_ended', `Session ${session._id} already ended ${session.status}.`, {
      status: 409,
    });
  }
  const now = deps.clock.now();
  const children = session.depth === 0 ? await sessionsOf(deps).find({ rootId: session._id }) : [];
  const ids = [session._id, ...children.map((s) => s._id)];
  for (const id of ids) {
    await sessionsOf(deps).updateOne({ _id: id, status: { $nin: [...finalStatuses] } }, {
      $set: {
        status: 'cancelled',
        pending: null,
        updatedAt: now,
        error: { code: 'cancelled', message: `Cancelled by ${caller.email}.` },
      },
    });
    for (const turn of await turnsOf(deps).find({ sessionId: id, status: { $in: ['queued', 'running'] } })) {
      const live = { _id: turn._id, status: { $in: ['queued', 'running'] } };
      await turnsOf(deps).updateOne(live, { $set: { status: 'cancelled', endedAt: now } });
    }
  }
  deps.changes?.changed(session._id);
  return (await sessionsOf(deps).findOne({ _id: session._id }))!;
}

/**
 * Root sessions of an agent (newest first, at most `limit`, default 50), optionally of one environment and workflow:
 * sessions of no member and the caller's own chats (every member's with sessions:personal).
 */
export async function listSessions(
  deps: SessionDeps,
  caller: SessionCaller,
  ref: { orgId?: string; agent: string; environment?: string; workflow?: string; limit?: number },
): Promise<SessionRecord[]> {
  const agent = await deps.resolveAgent(caller, ref);
  await deps.requireRole(caller, agent.orgId, agent.agentId, 'reader');
  const filter: Record<string, unknown> = { agentId: agent.agentId, depth: 0 };
  if (ref.environment) filter.environment = ref.environment;
  if (ref.workflow) filter.workflow = ref.workflow;
  if (!(await deps.seesEveryChat(caller, agent.orgId))) {
    filter.$or = [{ startedBy: { $exists: false } }, { startedBy: caller.subject }];
  }
  return sessionsOf(deps).find(filter, { sort: { createdAt: -1 }, limit: Math.min(ref.limit ?? 50, 500) });
}

/** A session with its checkpoint thread, its turns and its child sessions. */
export async function showSession(deps: SessionDeps, caller: SessionCaller, sessionId: string) {
  const session = await loadSession(deps, caller, sessionId, 'reader');
  const [thread, turns, children] = await Promise.all([
    readThread(deps, session),
    turnsOf(deps).find({ sessionId: session._id }, { sort: { queuedAt: 1 } }),
    sessionsOf(deps).find({ parentId: session._id }, { sort: { createdAt: 1 } }),
  ]);
  return { session, messages: thread, turns, children };
}

/** Sets (null removes) attributes of a session. @throws PlatformError `invalid_attribute` (400) */
export async function setSessionAttributes(
  deps: SessionDeps,
  caller: SessionCaller,
  sessionId: string,
  changes: Record<string, unknown>,
): Promise<Record<string, SessionValue>> {
  const session = await loadSession(deps, caller, sessionId, 'user');
  const checked = checkAttributes(changes, session.attributes);
  const attributes = { ...session.attributes };
  for (const [key, value] of Object.entries(checked)) {
    if (value === null) delete attributes[key];
    else attributes[key] = value;
  }
  await sessionsOf(deps).updateOne({ _id: session._id }, { $set: { attributes, updatedAt: deps.clock.now() } });
  return attributes;
}
