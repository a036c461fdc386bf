/**
 * Runs of the AG-UI endpoint of an incoming connection: which chat trigger the connection serves on the
 * environment's current published build, the thread ids the platform issues (each bound to the connection and to
 * the caller it was issued to: a member or OIDC subject by subject, a public or bearer-token caller by a thread
 * secret issued with the thread and sent back in `forwardedProps.threadSecret`), and the start of one
 * run: a fresh chat opens a session at the chat trigger's state;
 * a message on a thread continues its session where the previous turn left off (a reply; history is not
 * replayed); a resume entry answers the pending decision (or wait). A message while a turn runs or a decision is
 * pending is refused with 409 and changes nothing. A chat a member starts with their own sign-in is theirs
 * (`startedBy`); chats of endpoint callers belong to no member.
 *
 * Source: spec/platform-service.md § AG-UI request (rules 1, 2, 4, 5), § Tool-call result status (AG-UI rows),
 * § Session facts named (endpoint sessions), § Errors (409); docs/decisions.md D8 § Endpoints (AG-UI).
 */
import { sessionKeyOf } from '../agent/session-key-expression.ts';
import type { AdmittedCaller, ConnectionRecord } from './index.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { openFiredSession } from '../session/session-opening.ts';
import { finalStatuses, type SessionRecord, sessionSchemaVersion } from '../session/model.ts';
import { sessionsOf, type SessionStoreDeps } from '../session/session-store.ts';
import { countEndpointCall, type EndpointRateDeps } from './endpoint-calls.ts';
import { continueChat, openChildrenOf } from './agui-continue.ts';
import { type AguiRunInput, ignoredNote, lastUserText, type StartedRun } from './agui-run-model.ts';
import { checkSpendCaps } from '../session/spend.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import type { ServedChat } from './agui-served.ts';
import {
  type AguiThreadRecord,
  issuedThread,
  needsThreadSecret,
  newThreadSecret,
  threadOwner,
  threadSecretOf,
  threadsOf,
} from './agui-threads.ts';

/** What a run needs. */
export interface AguiRunDeps extends SessionStoreDeps, EndpointRateDeps {
  enqueueTurn(turnId: string): Promise<void>;
  builds: ReturnType<typeof publishedWorkflows>;
}

const conflict = (code: string, message: string) => new PlatformError(code, message, { status: 409 });

/**
 * What {@link startAguiRun} runs: the served chat and the run input. The run counts against the endpoint's calls per
 * minute once it would start a turn, just before the turn is queued (./endpoint-calls.ts).
 */
export interface AguiRunRequest {
  /** The chat trigger the connection serves, on the environment's published build. */
  served: ServedChat;
  /** The run's input (validated by the route). */
  input: AguiRunInput;
}

/**
 * Starts one run: continues the caller's thread when `input.threadId` was issued to this caller on this connection
 * and its session has not ended, else opens a fresh chat (a new thread id).
 * @throws PlatformError `turn_running` (409) while a turn of the chat runs; `decision_pending` (409) for a message
 *   while a decision is pending (answer it with a resume entry); `invalid_decision` (400); `no_message` (400)
 *   without a user message; `workflow_disabled` (409); `spend_cap_reached` (429); `session_busy` (409) when the
 *   chat trigger's session key names a chat whose turn runs or that waits for a decision
 */
export async function startAguiRun(
  deps: AguiRunDeps,
  connection: ConnectionRecord,
  caller: AdmittedCaller,
  { served, input }: AguiRunRequest,
): Promise<StartedRun> {
  const start: RunStart = {
    deps,
    connection,
    caller,
    served,
    input,
    since: deps.clock.now(),
    runId: input.runId || deps.ids.newId(),
    ignored: ignoredNote(input),
  };
  const thread = await issuedThread(deps, connection, caller, input);
  const session = thread ? await sessionsOf(deps).findOne({ _id: thread.sessionId }) : null;
  if (thread && session && !finalStatuses.includes(session.status)) return continueThread(start, thread, session);
  return openChat(start);
}

/** One run's start: what it was given, when it began, its run id and its note on ignored client tools. */
interface RunStart extends AguiRunRequest {
  deps: AguiRunDeps;
  connection: ConnectionRecord;
  caller: AdmittedCaller;
  since: Date;
  runId: string;
  ignored?: string;
}

/** The run's fields every start shares (the thread's are added by each). */
const runBase = ({ runId, since, ignored }: RunStart) => ({ runId, since, ...(ignored ? { ignored } : {}) });

/** Continues the caller's thread: a decision from a resume entry, or a message (a reply, or queued). */
async function continueThread(start: RunStart, thread: AguiThreadRecord, session: SessionRecord): Promise<StartedRun> {
  const { deps, connection, caller, input, served } = start;
  const openChildren = await openChildrenOf(deps, session._id);
  const beforeTurn = () => countEndpointCall(deps, connection, caller.rateKey);
  const { turnId, fromSeq, queued } = await continueChat(deps, session, caller, { input, beforeTurn, served });
  const sent = needsThreadSecret(caller) ? threadSecretOf(input) : undefined;
  return {
    ...runBase(start),
    threadId: thread._id,
    ...(sent ? { threadSecret: sent } : {}),
    session,
    turnId,
    fromSeq: fromSeq ?? session.messageCount,
    ...(queued ? { queued } : {}),
    openChildren,
  };
}

/** Opens a fresh chat at the chat trigger's state (or joins the open chat of its session key), on a new thread. */
async function openChat(start: RunStart): Promise<StartedRun> {
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
  await checkSpendCaps(deps, target);
  await countEndpointCall(deps, connection, caller.rateKey);
  const opened = await openFiredSession(deps, target, firing);
  const { threadId, secret, recorded } = await recordThread(start, opened.session._id);
  const joined = opened.outcome === 'delivered';
  return {
    ...runBase(start),
    threadId,
    ...(secret ? { threadSecret: secret } : {}),
    session: opened.session,
    turnId: opened.turnId,
    fromSeq: joined ? opened.session.messageCount : 0,
    openChildren: joined ? await openChildrenOf(deps, opened.session._id) : [],
    recorded,
  };
}

/** The session a fresh chat opens on, and its firing (the caller, the message, a session key, the member's own). */
function chatFiring({ connection, caller, served }: RunStart, text: string) {
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

/**
 * Issues a new thread id for the caller (with a thread secret for a caller without a subject) and starts writing
 * its record. @returns the id, the secret and the write in flight
 */
async function recordThread({ deps, connection, caller }: RunStart, sessionId: string) {
  const threadId = deps.ids.newId();
  const secret = needsThreadSecret(caller) ? await newThreadSecret(deps.ids) : undefined;
  // Written while RUN_STARTED streams (the stream waits for it before the run's end, spec § AG-UI request rule 1):
  // started right after the turn is queued, it would otherwise wait behind the dispatcher's first writes of the turn.
  const recorded = threadsOf(deps).insertOne({
    _id: threadId,
    schemaVersion: sessionSchemaVersion,
    connectionId: connection._id,
    owner: threadOwner(caller),
    sessionId,
    ...(secret ? { secretHash: secret.hash } : {}),
    createdAt: deps.clock.now(),
  });
  recorded.catch(() => undefined); // observed by the stream (streamRun); a run whose stream is gone drops it
  return { threadId, secret: secret?.secret, recorded };
}
