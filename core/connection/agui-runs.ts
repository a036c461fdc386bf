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
import type { TriggerDeclaration } from '../agent/trigger-model.ts';
import type { AdmittedCaller, ConnectionRecord } from './index.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { openFiredSession } from '../session/session-opening.ts';
import { finalStatuses, type SessionRecord, sessionSchemaVersion } from '../session/model.ts';
import { sessionsOf, type SessionStoreDeps } from '../session/session-store.ts';
import { sendChatMessage } from '../session/chat-queue.ts';
import { multitaskOf, type MultitaskStrategy } from '../agent/multitask.ts';
import { answerOf, repeatedResume, resumeDecision, type ResumedTurn } from './agui-decisions.ts';
import { checkSpendCaps } from '../session/spend.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import { type PublishedEnvironment, publishedEnvironment } from '../session/published-environment.ts';

/** Collection of the thread ids the AG-UI endpoints issued. */
export const aguiThreadsCollection = 'agui_threads';

/** A thread id issued to one caller of one connection (collection `agui_threads`, `_id` = the thread id). */
export interface AguiThreadRecord {
  _id: string;
  schemaVersion: typeof sessionSchemaVersion;
  connectionId: string;
  /** Who it was issued to ({@link threadOwner}). */
  owner: string;
  sessionId: string;
  /**
   * SHA-256 (hex) of the thread secret issued with it to a caller without a subject of their own (public or
   * bearer-token callers): a later run continues the thread only with that secret. Absent for members and OIDC
   * subjects (bound to their subject).
   */
  secretHash?: string;
  createdAt: Date;
}

/** What a run needs. */
export interface AguiRunDeps extends SessionStoreDeps {
  enqueueTurn(turnId: string): Promise<void>;
  builds: ReturnType<typeof publishedWorkflows>;
}

/** The fields of a RunAgentInput the platform reads (validated by the route). */
export interface AguiRunInput {
  threadId: string;
  runId: string;
  messages: { id?: string; role: string; content?: unknown }[];
  tools: unknown[];
  context: unknown[];
  resume?: { interruptId: string; status: 'resolved' | 'cancelled'; payload?: unknown }[];
  /** Props the client forwards; the platform reads `threadSecret` (a string) from it ({@link threadSecretOf}). */
  forwardedProps?: unknown;
}

/** The chat trigger a connection serves, on the environment's published build. */
export interface ServedChat {
  orgId: string;
  buildId: string;
  commitId: string;
  workflow: string;
  trigger: { id: string; state: string };
  disabled: boolean;
  /** The chat trigger's session key expression, if it declares one (docs/agent-format.md § Triggers: chat `session`).
   */
  sessionKey?: string;
  /** What a message does while a turn of the chat runs (the trigger's `multitask`; docs/decisions.md D27 § 1). */
  multitask: MultitaskStrategy;
}

/** A started run: the thread to send next, the session, the turn to follow, and where its messages begin. */
export interface StartedRun {
  threadId: string;
  /**
   * The thread's secret, for a caller without a subject of their own (streamed after RUN_STARTED;
   * {@link threadOwner}).
   */
  threadSecret?: string;
  runId: string;
  session: SessionRecord;
  turnId: string;
  /** Sequence number of the first message of the root thread this run produced (earlier ones are not replayed). */
  fromSeq: number;
  /**
   * Set when the run's message waits behind a running turn (the chat's `multitask`, D27 § 1): its place (1 = next),
   * and `fromSeq` is found once its turn starts.
   */
  queued?: number;
  /** Child sessions that had not ended when the run started, with their message counts then. */
  openChildren: { sessionId: string; fromSeq: number }[];
  /** A note for the stream when the caller sent tools or context (they are not honoured). */
  ignored?: string;
  /** When the run began (before its turn was queued): child sessions opened since are this run's. */
  since: Date;
  /**
   * The write of a fresh chat's thread record, still in flight when the run is returned: RUN_STARTED (whose thread
   * id is issued before) need not wait for it; the stream waits for it before the run's last event, so the thread
   * can be continued once the run ends. Rejects with the store's error.
   */
  recorded?: Promise<void>;
}

