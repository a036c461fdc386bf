/**
 * Session use cases of the API and the operator command: start a session of a published workflow, decide, reply,
 * cancel, list, show, set attributes and spend caps. Every one checks the caller's agent role (Reader reads, User
 * starts and answers, Maintainer sets caps). A member's chat (`startedBy`, inherited by its children through the
 * root) is personal: another member's is not found unless they hold sessions:personal. A child session is answered
 * only through its parent. A turn is queued here and run by a dispatcher.
 *
 * Source: spec/platform-service.md § Session facts named, § Tool-call result status; docs/decisions.md D7 § Sessions
 * and turns, § Operators.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { SessionChanges } from '../ports/session-changes.ts';
import {
  designWorkflowSlug,
  finalStatuses,
  type SessionRecord,
  type SessionValue,
  type SpendPeriod,
  type TurnRecord,
} from './model.ts';
import { type DecisionRequest, takeDecision } from './decisions.ts';
import { checkAttributes } from './rules.ts';
import { moveSessionOn, openSessionWithTurn } from './queued-turns.ts';
import { readThread, sessionsOf, type SessionStoreDeps, turnsOf } from './session-store.ts';
import { checkSpendCaps, type SpendScope, writeSpendCap } from './spend.ts';
import { entryStateOf, type WorkflowView } from './workflow-view.ts';

export { type DecisionRequest, expireDecision, takeDecision } from './decisions.ts';

/** The member acting. */
export interface SessionCaller {
  subject: string;
  email: string;
  name?: string;
}

/** A published workflow resolved for a caller (core/boot over core/agent). */
export interface ResolvedWorkflow {
  orgId: string;
  agentId: string;
  environment: string;
  buildId: string;
  commitId: string;
  view: WorkflowView;
}

/** What the session use cases need besides the stores. */
export interface SessionDeps extends SessionStoreDeps {
  /**
   * Requires at least `role` on the agent. @throws PlatformError `agent_role_required` (403), `not_found` (404) when
   * the caller does not see the agent (not a member of its organization, or no role on it)
   */
  requireRole(
    caller: SessionCaller,
    orgId: string,
    agentId: string,
    role: 'reader' | 'user' | 'maintainer',
  ): Promise<void>;
  /** True when the caller holds sessions:personal in `orgId`: they see every member's chats there. */
  seesEveryChat(caller: SessionCaller, orgId: string): Promise<boolean>;
  /** The published workflow of an agent's environment. @throws PlatformError `agent_not_found`, `not_published`,
   * `workflow_not_found` */
  resolveWorkflow(
    caller: SessionCaller,
    ref: { orgId?: string; agent: string; environment: string; workflow: string },
  ): Promise<ResolvedWorkflow>;
  /** Resolves an agent (slug or id) without a workflow. */
  resolveAgent(
    caller: SessionCaller,
    ref: { orgId?: string; agent: string },
  ): Promise<{ orgId: string; agentId: string }>;
  /** Puts a queued turn on the turn queue. */
  enqueueTurn(turnId: string): Promise<void>;
  /**
   * Whether model `id` (undefined: the default) has prices in the config; given, a cap is refused on a published
   * workflow whose calls run on a model without (docs/decisions.md D17 § 5). Optional.
   */
  modelHasPrices?(id: string | undefined): boolean;
  /** Told after a cancel (the chat's readers and its running turn read again); optional. */
  changes?: SessionChanges;
}

/** Options of {@link startSession}. */
export interface StartOptions {
  orgId?: string;
  agent: string;
  environment: string;
  workflow: string;
  trigger?: string;
  message?: string;
  /** Firing arguments: locked variables of the session. */
  variables?: Record<string, SessionValue>;
}

/**
 * Opens a session at the entry state of `trigger` (default: its manual trigger) and queues its first turn (the
 * session's insert carries the turn as its outbox: ./queued-turns.ts).
 * @throws PlatformError `workflow_disabled` (409), `spend_cap_reached` (429), `trigger_not_found` (404),
 *   `invalid_attribute` (400), `queue_unavailable` (503: the queue store refused the turn; nothing is left)
 */
