/**
 * The Chat use cases of the web app: which published chat workflows a member may start (every environment of an
 * agent on which their role holds workflows:use, i.e. User or above), each with its examples and the AG-UI
 * endpoint of the connection its chat trigger names; and the member's own chats (the threads the AG-UI endpoints
 * issued to them as a member; a chat opened by an endpoint caller (public, bearer token, OIDC subject) belongs to
 * no member and is in no member's history).
 *
 * Source: spec/platform-service.md § What the service does (chat), § Incoming connection authentication rules 1–2,
 * § Trigger declarations (chat examples); docs/endpoints.md § AG-UI (threads bound to the caller); docs/decisions.md
 * D10 § Chat.
 */
import { agentCollections, type AgentRecord, type EnvironmentRecord } from '../agent/hosting-model.ts';
import { connectionCollections, type ConnectionRecord } from './model.ts';
import { listOrganizations, orgAccess, roleAtLeast } from '../org/index.ts';
import { PlatformError } from '../ports/platform-error.ts';
import {
  type ChatHistoryItem,
  type ChatHistoryList,
  type ChatWorkflowView,
  MAX_CHAT_EXAMPLES,
} from '../session/chat-views.ts';
import { sessionCollections, type SessionRecord } from '../session/model.ts';
import type { MessageRecord } from '../session/thread-model.ts';
import { type AguiThreadRecord, aguiThreadsCollection } from './agui-threads.ts';
import { triggersNaming } from './agui-served.ts';
import { publishedEnvironment, type PublishedEnvironmentDeps } from '../session/published-environment.ts';

/** What the chat use cases read: the document store and the build cache. */
export type ChatDeps = PublishedEnvironmentDeps;

/** Largest page of `GET /api/chat/history`. */
export const MAX_CHAT_PAGE = 100;

/** The AG-UI endpoint path of an address. */
export const aguiEndpointPath = (address: string): string => `/api/agui/${address}`;

const iso = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString());

