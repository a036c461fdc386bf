/**
 * Design chats through the AG-UI protocol: `POST /api/agents/:agent/environments/:env/design` opens or continues a
 * member's chat with the design agent on that environment's draft. Only a Maintainer (or Administrator) of the agent
 * may: anyone else, a Reader and a User included, gets the 404 of an agent they cannot see. A chat is personal: its
 * thread id (the design session's id) continues it only for the member who opened it, on the same environment. The
 * chat record is written before its session, under the session's id, so a process that stops between the two
 * leaves a chat the next run on the thread opens the session of.
 *
 * Source: issue "The design agent" § A conversation per agent environment's draft, § Front doors; spec
 * platform-service.md § AG-UI request; docs/decisions.md D21.
 */
import {
  type AgentCaller,
  type AgentDeps,
  type AgentRecord,
  type EnvironmentRecord,
  loadAgent,
  loadEnvironment,
} from '../agent/hosting.ts';
import { agentNotFound } from '../agent/agent-access.ts';
import { type AguiRunInput, lastUserText, type StartedRun } from '../connection/agui-run-model.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { designWorkflowSlug, finalStatuses } from '../session/model.ts';
import { openSessionWithTurn } from '../session/queued-turns.ts';
import { sessionsOf, type SessionStoreDeps } from '../session/session-store.ts';
import { takeReply } from '../session/sessions.ts';
import { DESIGN_ID_PREFIX } from '../session/turn-jobs.ts';
import { DESIGN_BUILD, DESIGN_STATE, type DesignChatRecord, designChatsCollection } from './design-runtime.ts';

/** What a design run needs: the stores, the hosting use cases and the design queue. */
export interface DesignRunDeps extends SessionStoreDeps {
  hosting: AgentDeps;
  /** Puts a design turn on its queue (core/session/turn-jobs.ts routes it by its id). */
  enqueueTurn(turnId: string): Promise<void>;
  /** The design agent's model (the config's designAgent.model); absent: no design agent is configured. */
  designModel?: string;
}

/** One design run as the endpoint asks for it. */
export interface DesignRunRequest {
  caller: AgentCaller;
  /** The agent's id or slug, and the environment's name, from the path. */
  agent: string;
  envName: string;
  input: AguiRunInput;
}

/** The agent and environment a Maintainer's design chat works on. */
export interface DesignTargetRecords {
  agent: AgentRecord;
  env: EnvironmentRecord;
}

/**
 * The agent and environment `agent`/`envName` when `caller` holds Maintainer or above on the agent.
 * @throws PlatformError `agent_not_found` (404) for anyone else, a lower role too: core/agent `agentNotFound`, the
 *   message every route answers, naming nothing (not the reference typed); `environment_not_found` (404)
 */
export async function designTarget(
  hosting: AgentDeps,
  caller: AgentCaller,
  ref: { agent: string; envName: string },
): Promise<DesignTargetRecords> {
  let agent: AgentRecord;
  try {
    agent = await loadAgent(hosting, caller, ref.agent, { role: 'maintainer' });
  } catch (error) {
    if (!isPlatformError(error, 'agent_role_required')) throw error;
    // The same 404 as an agent of another organization: neither the reference typed nor anything of the agent's.
    throw agentNotFound();
  }
  return { agent, env: await loadEnvironment(hosting, agent, ref.envName) };
}

/** The refusal while no design agent is configured: what to set. */
export function designAgentNotConfigured(): PlatformError {
  return new PlatformError(
    'design_agent_not_configured',
    'No design agent is configured. Set designAgent in PLATFORM_CONFIG ({provider, model, apiBaseUrl?, apiKey?, ' +
      'prices?}); with scripts/start, set CAIRN_MODEL_BASE_URL and CAIRN_MODEL (CAIRN_DESIGN_MODEL names a model of ' +
      'its own), then start again.',
    { status: 503 },
  );
}

const chatsOf = (deps: Pick<SessionStoreDeps, 'docs'>) => deps.docs.collection<DesignChatRecord>(designChatsCollection);

