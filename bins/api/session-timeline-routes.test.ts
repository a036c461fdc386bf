/**
 * `GET /api/sessions/:id/timeline` over memory stores with the real session wiring (core/boot/session-wiring.ts:
 * organizations' roles and sessions:personal from core/org), two organizations: Ana (owner of Acme) reads a session's
 * turns with their times, queue waits, durations, usage, steps and the decision and reply waits between turns, in
 * one read of the turns (no read per turn, no message read); Bo, a User of Acme, reads the manual session but gets
 * 404 naming nothing for Ana's personal chat; Dan, of another organization, gets 404 naming nothing for both; no
 * sign-in is 401. Source: docs/decisions.md D25 (the session's timeline).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { agentCollections } from '../../core/agent/hosting-model.ts';
import { sessionDeps } from '../../core/boot/session-wiring.ts';
import { addMember, createOrganization } from '../../core/org/index.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { sessionCollections } from '../../core/session/model.ts';
import { insertSession, sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import type { SessionTimelineView } from '../../core/session/timeline-views.ts';
import { countingDocumentStore } from '../../core/testing/counting-document-store.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { promptSteps, timelineTurns } from '../../test/fixtures/timeline-turns.ts';
import { sessionRoutes } from './session-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const clock = { now: () => new Date('2026-11-20T10:00:00Z') };
let n = 0;
const ids = {
  newId: () => `id${String(n += 1).padStart(3, '0')}`,
  randomBytes: (k: number) => new Uint8Array(k),
  sha256Hex: async () => '',
};
const docs = countingDocumentStore(createMemoryDocumentStore({ now: clock.now }));
const objects = createMemoryObjectStore();
const deps = sessionDeps({
  docs,
  objects,
  clock,
  ids,
  queue: undefined,
  workflowOf: async () => {
    throw new Error('not used');
  },
});
const app = sessionRoutes({
  deps,
  logger,
  prepare: async () => undefined,
  callerOf: (request) => {
    const who = request.headers.get('x-test-member');
    if (!who) throw new PlatformError('unauthorized', 'Sign in first.', { status: 401 });
    return { subject: `sub-${who}`, email: `${who}@example.com` };
  },
});
const get = async (path: string, who: string | null) => {
  const response = await app.handle(
    new Request(`https://cairn.example.com${path}`, { headers: who ? { 'x-test-member': who } : {} }),
  );
  return { status: response.status, text: await response.text() };
};

let manual: string;
let chat: string;

beforeAll(async () => {
  const orgDeps = { docs, clock, ids };
  const acme = await createOrganization(orgDeps, { subject: 'sub-ana', email: 'ana@example.com' }, 'Acme');
  await addMember(orgDeps, acme._id, { subject: 'sub-bo', email: 'bo@example.com' });
  const other = await createOrganization(orgDeps, { subject: 'sub-dan', email: 'dan@example.com' }, 'Elsewhere');
  const agents = docs.collection<Record<string, unknown> & { _id: string }>(agentCollections.agents);
  await agents.insertOne({
    schemaVersion: 1,
    _id: 'a1',
    orgId: acme._id,
    slug: 'analyst',
    name: 'Analyst',
    description: '',
  });
  await agents.insertOne({
    schemaVersion: 1,
    _id: 'a2',
    orgId: other._id,
    slug: 'analyst',
    name: 'Analyst',
    description: '',
  });
  const fields = {
    orgId: acme._id,
    agentId: 'a1',
    environment: 'main',
    workflow: 'answer',
    buildId: 'b',
    commitId: 'c',
    state: 'review',
    variables: {},
    lockedVariables: [],
    trigger: 'manual',
    depth: 0,
    inheritedForbid: [],
  };
  const start = new Date('2026-11-20T10:00:00Z');
  manual = (await insertSession(deps, fields))._id;
  chat = (await insertSession(deps, { ...fields, trigger: 'chat', startedBy: 'sub-ana' }))._id;
  for (const id of [manual, chat]) {
    for (const t of timelineTurns({ _id: id, orgId: acme._id }, start)) await turnsOf(deps).insertOne(t);
  }
  await sessionsOf(deps).updateOne({ _id: manual }, { $set: { status: 'awaiting_decision' } });
});

describe('GET /api/sessions/:id/timeline', () => {
  it('answers each turn with its times, waits, usage and steps, reading the turns once', async () => {
    docs.reset();
    const shown = await get(`/api/sessions/${manual}/timeline`, 'ana');
    expect(shown.status, shown.text).toBe(200);
    expect(docs.readsOf(sessionCollections.turns)).toBe(1);
    expect(docs.readsOf(sessionCollections.messages)).toBe(0);
    const view = JSON.parse(shown.text) as SessionTimelineView;
    expect(view.turns.map((t) => [t.kind, t.status, t.queueWaitMs, t.durationMs])).toEqual([
      ['prompt', 'succeeded', 800, 6_600],
      ['decision', 'succeeded', 300, 3_100],
      ['reply', 'failed', 200, 4_000],
    ]);
    const [prompt, decision, reply] = view.turns;
    expect(prompt).toMatchObject({
      queuedAt: '2026-11-20T10:00:00.000Z',
      startedAt: '2026-11-20T10:00:00.800Z',
      endedAt: '2026-11-20T10:00:07.400Z',
    });
    expect(prompt.usage).toMatchObject({ inputTokens: 2_850, outputTokens: 420, modelCalls: 2, costUsd: 0.01 });
    expect(prompt.steps).toEqual(promptSteps);
    expect(prompt.waitBefore).toBeUndefined();
    expect(decision.waitBefore).toEqual({
      for: 'decision',
      from: '2026-11-20T10:00:07.400Z',
      to: '2026-11-22T10:00:07.400Z',
      ms: 2 * 86_400_000,
    });
    expect(reply.waitBefore).toMatchObject({ for: 'reply', ms: 180_000 });
    expect(reply).toMatchObject({ stepsDropped: 2, error: { code: 'tool_failed' } });
    expect(reply.steps.map((s) => s.kind)).toEqual(['worker_start', 'child', 'refusal']);
    expect(view.waiting).toEqual({ for: 'decision', since: reply.endedAt });
    expect(shown.text).not.toContain('"input"');
  });

  it("shows a member of the organization the manual session, not another member's chat (404)", async () => {
    expect((await get(`/api/sessions/${manual}/timeline`, 'bo')).status).toBe(200);
    expect((await get(`/api/sessions/${chat}/timeline`, 'ana')).status).toBe(200);
    const hidden = await get(`/api/sessions/${chat}/timeline`, 'bo');
    expect(hidden.status).toBe(404);
    expect(hidden.text).not.toContain(chat);
  });

  it('answers a member of another organization 404 naming nothing, and no sign-in 401', async () => {
    for (const id of [manual, chat, 'no-such-session']) {
      const refused = await get(`/api/sessions/${id}/timeline`, 'dan');
      expect(refused.status).toBe(404);
      expect(JSON.parse(refused.text).error.code).toBe('not_found');
      for (const named of [id, 'a1', 'Acme', 'analyst', 'answer']) expect(refused.text).not.toContain(named);
    }
    expect((await get(`/api/sessions/${manual}/timeline`, null)).status).toBe(401);
  });
});
