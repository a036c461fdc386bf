/**
 * The Chat routes over memory stores and real organizations (core/org): `GET /api/chat/workflows` lists the chat
 * workflows of the agents the caller holds workflows:use on (User or above; a Reader gets none), with at most 6
 * examples and the AG-UI endpoint path, or why one cannot be chatted with; `GET /api/chat/history` lists the
 * caller's own chats only (threads issued to them as a member), newest first and paged; a chat opened by an
 * endpoint caller (public) is in no member's history.
 */
import { describe, expect, it } from 'vitest';
import { agentCollections } from '../../core/agent/hosting-model.ts';
import type { PublishedAgent, PublishedWorkflow } from '../../core/agent/hosting.ts';
import { aguiThreadsCollection } from '../../core/connection/agui-threads.ts';
import { connectionCollections } from '../../core/connection/model.ts';
import { addMember, builtinGroupId, createGroup, createOrganization } from '../../core/org/index.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { ChatHistoryItem, ChatHistoryList, ChatWorkflowList } from '../../core/session/chat-views.ts';
import { sessionCollections } from '../../core/session/model.ts';
import { insertSession, sessionsOf } from '../../core/session/session-store.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { chatRoutes } from './chat-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };

const workflow = (slug: string, triggers: PublishedWorkflow['triggers'], extra: Record<string, unknown> = {}): PublishedWorkflow => ({
  slug, hooks: {}, triggers,
  definition: { title: `Title of ${slug}`, instructions: `Instructions of ${slug}.`, states: { ask: { title: 'Ask' }, done: {} }, ...extra } as unknown as PublishedWorkflow['definition'],
});
const chat = (workflowSlug: string, fields: Record<string, unknown>) => ({ id: 'chat', type: 'chat' as const, workflow: workflowSlug, state: 'ask', fields });