/**
 * The chat and webhook triggers of a published build that name connection `identifier`, with their workflow:
 * one serves it; two or more are a deployment error (an AG-UI or webhook connection serves one trigger).
 */
export function triggersNaming(
  agent: PublishedEnvironment['agent'],
  identifier: string,
): { workflow: string; trigger: TriggerDeclaration; disabled: boolean }[] {
  return Object.values(agent.workflows).flatMap((w) =>
    w.triggers
      .filter((t) => (t.type === 'chat' || t.type === 'webhook') && t.fields.connection === identifier)
      .map((t) => ({ workflow: w.slug, trigger: t, disabled: w.definition.disabled === true }))
  );
}

/**
 * The chat trigger connection `connection` serves: the one chat trigger of the environment's published build that
 * names it. @returns undefined when none does (nothing is served: 404)
 * @throws PlatformError `deployment_error` (503) when two or more triggers name it, naming the connection and the
 * workflows
 */
export async function servedChat(deps: AguiRunDeps, connection: ConnectionRecord): Promise<ServedChat | undefined> {
  const published = await publishedEnvironment(deps, connection.agentId, connection.environment);
  if (!published) return undefined;
  const { env, agent } = published;
  const naming = triggersNaming(agent, connection.identifier);
  if (naming.length > 1) {
    const named = naming.map((n) => `${n.workflow} (trigger ${n.trigger.id})`).join(', ');
    throw new PlatformError(
      'deployment_error',
      `Connection "${connection.identifier}" is named by more than one trigger: ${named}. An AG-UI connection ` +
        `serves one chat trigger; remove all but one and publish again.`,
      { status: 503 },
    );
  }
  const chat = naming.find((n) => n.trigger.type === 'chat');
  if (!chat) return undefined;
  const sessionKey = typeof chat.trigger.fields.session === 'string' ? chat.trigger.fields.session : undefined;
  return {
    orgId: env.orgId,
    buildId: env.published.buildId,
    commitId: env.published.commitId,
    workflow: chat.workflow,
    trigger: { id: chat.trigger.id, state: chat.trigger.state },
    disabled: chat.disabled,
    ...(sessionKey ? { sessionKey } : {}),
    multitask: multitaskOf(chat.trigger.fields),
  };
}

/**
 * Whom a thread id is issued to: a member or an OIDC subject by subject; a bearer-token or public caller, who has no
 * subject of their own, by the connection and a thread secret issued with the thread ({@link needsThreadSecret}).
 */
export function threadOwner(caller: AdmittedCaller): string {
  if (caller.kind === 'member' || caller.kind === 'oidc') return `${caller.kind}:${caller.subject ?? ''}`;
  return caller.kind;
}

/** True for a caller whose threads are bound to a thread secret (public and bearer-token callers: no subject). */
export function needsThreadSecret(caller: AdmittedCaller): boolean {
  return caller.kind === 'public' || caller.kind === 'token';
}

/** The thread secret a run sends back: `forwardedProps.threadSecret` when it is a string of at most 200 characters. */
export function threadSecretOf(input: Pick<AguiRunInput, 'forwardedProps'>): string | undefined {
  const props = input.forwardedProps;
  const secret = props && typeof props === 'object' ? (props as { threadSecret?: unknown }).threadSecret : undefined;
  return typeof secret === 'string' && secret.length > 0 && secret.length <= 200 ? secret : undefined;
}

/** A fresh thread secret (32 random bytes, base64url) and its SHA-256 hex, which alone is stored. */
async function newThreadSecret(ids: AguiRunDeps['ids']): Promise<{ secret: string; hash: string }> {
  const base64 = btoa(String.fromCharCode(...ids.randomBytes(32)));
  const secret = base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return { secret, hash: await ids.sha256Hex(secret) };
}

/**
 * The thread `input.threadId` names when it was issued to this caller on this connection (and, for a caller without
 * a subject, the run sends its secret); null otherwise: a value not issued to this caller opens a fresh chat
 * (spec § AG-UI request rule 1), so holding someone else's thread id continues nothing.
 */
