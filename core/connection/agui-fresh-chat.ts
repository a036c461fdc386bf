/**
 * A fresh AG-UI chat (no thread issued to the caller, or its session ended): every refusal is decided before the
 * stream starts, by reads alone and the endpoint's rate (400 without a user message or with a bad session key, 409
 * for a disabled workflow or a keyed chat that is busy, 429 over a spend cap or a rate), so each stays an HTTP
 * status; then RUN_STARTED streams with the thread id the platform chose, and only then are the writes made: the
 * session opened with its first turn queued (core/session/session-opening.ts), then the thread record, whose write
 * the stream waits for before the run's last event. A write that fails after RUN_STARTED ends the stream with
 * RUN_ERROR carrying the code and message the HTTP status would have had (./agui-stream.ts); what it leaves is
 * undone by the opening (a refused queue add removes the turn and the session, a taken key claim is dropped) or
 * finished by the turn sweep (a session whose turn was not inserted); no thread record names a session not opened.
 *
 * Source: spec/platform-service.md § AG-UI request (rules 1, 2), § Errors; docs/decisions.md D8 § Endpoints (AG-UI),
 * D24 § 3.
 */
import { sessionKeyOf } from '../agent/session-key-expression.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { sessionSchemaVersion } from '../session/model.ts';
import { checkSessionKey } from '../session/session-key-claims.ts';
import { keyedFiringBusy, openFiredSession } from '../session/session-opening.ts';
import { checkSpendCaps } from '../session/spend.ts';
import type { Firing, FiringTarget } from '../session/firing-model.ts';
import { openChildrenOf } from './agui-continue.ts';
import type { AguiRunInput, OpeningRun, StartedRun } from './agui-run-model.ts';
import { lastUserText } from './agui-run-model.ts';
import type { ServedChat } from './agui-served.ts';
import { needsThreadSecret, newThreadSecret, threadOwner, threadsOf } from './agui-threads.ts';
import { countEndpointCall } from './endpoint-calls.ts';
import type { AdmittedCaller, ConnectionRecord } from './index.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import type { EndpointRateDeps } from './endpoint-calls.ts';

/** What a run needs. */
export interface AguiRunDeps extends SessionStoreDeps, EndpointRateDeps {
  enqueueTurn(turnId: string): Promise<void>;
  builds: ReturnType<typeof publishedWorkflows>;
}

/** One run's start: what it was given, when it began, its run id and its note on ignored client tools. */
export interface RunStart {
  deps: AguiRunDeps;
  connection: ConnectionRecord;
  caller: AdmittedCaller;
  served: ServedChat;
  input: AguiRunInput;
  since: Date;
  runId: string;
  ignored?: string;
}

/** The run's fields every start shares (the thread's are added by each). */
export const runBase = ({ runId, since, ignored }: RunStart) => ({ runId, since, ...(ignored ? { ignored } : {}) });

const conflict = (code: string, message: string) => new PlatformError(code, message, { status: 409 });

/**
 * Decides a fresh chat's refusals and counts it against the endpoint's calls per minute, writing nothing else.
 * @returns the run, whose `open` makes its writes once RUN_STARTED is out
 * @throws PlatformError `no_message` (400), `invalid_session_key` (400), `workflow_disabled` (409), `session_busy`
 *   (409) when the chat trigger's session key names a chat someone else holds, whose turn runs or that waits for a
 *   decision, `spend_cap_reached` (429), `rate_limited` (429)
 */
export async function freshChat(start: RunStart): Promise<OpeningRun> {
  const { deps, connection, caller, served } = start;
  const text = lastUserText(start.input);
  if (!text?.trim()) {
    throw new PlatformError(
      'no_message',
      'The run has no user message: send the message to the chat as the last entry of messages, {id, role: "user", ' +
        'content}.',
      { status: 400 },
    );
  }
  if (served.disabled) {
    throw conflict(
      'workflow_disabled',
      `Workflow "${served.workflow}" is out of service (disabled): it takes no new chats. Try again once a ` +
        `maintainer enables it.`,
    );
  }
  const { target, firing } = chatFiring(start, text);
  if (firing.sessionKey !== undefined) checkSessionKey(firing.sessionKey);
  const busy = await keyedFiringBusy(deps, target, firing);
  if (busy) throw busy;
  await checkSpendCaps(deps, target);
  await countEndpointCall(deps, connection, caller.rateKey);
  const threadId = deps.ids.newId();
  const secret = needsThreadSecret(caller) ? await newThreadSecret(deps.ids) : undefined;
  const opening = { start, target, firing, threadId, ...(secret ? { secretHash: secret.hash } : {}) };
  return {
    ...runBase(start),
    threadId,
    ...(secret ? { threadSecret: secret.secret } : {}),
    open: () => openChat(opening),
  };
}

/** What {@link openChat} writes: the firing that opens the session, and the thread issued for it. */
interface ChatOpening {
  start: RunStart;
  target: FiringTarget;
  firing: Firing;
  threadId: string;
  /** SHA-256 of the thread secret issued with it (a caller without a subject). */
  secretHash?: string;
}

/** Opens the chat at the chat trigger's state (or joins the open chat of its session key), then records the thread. */
async function openChat({ start, target, firing, threadId, secretHash }: ChatOpening): Promise<StartedRun> {
  const { deps, connection, caller } = start;
  const opened = await openFiredSession(deps, target, firing);
  // Written while the stream follows the turn (the stream waits for it before the run's end, spec § AG-UI request
  // rule 1), after the session it names exists: a thread record never names a session that was not opened.
  const recorded = threadsOf(deps).insertOne({
    _id: threadId,
    schemaVersion: sessionSchemaVersion,
    connectionId: connection._id,
    owner: threadOwner(caller),
    sessionId: opened.session._id,
    ...(secretHash ? { secretHash } : {}),
    createdAt: deps.clock.now(),
  });
  recorded.catch(() => undefined); // observed by the stream (streamRun); a run whose stream is gone drops it
  const joined = opened.outcome === 'delivered';
  return {
    ...runBase(start),
    threadId,
    session: opened.session,
    turnId: opened.turnId,
    fromSeq: joined ? opened.session.messageCount : 0,
    openChildren: joined ? await openChildrenOf(deps, opened.session._id) : [],
    recorded,
  };
}

/** The session a fresh chat opens on, and its firing (the caller, the message, a session key, the member's own). */
function chatFiring({ connection, caller, served }: RunStart, text: string): { target: FiringTarget; firing: Firing } {
  const scope = {
    orgId: served.orgId,
    agentId: connection.agentId,
    environment: connection.environment,
    workflow: served.workflow,
  };
  const payload = {
    connection: connection.identifier,
    caller: caller.kind,
    ...(caller.subject ? { subject: caller.subject } : {}),
  };
  // A chat trigger's session key (e.g. one chat per OIDC subject) sends a fresh thread to the open chat of that key.
  const sessionKey = sessionKeyOf(served.sessionKey, { id: served.trigger.id, type: 'chat', ...payload });
  // A chat a member starts with their own sign-in is theirs (startedBy); an endpoint caller's belongs to no member.
  const startedBy = caller.kind === 'member' && caller.subject ? caller.subject : undefined;
  const firing = { payload, message: text, ...(sessionKey ? { sessionKey } : {}), ...(startedBy ? { startedBy } : {}) };
  const trigger = { id: served.trigger.id, type: 'chat' };
  const target = { ...scope, buildId: served.buildId, commitId: served.commitId, state: served.trigger.state, trigger };
  return { target, firing };
}
