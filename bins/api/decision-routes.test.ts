/**
 * `POST /api/sessions/:id/decide` with typed fields over memory stores and the real routes (docs/decisions.md D26 §
 * 2): the fields are checked (400 naming the field) and carried on the decision turn with channel `api`; an expired
 * decision is 409 `decision_expired`; `GET /api/sessions/:id` shows the expiry and fields; a member of another
 * organization gets 404 naming nothing.
 */
import { describe, expect, it } from 'vitest';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { insertSession, sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import type { SessionDeps } from '../../core/session/session-access.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { sessionRoutes } from './session-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const pending = {
  kind: 'decision', id: 'p1', state: 'approve',
  options: [{ to: 'done', description: 'Approve.' }, { to: 'draft', description: 'Redo.' }],
  expiresAt: '2026-11-29T12:00:00.000Z', expiresTo: 'lapsed',
  fields: [{ name: 'amount', type: 'integer', required: true }, { name: 'urgent', type: 'boolean', required: false }],
};

async function world() {
  let now = new Date('2026-11-29T10:00:00Z');
  let n = 0;
  const clock = { now: () => now };
  // Each member belongs to one organization: ana and bo to o1, cy to o2 (no role on o1's agent a1).
  const orgOf: Record<string, string> = { 'sub-ana': 'o1', 'sub-bo': 'o1', 'sub-cy': 'o2' };
  const queued: string[] = [];
  const deps: SessionDeps = {
    docs: createMemoryDocumentStore({ now: clock.now }), objects: createMemoryObjectStore(), clock,
    ids: { newId: () => `s${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    requireRole: async (caller, orgId) => {
      if (orgOf[caller.subject] !== orgId) throw new PlatformError('not_found', 'No such agent.', { status: 404 });
    },
    seesEveryChat: async () => false,
    resolveAgent: async () => { throw new Error('not used'); },
    resolveWorkflow: async () => { throw new Error('not used'); },
    enqueueTurn: async (id) => void queued.push(id),
  };
  const app = sessionRoutes({
    deps, logger, prepare: async () => undefined,
    callerOf: (request) => {
      const who = request.headers.get('x-test-member')!;
      return { subject: `sub-${who}`, email: `${who}@example.com` };
    },
  });
  const session = await insertSession(deps, {
    orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'refund', buildId: 'b', commitId: 'c', state: 'approve',
    variables: {}, lockedVariables: [], trigger: 'manual', depth: 0, inheritedForbid: [],
  });
  await sessionsOf(deps).updateOne({ _id: session._id }, { $set: { status: 'awaiting_decision', pending } });
  const call = async (who: string, method: string, path: string, body?: unknown) => {
    const headers: Record<string, string> = { 'x-test-member': who, ...(body ? { 'content-type': 'application/json' } : {}) };
    const request = new Request(`https://cairn.example.com${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined });
    const response = await app.handle(request);
    return { status: response.status, body: await response.json() as Record<string, any> };
  };
  const decide = (who: string, body: unknown) => call(who, 'POST', `/api/sessions/${session._id}/decide`, body);
  return { deps, session, call, decide, queued, later: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe('POST /api/sessions/:id/decide with fields', () => {
  it('checks the fields, carries them with channel api, and shows the expiry and fields', async () => {
    const w = await world();
    const shown = await w.call('ana', 'GET', `/api/sessions/${w.session._id}`);
    expect(shown.body.session.pending).toMatchObject({ expiresAt: '2026-11-29T12:00:00.000Z', expiresTo: 'lapsed', fields: pending.fields });

    const wrong = await w.decide('ana', { to: 'done', fields: { amount: 2.5 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ code: 'invalid_decision_fields', message: expect.stringContaining('field "amount" must be an integer') });
    const missing = await w.decide('ana', { to: 'done', fields: { urgent: true } });
    expect(missing.body.error.message).toContain('field "amount" is required');
    expect(w.queued).toEqual([]);

    const taken = await w.decide('bo', { to: 'done', comment: 'ok', fields: { amount: 40, urgent: false } });
    expect(taken.status).toBe(200);
    expect((await turnsOf(w.deps).findOne({ _id: taken.body.turnId }))?.input.decision).toMatchObject({
      to: 'done', by: 'sub-bo', channel: 'api', fields: { amount: 40, urgent: false },
    });
    expect((await w.decide('ana', { to: 'done', fields: { amount: 40 } })).status).toBe(409);
  });

  it('refuses an expired decision with 409 decision_expired', async () => {
    const w = await world();
    w.later(2 * 3600 * 1000);
    const late = await w.decide('ana', { to: 'done', fields: { amount: 1 } });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'decision_expired', message: expect.stringContaining('"lapsed"') });
  });

  it("answers another organization's member 404 naming nothing", async () => {
    const w = await world();
    for (const answer of [await w.decide('cy', { to: 'done', fields: { amount: 1 } }), await w.call('cy', 'GET', `/api/sessions/${w.session._id}`)]) {
      expect(answer.status).toBe(404);
      expect(JSON.stringify(answer.body)).not.toMatch(new RegExp(`${w.session._id}|approve|amount|refund|o1`));
    }
    expect(w.queued).toEqual([]);
  });
});