async function world() {
  let now = new Date('2026-11-20T10:00:00Z');
  let n = 0;
  const clock = { now: () => now };
  const ids = { newId: () => `id${String((n += 1)).padStart(3, '0')}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' };
  const docs = createMemoryDocumentStore({ now: clock.now });
  const objects = createMemoryObjectStore();
  const orgDeps = { docs, clock, ids };
  const ana = { subject: 'sub-ana', email: 'ana@example.com' };
  const org = await createOrganization(orgDeps, ana, 'Acme');
  await addMember(orgDeps, org._id, { subject: 'sub-bo', email: 'bo@example.com' });
  const readers = await createGroup(orgDeps, org._id, { name: 'Readers', agentRoles: [{ agent: '*', role: 'reader' }] });
  await addMember(orgDeps, org._id, { subject: 'sub-cy', email: 'cy@example.com' }, [readers._id]);
  expect(builtinGroupId(org._id, 'user')).toBeTruthy();

  const agents = docs.collection<Record<string, unknown> & { _id: string }>(agentCollections.agents);
  await agents.insertOne({ schemaVersion: 1, _id: 'a1', orgId: org._id, slug: 'analyst', name: 'Analyst', description: '' });
  await agents.insertOne({ schemaVersion: 1, _id: 'a2', orgId: 'other-org', slug: 'elsewhere', name: 'Elsewhere', description: '' });
  const envs = docs.collection<Record<string, unknown> & { _id: string }>(agentCollections.environments);
  const published = (buildId: string) => ({ buildId, commitId: 'c', objectKey: 'k', counts: {}, publishedAt: now, publishedBy: 'x' });
  await envs.insertOne({ schemaVersion: 1, _id: 'a1:main', agentId: 'a1', orgId: org._id, name: 'main', published: published('b-main') });
  await envs.insertOne({ schemaVersion: 1, _id: 'a1:draft', agentId: 'a1', orgId: org._id, name: 'draft', published: null });
  await envs.insertOne({ schemaVersion: 1, _id: 'a2:main', agentId: 'a2', orgId: 'other-org', name: 'main', published: published('b-other') });
  const conns = docs.collection<Record<string, unknown> & { _id: string }>(connectionCollections.connections);
  await conns.insertOne({ schemaVersion: 1, _id: 'a1:main:chat', agentId: 'a1', orgId: org._id, environment: 'main', identifier: 'chat', protocol: 'agui', address: 'addr-chat' });
  await conns.insertOne({ schemaVersion: 1, _id: 'a1:main:hooks', agentId: 'a1', orgId: org._id, environment: 'main', identifier: 'hooks', protocol: 'webhook', address: 'addr-hooks' });

  const build: PublishedAgent = {
    agentPrompt: '', skills: {},
    workflows: {
      ask: workflow('ask', [chat('ask', { connection: 'chat', examples: ['one', 'two', 'three', 'four', 'five', 'six', 'seven'] })]),
      loose: workflow('loose', [chat('loose', {})]),
      hooked: workflow('hooked', [chat('hooked', { connection: 'hooks' })]),
      paused: workflow('paused', [chat('paused', { connection: 'side' })], { disabled: true }),
      plain: workflow('plain', [{ id: 'go', type: 'manual', workflow: 'plain', state: 'ask', fields: {} }]),
    },
  };
  await conns.insertOne({ schemaVersion: 1, _id: 'a1:main:side', agentId: 'a1', orgId: org._id, environment: 'main', identifier: 'side', protocol: 'agui', address: 'addr-side' });
  const builds = {
    agentOf: async (buildId: string) => {
      if (buildId === 'b-main') return build;
      throw new PlatformError('build_not_found', `Published build ${buildId} was not found.`, { status: 404 });
    },
    workflowOf: async () => { throw new Error('not used'); },
  };
  const app = chatRoutes({
    deps: { docs, builds }, logger, prepare: async () => undefined,
    callerOf: (request) => {
      const who = request.headers.get('x-test-member');
      if (!who) throw new PlatformError('unauthorized', 'Sign in first.', { status: 401 });
      return { subject: `sub-${who}` };
    },
  });
  const get = async <T>(path: string, who: string | null = 'ana') => {
    const response = await app.handle(new Request(`https://cairn.example.com${path}`, { headers: who ? { 'x-test-member': who } : {} }));
    return { status: response.status, body: await response.json() as T & { error: { code: string; message: string } } };
  };
  /** A chat of `owner` on the chat connection: its session, first message and thread, at `at`. */
  const addChat = async (owner: string, text: string, at: string) => {
    now = new Date(at);
    const session = await insertSession({ docs, objects, clock, ids }, {
      orgId: org._id, agentId: 'a1', environment: 'main', workflow: 'ask', buildId: 'b-main', commitId: 'c', state: 'ask', variables: {}, lockedVariables: [],
      trigger: 'chat', depth: 0, inheritedForbid: [],
    });
    await docs.collection<Record<string, unknown> & { _id: string }>(sessionCollections.messages).insertOne({ schemaVersion: 1, _id: `${session._id}:0`, sessionId: session._id, seq: 0, turnId: 't', state: 'ask', message: { role: 'user', content: text }, at: now });
    const threadId = `thread-${text}`;
    await docs.collection<Record<string, unknown> & { _id: string }>(aguiThreadsCollection).insertOne({ _id: threadId, schemaVersion: 1, connectionId: 'a1:main:chat', owner, sessionId: session._id, createdAt: now });
    return { threadId, sessionId: session._id };
  };
  return { docs, get, addChat };
}

