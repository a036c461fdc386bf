/**
 * `GET /api/sessions` over memory stores: root sessions of the agents the caller reads, newest first, filtered
 * by agent, environment, workflow, status and date, paged with `hasMore`; another member's chat is hidden;
 * a bad parameter is a 400 naming it; an agent the caller cannot read is refused. `GET /api/sessions/:id`
 * answers ISO times; both name the agent's slug.
 */
import { describe, expect, it } from 'vitest';
import { agentCollections } from '../../core/agent/hosting-model.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { SessionDetailView, SessionListView } from '../../core/session/session-views.ts';
import { insertSession, sessionsOf } from '../../core/session/session-store.ts';
import type { SessionDeps } from '../../core/session/session-access.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { sessionRoutes } from './session-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };

async function world() {
  let now = new Date('2026-11-20T10:00:00Z');
  let n = 0;
  const clock = { now: () => now };
  const readers: Record<string, string[]> = { 'sub-ana': ['a1', 'a2'], 'sub-bo': ['a1'] };
  const deps: SessionDeps = {
    docs: createMemoryDocumentStore({ now: clock.now }), objects: createMemoryObjectStore(), clock,
    ids: { newId: () => `s${String((n += 1)).padStart(2, '0')}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    requireRole: async (caller, _org, agentId) => {
      if (!readers[caller.subject]?.includes(agentId)) throw new PlatformError('agent_role_required', 'You need the Reader role on this agent.', { status: 403 });
    },
    seesEveryChat: async () => false,
    resolveAgent: async (caller, ref) => {
      if (!readers[caller.subject]?.includes(ref.agent)) {
        throw new PlatformError('agent_not_found', 'No such agent among your organizations\' agents.', { status: 404 });
      }
      return { orgId: 'o', agentId: ref.agent };
    },
    resolveWorkflow: async () => { throw new Error('not used'); },
    enqueueTurn: async () => undefined,
  };
  const app = sessionRoutes({
    deps, logger, prepare: async () => undefined,
    readableAgents: async (caller) => ({ agentIds: readers[caller.subject] ?? [], everyChatIn: [] }),
    callerOf: (request) => {
      const who = request.headers.get('x-test-member');
      if (!who) throw new PlatformError('unauthorized', 'Sign in first.', { status: 401 });
      return { subject: `sub-${who}`, email: `${who}@example.com` };
    },
  });
  const add = async (fields: { agentId: string; environment?: string; workflow?: string; startedBy?: string; depth?: number }, at: string) => {
    now = new Date(at);
    return insertSession(deps, {
      orgId: 'o', environment: 'main', workflow: 'answer', buildId: 'b', commitId: 'c', state: 'intake', variables: {}, lockedVariables: [],
      trigger: 'manual', depth: 0, inheritedForbid: [], ...fields,
    });
  };
  const get = async (path: string, who: string | null = 'ana') => {
    const response = await app.handle(new Request(`https://cairn.example.com${path}`, { headers: who ? { 'x-test-member': who } : {} }));
    return { status: response.status, body: await response.json() as SessionListView & SessionDetailView & { error: { code: string; message: string } } };
  };
  return { deps, add, get };
}

const ids = (answer: SessionListView) => answer.sessions.map((s) => s.id);

describe('GET /api/sessions', () => {
  it('lists root sessions of every readable agent, newest first, filtered and paged', async () => {
    const { deps, add, get } = await world();
    const s1 = await add({ agentId: 'a1' }, '2026-11-20T10:00:00Z');
    const s2 = await add({ agentId: 'a2', environment: 'test', workflow: 'review' }, '2026-11-21T10:00:00Z');
    const s3 = await add({ agentId: 'a1', workflow: 'review' }, '2026-11-22T10:00:00Z');
    await add({ agentId: 'a1', depth: 1 }, '2026-11-22T11:00:00Z');
    await add({ agentId: 'a3' }, '2026-11-22T12:00:00Z');
    const chat = await add({ agentId: 'a1', startedBy: 'sub-bo' }, '2026-11-23T10:00:00Z');
    await sessionsOf(deps).updateOne({ _id: s3._id }, { $set: { status: 'awaiting_decision' } });
    await deps.docs.collection<{ _id: string; orgId: string; slug: string }>(agentCollections.agents).insertOne({ _id: 'a1', schemaVersion: 1, orgId: 'o', slug: 'analyst' });

    const all = await get('/api/sessions');
    expect(all.status).toBe(200);
    expect(ids(all.body)).toEqual([s3._id, s2._id, s1._id]);
    expect(all.body.hasMore).toBe(false);
    expect(all.body.sessions[0].createdAt).toBe('2026-11-22T10:00:00.000Z');
    expect(all.body.sessions.map((s) => s.agentSlug)).toEqual(['analyst', undefined, 'analyst']);
    expect(all.body.sessions[0].trail[0]).toEqual({ state: 'intake', via: 'start', at: '2026-11-22T10:00:00.000Z' });
    expect(ids((await get('/api/sessions', 'bo')).body)).toEqual([chat._id, s3._id, s1._id]);

    expect(ids((await get('/api/sessions?agent=a1')).body)).toEqual([s3._id, s1._id]);
    expect(ids((await get('/api/sessions?env=test')).body)).toEqual([s2._id]);
    expect(ids((await get('/api/sessions?workflow=review')).body)).toEqual([s3._id, s2._id]);
    expect(ids((await get('/api/sessions?status=awaiting_decision')).body)).toEqual([s3._id]);
    expect(ids((await get('/api/sessions?from=2026-11-21&to=2026-11-21')).body)).toEqual([s2._id]);
    expect(ids((await get('/api/sessions?from=2026-11-21T12:00:00Z')).body)).toEqual([s3._id]);

    const first = await get('/api/sessions?limit=2');
    expect(ids(first.body)).toEqual([s3._id, s2._id]);
    expect(first.body.hasMore).toBe(true);
    const second = await get('/api/sessions?limit=2&offset=2');
    expect(ids(second.body)).toEqual([s1._id]);
    expect(second.body.hasMore).toBe(false);
  });

  it('refuses a bad parameter (400 naming it), an unreadable agent (404), an empty range (400) '
    + 'and no sign-in (401)', async () => {
    const { get } = await world();
    const bad = await get('/api/sessions?status=done');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('"status"');
    expect((await get('/api/sessions?limit=0')).status).toBe(400);
    expect((await get('/api/sessions?from=yesterday')).body.error.message).toContain('"from"');
    expect((await get('/api/sessions?colour=red')).body.error.message).toContain('Unknown query parameter "colour"');
    expect((await get('/api/sessions?from=2026-11-22&to=2026-11-21')).status).toBe(400);
    expect((await get('/api/sessions?agent=a2', 'bo')).status).toBe(404);
    expect((await get('/api/sessions', null)).status).toBe(401);
  });

  it('shows one session with ISO times and its agent\'s slug', async () => {
    const { deps, add, get } = await world();
    const s = await add({ agentId: 'a1' }, '2026-11-20T10:00:00Z');
    await deps.docs.collection<{ _id: string; orgId: string; slug: string }>(agentCollections.agents).insertOne({ _id: 'a1', schemaVersion: 1, orgId: 'o', slug: 'analyst' });
    const shown = await get(`/api/sessions/${s._id}`);
    expect(shown.status).toBe(200);
    expect(shown.body.session).toMatchObject({ id: s._id, status: 'running', createdAt: '2026-11-20T10:00:00.000Z', pending: null, agentSlug: 'analyst' });
    expect(shown.body).toMatchObject({ messages: [], turns: [], children: [] });
  });
});
