/**
 * Decision links over the routes (memory stores, the real use cases, the real SHA-256): a link shows its decision and
 * decides once; a second use, a decision through another channel and an expiry each make it 410; an unknown token is
 * 404; neither answer names the session; the collection holds the token's digest only.
 *
 * Source: docs/decisions.md D26 § 3.
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../../core/adapters/runtime/system.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { takeDecision } from '../../core/session/decisions.ts';
import { createDecisionLink, DECISION_LINKS_COLLECTION } from '../../core/session/decision-links.ts';
import { insertSession, sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { decisionLinkRoutes } from './decision-link-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const base = 'https://cairn.example.com';
const options = [{ to: 'approved', description: 'Ship it' }, { to: 'rejected', description: 'Send it back' }];

/** The routes over memory stores with one session parked on decision `p1` (optionally expiring at `expiresAt`). */
async function world(expiresAt?: string) {
  let now = new Date('2026-11-29T10:00:00Z');
  const queued: string[] = [];
  const docs = createMemoryDocumentStore();
  const links = {
    docs, objects: createMemoryObjectStore(), clock: { now: () => now }, ids: cryptoIds,
    enqueueTurn: async (id: string) => { queued.push(id); },
  };
  const session = await insertSession(links, {
    orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'review', buildId: 'b', commitId: 'c', state: 'review',
    variables: {}, lockedVariables: [], trigger: 'hook', inheritedForbid: [], depth: 0,
  });
  const pending = { kind: 'decision', id: 'p1', state: 'review', options, ...(expiresAt ? { expiresAt } : {}) };
  await sessionsOf(links).updateOne({ _id: session._id }, { $set: { status: 'awaiting_decision', pending } });
  const parked = (await sessionsOf(links).findOne({ _id: session._id }))!;
  const app = decisionLinkRoutes({ links, logger });
  const get = (token: string) => app.handle(new Request(`${base}/api/decisions/${token}`));
  const post = (token: string, body: unknown) => app.handle(new Request(`${base}/api/decisions/${token}`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  }));
  const later = (ms: number) => { now = new Date(now.getTime() + ms); };
  return { links, docs, session: parked, queued, get, post, later };
}

/** Status, and the body as text (to show it names no session). */
const answer = async (response: Response) => ({ status: response.status, text: await response.text() });

describe('a decision link', () => {
  it('shows its decision, decides once with channel link, and is refused (410) ever after', async () => {
    const w = await world();
    const { token, expiresAt } = await createDecisionLink(w.links, w.session);
    expect(token).toMatch(/^cairn_dl_[A-Za-z0-9_-]{43}$/);
    expect(expiresAt.toISOString()).toBe('2026-12-06T10:00:00.000Z');
    const shown = await w.get(token);
    expect(await shown.json()).toEqual({ state: 'review', options, expiresAt: '2026-12-06T10:00:00.000Z' });
    const decided = await w.post(token, { to: 'approved', comment: 'fine' });
    expect(decided.status).toBe(200);
    const { turnId } = await decided.json() as { turnId: string };
    expect(w.queued).toEqual([turnId]);
    const turn = await turnsOf(w.links).findOne({ _id: turnId });
    expect(turn?.input.decision).toMatchObject({ to: 'approved', comment: 'fine', channel: 'link' });
    const again = await answer(await w.post(token, { to: 'rejected' }));
    expect(again.status).toBe(410);
    expect(again.text).toContain('decision_link_gone');
    expect(again.text).not.toContain(w.session._id);
    expect((await w.get(token)).status).toBe(410);
    // Consumed itself, not only through its session: the same decision pending again still refuses it.
    await sessionsOf(w.links).updateOne({ _id: w.session._id }, { $set: { status: 'awaiting_decision', pending: w.session.pending } });
    expect((await w.post(token, { to: 'rejected' })).status).toBe(410);
    expect(w.queued).toEqual([turnId]);
  });

  it('is stored as the SHA-256 of its token only, with its decision, and the collection holds no token', async () => {
    const w = await world();
    const { token } = await createDecisionLink(w.links, w.session);
    const stored = await w.docs.collection(DECISION_LINKS_COLLECTION).find({});
    expect(stored.map((d) => d._id)).toEqual([await cryptoIds.sha256Hex(token)]);
    expect(stored[0]).toMatchObject({ sessionId: w.session._id, decisionId: 'p1', orgId: 'o1' });
    expect(JSON.stringify(stored)).not.toContain(token);
    expect(JSON.stringify(stored)).not.toContain(token.slice('cairn_dl_'.length));
  });

  it('is refused after the decision was taken through another channel', async () => {
    const w = await world();
    const { token } = await createDecisionLink(w.links, w.session);
    await takeDecision(w.links, w.session, { to: 'rejected', channel: 'api' }, 'sub-ada');
    expect((await w.get(token)).status).toBe(410);
    const refused = await answer(await w.post(token, { to: 'approved' }));
    expect(refused.status).toBe(410);
    expect(w.queued).toHaveLength(1);
  });

  it("is refused after the decision's expiresAt", async () => {
    const w = await world('2026-11-29T12:00:00.000Z');
    const { token, expiresAt } = await createDecisionLink(w.links, w.session);
    expect(expiresAt.toISOString()).toBe('2026-11-29T12:00:00.000Z');
    w.later(2 * 3600 * 1000);
    expect((await w.get(token)).status).toBe(410);
    expect((await w.post(token, { to: 'approved' })).status).toBe(410);
    expect(w.queued).toEqual([]);
  });

  it('is refused 7 days after it was made when the decision has no expiry', async () => {
    const w = await world();
    const { token } = await createDecisionLink(w.links, w.session);
    w.later(7 * 24 * 3600 * 1000 - 1000);
    expect((await w.get(token)).status).toBe(200);
    w.later(1000);
    expect((await w.post(token, { to: 'approved' })).status).toBe(410);
    expect(w.queued).toEqual([]);
  });

  it('refuses a choice that is not an option (400) and stays usable; an unknown token is 404', async () => {
    const w = await world();
    const { token } = await createDecisionLink(w.links, w.session);
    const wrong = await answer(await w.post(token, { to: 'maybe' }));
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('approved, rejected');
    expect((await w.post(token, { to: 'approved' })).status).toBe(200);
    for (const unknown of ['cairn_dl_nothing', 'nothing', `${token}x`]) {
      const missing = await answer(await w.get(unknown));
      expect(missing.status).toBe(404);
      expect(missing.text).not.toContain(w.session._id);
    }
  });
});
