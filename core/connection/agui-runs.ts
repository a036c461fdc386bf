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
 * § Session facts named (endpoint sessions), § Errors (409); docs/decisions.md D8 § Endpoints (AG-UI), D24 § 3.
 */
import type { AdmittedCaller, ConnectionRecord } from './index.ts';
import { finalStatuses, type SessionRecord } from '../session/model.ts';
import { sessionsOf } from '../session/session-store.ts';
import { countEndpointCall } from './endpoint-calls.ts';
import { continueChat, openChildrenOf } from './agui-continue.ts';
import { type AguiRun, type AguiRunInput, ignoredNote, type StartedRun } from './agui-run-model.ts';
import type { ServedChat } from './agui-served.ts';
import { type AguiThreadRecord, issuedThread, needsThreadSecret, threadSecretOf } from './agui-threads.ts';
import { type AguiRunDeps, freshChat, runBase, type RunStart } from './agui-fresh-chat.ts';

export type { AguiRunDeps } from './agui-fresh-chat.ts';

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
 * and its session has not ended (its turn queued before the stream starts: the compare-and-set that queues it is
 * what decides its 409s), else a fresh chat on a new thread id, whose refusals are decided first and whose writes
 * go after RUN_STARTED (./agui-fresh-chat.ts, docs/decisions.md D24 § 3).
 * @throws PlatformError `turn_running` (409) while a turn of the chat runs; `decision_pending` (409) for a message
 *   while a decision is pending (answer it with a resume entry); `invalid_decision` (400); `no_message` (400)
 *   without a user message; `workflow_disabled` (409); `spend_cap_reached` (429); `session_busy` (409) when the
 *   chat trigger's session key names a chat whose turn runs or that waits for a decision; `rate_limited` (429)
 */
export async function startAguiRun(
  deps: AguiRunDeps,
  connection: ConnectionRecord,
  caller: AdmittedCaller,
  { served, input }: AguiRunRequest,
): Promise<AguiRun> {
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
  return freshChat(start);
}

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