describe('GET /api/chat/workflows', () => {
  it('lists the chat workflows of agents the member may use, with ≤ 6 examples and the endpoint, or why not', async () => {
    const { get } = await world();
    const listed = await get<ChatWorkflowList>('/api/chat/workflows');
    expect(listed.status).toBe(200);
    expect(listed.body.workflows.map((w) => [w.agent.slug, w.environment, w.workflow, w.endpoint ?? w.unavailable])).toEqual([
      ['analyst', 'main', 'ask', '/api/agui/addr-chat'],
      ['analyst', 'main', 'hooked', 'connection_missing'],
      ['analyst', 'main', 'loose', 'no_connection'],
      ['analyst', 'main', 'paused', 'workflow_disabled'],
    ]);
    const [ask] = listed.body.workflows;
    expect(ask).toMatchObject({ agent: { id: 'a1', slug: 'analyst', name: 'Analyst' }, title: 'Title of ask', description: 'Instructions of ask.', connection: 'chat' });
    expect(ask.examples).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
    expect(listed.body.workflows[1].unavailableMessage).toContain('No AG-UI connection "hooks"');

    // A member with the User role sees the same; a Reader holds no workflows:use and sees none.
    expect((await get<ChatWorkflowList>('/api/chat/workflows', 'bo')).body.workflows).toHaveLength(4);
    expect((await get<ChatWorkflowList>('/api/chat/workflows', 'cy')).body.workflows).toEqual([]);
    expect((await get<ChatWorkflowList>('/api/chat/workflows', 'nobody')).body.workflows).toEqual([]);
    expect((await get('/api/chat/workflows', null)).status).toBe(401);
    expect((await get('/api/chat/workflows?x=1')).status).toBe(400);
  });
});

describe('GET /api/chat/history', () => {
  it("lists the member's own chats, newest first and paged; an endpoint caller's chat is in no one's history", async () => {
    const { docs, get, addChat } = await world();
    const first = await addChat('member:sub-ana', 'first question', '2026-11-20T10:00:00Z');
    await addChat('member:sub-bo', 'bo question', '2026-11-20T11:00:00Z');
    await addChat('public', 'public question', '2026-11-20T12:00:00Z');
    await addChat('oidc:sub-ana', 'oidc question', '2026-11-20T12:30:00Z');
    const second = await addChat('member:sub-ana', 'second question', '2026-11-20T13:00:00Z');
    await sessionsOf({ docs }).updateOne({ _id: first.sessionId }, { $set: { status: 'succeeded' } });

    const mine = await get<ChatHistoryList>('/api/chat/history');
    expect(mine.status).toBe(200);
    expect(mine.body.chats.map((c) => c.threadId)).toEqual([second.threadId, first.threadId]);
    expect(mine.body.hasMore).toBe(false);
    expect(mine.body.chats[1]).toMatchObject({
      sessionId: first.sessionId, agent: { slug: 'analyst' }, environment: 'main', workflow: 'ask', connection: 'chat', endpoint: '/api/agui/addr-chat',
      status: 'succeeded', firstMessage: 'first question', startedAt: '2026-11-20T10:00:00.000Z',
    });

    const page = await get<ChatHistoryList>('/api/chat/history?limit=1');
    expect([page.body.chats.map((c) => c.threadId), page.body.hasMore]).toEqual([[second.threadId], true]);
    const next = await get<ChatHistoryList>('/api/chat/history?limit=1&offset=1');
    expect([next.body.chats.map((c) => c.threadId), next.body.hasMore]).toEqual([[first.threadId], false]);

    expect((await get<ChatHistoryList>('/api/chat/history', 'bo')).body.chats.map((c) => c.firstMessage)).toEqual(['bo question']);
    expect((await get<ChatHistoryList>('/api/chat/history', 'cy')).body.chats).toEqual([]);
    const one = await get<ChatHistoryItem>(`/api/chat/history/${first.threadId}`);
    expect([one.status, one.body.sessionId, one.body.endpoint]).toEqual([200, first.sessionId, '/api/agui/addr-chat']);
    expect((await get(`/api/chat/history/${first.threadId}`, 'bo')).status).toBe(404);
    expect((await get('/api/chat/history/thread-public question')).status).toBe(404);
    const bad = await get('/api/chat/history?limit=500');
    expect([bad.status, bad.body.error.message]).toEqual([400, expect.stringContaining('limit')]);
  });
});