async function issuedThread(
  deps: AguiRunDeps,
  connection: ConnectionRecord,
  caller: AdmittedCaller,
  input: AguiRunInput,
): Promise<AguiThreadRecord | null> {
  if (!input.threadId) return null;
  const owner = threadOwner(caller);
  const thread = await threads(deps).findOne({ _id: input.threadId, connectionId: connection._id, owner });
  if (!thread || !needsThreadSecret(caller)) return thread;
  const sent = threadSecretOf(input);
  if (!thread.secretHash || sent === undefined) return null;
  return (await deps.ids.sha256Hex(sent)) === thread.secretHash ? thread : null;
}

/** The text of the last user message of the input (history is not replayed: earlier ones are ignored). */
export function lastUserText(input: Pick<AguiRunInput, 'messages'>): string | undefined {
  const message = [...input.messages].reverse().find((m) => m.role === 'user');
  if (!message) return undefined;
  if (typeof message.content === 'string') return message.content;
  if (Array.isArray(message.content)) {
    const text = message.content.filter((p): p is { type: 'text'; text: string } =>
      p?.type === 'text' && typeof p.text === 'string'
    ).map((p) => p.text).join('\n');
    return text.length > 0 ? text : undefined;
  }
  return undefined;
}

const threads = (deps: Pick<SessionStoreDeps, 'docs'>) => deps.docs.collection<AguiThreadRecord>(aguiThreadsCollection);

const conflict = (code: string, message: string) => new PlatformError(code, message, { status: 409 });

/** What {@link startAguiRun} runs: the served chat, the run input and the hook before a turn is queued. */
export interface AguiRunRequest {
  /** The chat trigger the connection serves, on the environment's published build. */
  served: ServedChat;
  /** The run's input (validated by the route). */
  input: AguiRunInput;
  /**
   * Runs once the run would start a turn, just before it is queued (the endpoint's rate count; what it throws is
   * thrown).
   */
  beforeTurn: () => Promise<void>;
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
  { served, input, beforeTurn }: AguiRunRequest,
): Promise<StartedRun> {
  const since = deps.clock.now();
  const owner = threadOwner(caller);
  const thread = await issuedThread(deps, connection, caller, input);
  const session = thread ? await sessionsOf(deps).findOne({ _id: thread.sessionId }) : null;
  const ignored = ignoredNote(input);
  const runId = input.runId || deps.ids.newId();
  if (thread && session && !finalStatuses.includes(session.status)) {
    const openChildren = await openChildrenOf(deps, session._id);
    const { turnId, fromSeq, queued } = await continueChat(deps, session, caller, { input, beforeTurn, served });
    const sent = needsThreadSecret(caller) ? threadSecretOf(input) : undefined;
    return {
      threadId: thread._id,
      ...(sent ? { threadSecret: sent } : {}),
      runId,
      session,
      turnId,
      fromSeq: fromSeq ?? session.messageCount,
      ...(queued ? { queued } : {}),
      openChildren,
      since,
      ...(ignored ? { ignored } : {}),
    };
  }
  const text = lastUserText(input);
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
  const scope = {
    orgId: served.orgId,
    agentId: connection.agentId,
    environment: connection.environment,
    workflow: served.workflow,
  };
  await checkSpendCaps(deps, scope);
  await beforeTurn();
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
  const opened = await openFiredSession(deps, target, firing);
  const threadId = deps.ids.newId();
  const secret = needsThreadSecret(caller) ? await newThreadSecret(deps.ids) : undefined;
  // Written while RUN_STARTED streams (the stream waits for it before the run's end, spec § AG-UI request rule 1):
  // started right after the turn is queued, it would otherwise wait behind the dispatcher's first writes of the turn.
  const recorded = threads(deps).insertOne({
    _id: threadId,
    schemaVersion: sessionSchemaVersion,
    connectionId: connection._id,
    owner,
    sessionId: opened.session._id,
    ...(secret ? { secretHash: secret.hash } : {}),
    createdAt: deps.clock.now(),
  });
  recorded.catch(() => undefined); // observed by the stream (streamRun); a run whose stream is gone drops it
  const joined = opened.outcome === 'delivered';
  const openChildren = joined ? await openChildrenOf(deps, opened.session._id) : [];
  return {
    threadId,
    ...(secret ? { threadSecret: secret.secret } : {}),
    runId,
    session: opened.session,
    turnId: opened.turnId,
    fromSeq: joined ? opened.session.messageCount : 0,
    openChildren,
    since,
    recorded,
    ...(ignored ? { ignored } : {}),
  };
}