export async function startSession(
  deps: SessionDeps,
  caller: SessionCaller,
  options: StartOptions,
): Promise<{ session: SessionRecord; turn: TurnRecord }> {
  const resolved = await deps.resolveWorkflow(caller, options);
  await deps.requireRole(caller, resolved.orgId, resolved.agentId, 'user');
  return openAtTrigger(deps, { ...resolved, workflow: options.workflow }, options);
}

/** A published workflow a root session opens on: its scope, build and the engine's view of it. */
export type OpenTarget = ResolvedWorkflow & { workflow: string };

/**
 * The checks every start of a root session of `target` makes before anything is written: the workflow not disabled,
 * its spend caps not reached. Shared by {@link openAtTrigger} and an evaluation case opened by a delivery.
 * @returns the spend scope of `target`
 * @throws PlatformError `workflow_disabled` (409), `spend_cap_reached` (429)
 */
export async function checkStart(
  deps: Pick<TurnQueueDeps, 'docs' | 'clock'>,
  target: Pick<OpenTarget, 'orgId' | 'agentId' | 'environment' | 'workflow'> & { view: Pick<WorkflowView, 'disabled'> },
): Promise<SpendScope> {
  if (target.view.disabled) {
    throw new PlatformError(
      'workflow_disabled',
      `Workflow "${target.workflow}" is disabled in environment "${target.environment}": it takes no new turns.`,
      { status: 409 },
    );
  }
  const scope = {
    orgId: target.orgId,
    agentId: target.agentId,
    environment: target.environment,
    workflow: target.workflow,
  };
  await checkSpendCaps(deps, scope);
  return scope;
}

/**
 * Opens a root session of `target` at the entry state of `options.trigger` (default: its manual trigger) with the
 * firing arguments `variables` (locked), and queues its first turn (`message`, if any): the checks every start
 * makes (the workflow not disabled, the spend caps, the variables' names and values). Shared by
 * {@link startSession} and evaluation cases (core/evaluation, `evaluation` marking the session).
 * @throws PlatformError `workflow_disabled` (409), `spend_cap_reached` (429), `trigger_not_found` (404),
 *   `invalid_attribute` (400), `queue_unavailable` (503)
 */
export async function openAtTrigger(
  deps: TurnQueueDeps,
  target: OpenTarget,
  options: Pick<StartOptions, 'trigger' | 'message' | 'variables'> & Pick<SessionRecord, 'evaluation'>,
): Promise<{ session: SessionRecord; turn: TurnRecord }> {
  const scope = await checkStart(deps, target);
  const entry = entryStateOf(target.view, options.trigger);
  const variables = checkAttributes(options.variables ?? {}, {}) as Record<string, SessionValue>;
  return openSessionWithTurn(
    deps,
    {
      ...scope,
      buildId: target.buildId,
      commitId: target.commitId,
      state: entry.state,
      trigger: entry.trigger,
      variables: { ...variables, trigger: { id: entry.trigger, arguments: variables } } as never,
      lockedVariables: [...Object.keys(variables), 'trigger'],
      depth: 0,
      inheritedForbid: [],
      ...(options.evaluation ? { evaluation: options.evaluation } : {}),
    },
    'prompt',
    options.message === undefined ? {} : { message: options.message },
  );
}

/** The 404 of a session the caller may not see (or that does not exist: the two read the same; no identifier). */
const sessionNotFound = () =>
  new PlatformError(
    'not_found',
    'No such session among the sessions you can see; GET /api/sessions lists them.',
    { status: 404 },
  );

/**
 * The member a session belongs to: its own `startedBy`, or its root's for a child session (children of a member's
 * chat are as personal as the chat); undefined for a session that belongs to no member.
 */
export async function ownerOf(
  deps: Pick<SessionStoreDeps, 'docs'>,
  session: SessionRecord,
): Promise<string | undefined> {
  if (session.startedBy !== undefined || !session.rootId) return session.startedBy;
  return (await sessionsOf(deps).findOne({ _id: session.rootId }))?.startedBy;
}