const clip = (text: string | undefined, max: number): string | undefined => {
  const flat = text?.replace(/\s+/g, ' ').trim();
  if (!flat) return undefined;
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/**
 * The chat workflows member `subject` may start: for every agent of their organizations on which their role is
 * User or above, every environment with a published build, every workflow with a chat trigger, ordered by agent
 * slug, environment (`main` first) and workflow. A workflow that cannot be chatted with now says why
 * (`unavailable`) instead of naming an endpoint.
 */
export async function chatWorkflows(deps: ChatDeps, subject: string): Promise<ChatWorkflowView[]> {
  const found: ChatWorkflowView[] = [];
  for (const org of await listOrganizations(deps, { subject })) {
    const access = await orgAccess(deps, { subject }, org._id);
    const agents = await deps.docs.collection<AgentRecord>(agentCollections.agents).find({ orgId: org._id }, {
      sort: { slug: 1 },
    });
    for (const agent of agents.filter((a) => roleAtLeast(access.agentRole(a._id), 'user'))) {
      const environments = await deps.docs.collection<EnvironmentRecord>(agentCollections.environments).find({
        agentId: agent._id,
      }, { sort: { name: 1 } });
      environments.sort((a, b) => Number(b.name === 'main') - Number(a.name === 'main'));
      for (const environment of environments.filter((e) => e.published)) {
        found.push(...await environmentChats(deps, agent, environment.name));
      }
    }
  }
  return found;
}

/** The chat workflows of one published environment. */
async function environmentChats(deps: ChatDeps, agent: AgentRecord, environment: string): Promise<ChatWorkflowView[]> {
  const published = await publishedEnvironment(deps, agent._id, environment);
  if (!published) return [];
  const workflows = Object.values(published.agent.workflows).sort((a, b) => a.slug.localeCompare(b.slug));
  const connections = await deps.docs.collection<ConnectionRecord>(connectionCollections.connections).find({
    agentId: agent._id,
    environment,
  });
  const place: ChatPlace = {
    agent,
    environment,
    published,
    byIdentifier: new Map(connections.map((c) => [c.identifier, c])),
  };
  return workflows.flatMap((w) =>
    w.triggers.filter((t) => t.type === 'chat').map((trigger) => chatView(place, w, trigger))
  );
}

/** Where a chat trigger is served: its agent, environment, published build and the environment's connections. */
interface ChatPlace {
  agent: AgentRecord;
  environment: string;
  published: NonNullable<Awaited<ReturnType<typeof publishedEnvironment>>>;
  byIdentifier: Map<string, ConnectionRecord>;
}

type PublishedWorkflow = ChatPlace['published']['agent']['workflows'][string];

/** The view of one chat trigger: its workflow's title and examples, and its endpoint or why it has none. */
function chatView(
  place: ChatPlace,
  w: PublishedWorkflow,
  trigger: PublishedWorkflow['triggers'][number],
): ChatWorkflowView {
  const { agent, environment } = place;
  const examples = (Array.isArray(trigger.fields.examples) ? trigger.fields.examples : []).filter((
    e,
  ): e is string => typeof e === 'string').slice(0, MAX_CHAT_EXAMPLES);
  const stateTitle = (w.definition.states as Record<string, { title?: string } | undefined>)[trigger.state]?.title;
  const description = clip(w.definition.instructions ?? stateTitle, 300);
  const identifier = typeof trigger.fields.connection === 'string' ? trigger.fields.connection : undefined;
  const base: ChatWorkflowView = {
    agent: { id: agent._id, slug: agent.slug, name: agent.name },
    environment,
    workflow: w.slug,
    title: w.definition.title ?? w.slug,
    ...(description ? { description } : {}),
    examples,
    ...(identifier ? { connection: identifier } : {}),
  };
  return { ...base, ...availability(place, w, identifier) };
}

/** The endpoint of a chat trigger naming connection `identifier`, or why it is unavailable and what to do. */
function availability(
  { environment, published, byIdentifier }: ChatPlace,
  w: PublishedWorkflow,
  identifier: string | undefined,
): Pick<ChatWorkflowView, 'endpoint' | 'unavailable' | 'unavailableMessage'> {
  const connection = identifier ? byIdentifier.get(identifier) : undefined;
  if (!identifier) {
    return {
      unavailable: 'no_connection',
      unavailableMessage:
        'Its chat trigger names no connection: a maintainer adds `connection: <identifier>` to the trigger and ' +
        'publishes.',
    };
  }
  if (!connection || connection.protocol !== 'agui') {
    return {
      unavailable: 'connection_missing',
      unavailableMessage: `No AG-UI connection "${identifier}" is registered in environment ${environment}: a ` +
        `maintainer registers it (cairn connection create --protocol agui).`,
    };
  }
  if (triggersNaming(published.agent, identifier).length > 1) {
    return {
      unavailable: 'connection_conflict',
      unavailableMessage:
        `Connection "${identifier}" is named by more than one trigger: a maintainer keeps one and publishes again.`,
    };
  }
  if (w.definition.disabled === true) {
    return {
      unavailable: 'workflow_disabled',
      unavailableMessage: 'The workflow is out of service (disabled) and takes no new chats.',
    };
  }
  return { endpoint: aguiEndpointPath(connection.address) };
}

/**
 * The chats of member `subject`, newest first: the threads issued to `member:<subject>`, each with its session's
 * status and last activity, its agent and its connection's endpoint. Threads whose session or connection is gone
 * are left out.
 * @param page - `offset` (≥ 0) and `limit` (1 to {@link MAX_CHAT_PAGE})
 */
export async function chatHistory(
  deps: Pick<ChatDeps, 'docs'>,
  subject: string,
  page: { offset: number; limit: number },
): Promise<ChatHistoryList> {
  const threads = await deps.docs.collection<AguiThreadRecord>(aguiThreadsCollection).find({
    owner: `member:${subject}`,
  }, { sort: { createdAt: -1, _id: 1 }, skip: page.offset, limit: page.limit + 1 });
  return { chats: await historyItems(deps, threads.slice(0, page.limit)), hasMore: threads.length > page.limit };
}

/**
 * One chat of member `subject` by its thread id.
 * @throws PlatformError `chat_not_found` (404) when no thread of that id was issued to them as a member
 */
export async function chatOf(
  deps: Pick<ChatDeps, 'docs'>,
  subject: string,
  threadId: string,
): Promise<ChatHistoryItem> {
  const thread = await deps.docs.collection<AguiThreadRecord>(aguiThreadsCollection).findOne({
    _id: threadId,
    owner: `member:${subject}`,
  });
  const [item] = thread ? await historyItems(deps, [thread]) : [];
  if (!item) {
    throw new PlatformError(
      'chat_not_found',
      'No chat of yours has this thread id; GET /api/chat/history lists your chats.',
      { status: 404 },
    );
  }
  return item;
}

/** History items of `shown`, in order; threads whose session, connection or agent is gone are left out. */
async function historyItems(deps: Pick<ChatDeps, 'docs'>, shown: AguiThreadRecord[]): Promise<ChatHistoryItem[]> {
  const sessions = new Map(
    (await deps.docs.collection<SessionRecord>(sessionCollections.sessions).find({
      _id: { $in: shown.map((t) => t.sessionId) },
    })).map((s) => [s._id, s]),
  );
  const connections = new Map(
    (await deps.docs.collection<ConnectionRecord>(connectionCollections.connections).find({
      _id: { $in: [...new Set(shown.map((t) => t.connectionId))] },
    })).map((c) => [c._id, c]),
  );
  const agents = new Map(
    (await deps.docs.collection<AgentRecord>(agentCollections.agents).find({
      _id: { $in: [...new Set([...sessions.values()].map((s) => s.agentId))] },
    })).map((a) => [a._id, a]),
  );
  const chats: ChatHistoryItem[] = [];
  for (const thread of shown) {
    const session = sessions.get(thread.sessionId);
    const connection = connections.get(thread.connectionId);
    const agent = session ? agents.get(session.agentId) : undefined;
    if (!session || !connection || !agent) continue;
    const opening = await deps.docs.collection<MessageRecord>(sessionCollections.messages).find({
      sessionId: session._id,
      seq: { $lt: 4 },
    }, { sort: { seq: 1 } });
    const first = opening.map((m) => m.message).find((m) => m.role === 'user');
    const firstMessage = clip(
      first?.role === 'user' && typeof first.content === 'string' ? first.content : undefined,
      200,
    );
    chats.push({
      threadId: thread._id,
      sessionId: session._id,
      agent: { id: agent._id, slug: agent.slug, name: agent.name },
      environment: session.environment,
      workflow: session.workflow,
      connection: connection.identifier,
      endpoint: aguiEndpointPath(connection.address),
      status: session.status,
      ...(firstMessage ? { firstMessage } : {}),
      startedAt: iso(thread.createdAt),
      lastActivityAt: iso(session.updatedAt),
    });
  }
  return chats;
}