/**
 * Opens or continues the caller's design chat on the environment's draft and queues its turn on the design queue.
 * @throws as {@link designTarget}; `design_agent_not_configured` (503); `no_message` (400) without a user message;
 *   `turn_running` (409) while a turn of the chat runs; the queue store's refusals as the queue throws them (the
 *   per-person ceiling is the request rules', before this)
 */
export async function startDesignRun(deps: DesignRunDeps, request: DesignRunRequest): Promise<StartedRun> {
  const { agent, env } = await designTarget(deps.hosting, request.caller, request);
  if (!deps.designModel) throw designAgentNotConfigured();
  const since = deps.clock.now();
  const runId = request.input.runId || deps.ids.newId();
  const text = lastUserText(request.input);
  if (!text?.trim()) {
    throw new PlatformError(
      'no_message',
      'The run has no user message: send it as the last entry of messages, {id, role: "user", content}.',
      { status: 400 },
    );
  }
  const chat = await ownChat(deps, request.caller, { agent, env, threadId: request.input.threadId });
  const session = chat ? await sessionsOf(deps).findOne({ _id: chat._id }) : null;
  if (chat && session && !finalStatuses.includes(session.status)) {
    if (session.status === 'running') {
      throw new PlatformError('turn_running', 'The design agent is still answering; send the message once it has.', {
        status: 409,
      });
    }
    const turn = await takeReply(deps, session, text);
    return {
      threadId: chat._id,
      runId,
      session,
      turnId: turn._id,
      fromSeq: session.messageCount,
      openChildren: [],
      since,
    };
  }
  const record = chat && !session ? chat : await newChat(deps, request.caller, { agent, env });
  // The session takes the chat's id, whose design prefix its turns' ids follow (they take the design queue).
  const opened = await openSessionWithTurn(deps, sessionFields(record, agent), 'prompt', { message: text });
  return {
    threadId: record._id,
    runId,
    session: opened.session,
    turnId: opened.turn._id,
    fromSeq: 0,
    openChildren: [],
    since,
  };
}

/** The caller's chat `threadId` on this environment, or null (another's, another environment's, or none). */
async function ownChat(
  deps: Pick<SessionStoreDeps, 'docs'>,
  caller: AgentCaller,
  where: DesignTargetRecords & { threadId: string },
): Promise<DesignChatRecord | null> {
  if (!where.threadId.startsWith(DESIGN_ID_PREFIX)) return null;
  const chat = await chatsOf(deps).findOne({ _id: where.threadId });
  const own = chat?.caller.subject === caller.subject && chat.agentId === where.agent._id &&
    chat.envName === where.env.name;
  return own ? chat : null;
}

/** Writes a new chat record, before its session (a stop between the two: the next run opens the session). */
async function newChat(
  deps: SessionStoreDeps,
  caller: AgentCaller,
  { agent, env }: DesignTargetRecords,
): Promise<DesignChatRecord> {
  const id = `${DESIGN_ID_PREFIX}${deps.ids.newId()}`;
  const record: DesignChatRecord = {
    _id: id,
    schemaVersion: 1,
    sessionId: id,
    orgId: agent.orgId,
    agentId: agent._id,
    envName: env.name,
    caller: { subject: caller.subject, email: caller.email, ...(caller.name ? { name: caller.name } : {}) },
    createdAt: deps.clock.now(),
  };
  await chatsOf(deps).insertOne(record);
  return record;
}

/** The design session of `chat` (its id is the chat's). */
function sessionFields(chat: DesignChatRecord, agent: AgentRecord): Parameters<typeof openSessionWithTurn>[1] {
  return {
    _id: chat._id,
    orgId: agent.orgId,
    agentId: agent._id,
    environment: chat.envName,
    workflow: designWorkflowSlug,
    buildId: DESIGN_BUILD,
    commitId: '',
    state: DESIGN_STATE,
    variables: {},
    lockedVariables: [],
    trigger: 'design',
    depth: 0,
    inheritedForbid: [],
    startedBy: chat.caller.subject,
  };
}