/**
 * Whether `caller` (who reads the session's agent) sees `session`: a session of no member, their own chat, or any
 * chat where they hold sessions:personal. Source: spec § Session facts named (a chat is personal).
 */
export async function seesSession(
  deps: Pick<SessionDeps, 'docs' | 'seesEveryChat'>,
  caller: SessionCaller,
  session: SessionRecord,
): Promise<boolean> {
  const owner = await ownerOf(deps, session);
  return owner === undefined || owner === caller.subject || deps.seesEveryChat(caller, session.orgId);
}

/**
 * A session the caller sees, with at least `role` on its agent: visibility first (Reader role, then the chat's
 * owner), so a session the caller may not see is 404 whatever the role asked; then `role` (403 when lower).
 * @throws PlatformError `not_found` (404, no identifier), `agent_role_required` (403)
 */
export async function loadSession(
  deps: SessionDeps,
  caller: SessionCaller,
  sessionId: string,
  role: 'reader' | 'user' | 'maintainer',
): Promise<SessionRecord> {
  const session = await sessionsOf(deps).findOne({ _id: sessionId });
  if (!session) throw sessionNotFound();
  try {
    await deps.requireRole(caller, session.orgId, session.agentId, 'reader');
  } catch (error) {
    if (isPlatformError(error, 'not_found')) throw sessionNotFound();
    throw error;
  }
  if (!(await seesSession(deps, caller, session))) throw sessionNotFound();
  if (role !== 'reader') await deps.requireRole(caller, session.orgId, session.agentId, role);
  return session;
}

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

/** What queuing a turn on an existing session needs. */
export type TurnQueueDeps = SessionStoreDeps & Pick<SessionDeps, 'enqueueTurn'>;

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

/** The cap {@link setSpendCap} sets or removes. */
export interface SpendCapSetting {
  /** The period the cap applies to. */
  period: SpendPeriod;
  /** The most the workflow may spend in one period, in US dollars (≥ 0); null removes the cap. */
  limitUsd: number | null;
}

/** Sets or removes a spend cap (Maintainer). @throws PlatformError `invalid_argument` (400) */
export async function setSpendCap(
  deps: SessionDeps,
  caller: SessionCaller,
  ref: { orgId?: string; agent: string; environment: string; workflow: string },
  { period, limitUsd }: SpendCapSetting,
): Promise<void> {
  const agent = await deps.resolveAgent(caller, ref);
  await deps.requireRole(caller, agent.orgId, agent.agentId, 'maintainer');
  if (limitUsd !== null && deps.modelHasPrices) await refuseUnpricedCap(deps, caller, ref, deps.modelHasPrices);
  await writeSpendCap(
    deps,
    { ...agent, environment: ref.environment, workflow: ref.workflow },
    { period, limitUsd, by: caller.subject },
  );
}

/**
 * Refuses a cap on a published workflow that calls a model without prices (it could never be reached); a workflow
 * not published yet is checked when it is published (core/boot/spend-cap-models.ts).
 * @throws PlatformError `spend_cap_unpriced` (422)
 */
async function refuseUnpricedCap(
  deps: SessionDeps,
  caller: SessionCaller,
  ref: Parameters<SessionDeps['resolveWorkflow']>[1],
  priced: (id: string | undefined) => boolean,
): Promise<void> {
  const unpublished = ['not_published', 'workflow_not_found', 'not_found'];
  const published = await deps.resolveWorkflow(caller, ref).catch((error: unknown) => {
    if (error instanceof PlatformError && unpublished.includes(error.code)) return undefined;
    throw error;
  });
  if (!published) return;
  const { view } = published;
  const models = [...new Set([view.model, ...Object.values(view.states).map((s) => s.model ?? view.model)])];
  const unpriced = models.findIndex((m) => !priced(m));
  if (unpriced < 0) return;
  throw new PlatformError(
    'spend_cap_unpriced',
    [
      `Workflow "${view.slug}" runs on model "${models[unpriced] ?? 'default'}", which has no prices in the config`,
      '(not offered, or its input and output prices are 0), so a spend cap could never be reached: give the model',
      'prices in the models section or name a priced model, publish, then set the cap.',
    ].join(' '),
    { status: 422 },
  );
}