/** Child sessions of root `rootId` that have not ended, with their message counts now. */
async function openChildrenOf(
  deps: Pick<SessionStoreDeps, 'docs'>,
  rootId: string,
): Promise<StartedRun['openChildren']> {
  return (await sessionsOf(deps).find({ rootId })).filter((c) => !finalStatuses.includes(c.status)).map((c) => ({
    sessionId: c._id,
    fromSeq: c.messageCount,
  }));
}

/** The run input {@link continueChat} continues the chat with, and the hook before its turn is queued. */
interface ChatContinuation {
  /** The run's input: a resume entry answers the pending decision, else its last user message is the reply. */
  input: AguiRunInput;
  /** Runs just before the turn is queued (as {@link AguiRunRequest.beforeTurn}). */
  beforeTurn: () => Promise<void>;
  /** The chat served: its `multitask` says what a message does while a turn runs. */
  served: Pick<ServedChat, 'multitask'>;
}

/**
 * Queues the turn that continues a chat: a decision from a resume entry, or a reply. A resume entry repeating an
 * answer already taken gets that answer's turn (docs/decisions.md D26 § 2). @returns the turn and where its messages
 * begin (absent: the session's message count)
 */
async function continueChat(
  deps: AguiRunDeps,
  session: SessionRecord,
  caller: AdmittedCaller,
  { input, beforeTurn, served }: ChatContinuation,
): Promise<ResumedTurn & { queued?: number }> {
  const repeated = await repeatedResume(deps, session, input.resume);
  if (repeated) return repeated;
  const pending = session.pending;
  const resume = pending ? input.resume?.find((r) => r.interruptId === pending.id) : undefined;
  if (session.status === 'awaiting_decision' && pending?.kind === 'decision') {
    if (!resume) {
      throw conflict(
        'decision_pending',
        `This chat waits for a decision; answer interrupt ${pending.id} with a ` +
          `resume entry {interruptId, status: "resolved", payload: {to, comment?, fields?}} where to is one of: ` +
          `${pending.options.map((o) => o.to).join(', ')}.`,
      );
    }
    if (resume.status === 'cancelled') {
      throw conflict('decision_pending', 'A pending decision cannot be abandoned here; decide one of the options.');
    }
    answerOf(resume, pending.options.map((o) => o.to));
    await beforeTurn();
    const by = caller.subject ? `${caller.kind}:${caller.subject}` : `agui:${caller.kind}`;
    return { turnId: await resumeDecision(deps, session, resume, by) };
  }
  const resumed =
    resume?.status === 'resolved' && typeof (resume.payload as { message?: unknown } | undefined)?.message === 'string'
      ? (resume.payload as { message: string }).message
      : undefined;
  const text = resumed ?? lastUserText(input);
  if (!text?.trim()) {
    throw new PlatformError(
      'no_message',
      'The run has no user message: send the reply as the last entry of messages, {id, role: "user", content}.',
      { status: 400 },
    );
  }
  if (session.status === 'running' && served.multitask === 'reject') {
    throw conflict('turn_running', 'A turn of this chat is still running; send the message once its run has finished.');
  }
  await beforeTurn();
  // A reply, or a message queued behind the running turn as the trigger's multitask says (D27 § 1).
  const sent = await sendChatMessage(deps, session._id, { text, multitask: served.multitask });
  return { turnId: sent.turnId, ...(sent.position ? { queued: sent.position } : {}) };
}

/** What the stream says when the caller sent tools or context (rule 5). */
function ignoredNote(input: AguiRunInput): string | undefined {
  const parts = [
    input.tools.length > 0 ? `${input.tools.length} client tool(s)` : '',
    input.context.length > 0 ? `${input.context.length} context entr${input.context.length === 1 ? 'y' : 'ies'}` : '',
  ].filter(Boolean);
  return parts.length > 0
    ? `This endpoint does not honour client-supplied tools or context: ${
      parts.join(' and ')
    } were ignored. The workflow uses only its own tools.`
    : undefined;
}
