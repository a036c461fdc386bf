/**
 * Keyed chats of members on the in-memory store: a chat a member starts records them (`startedBy`); a member's
 * fresh firing with a session key joins only that member's open session of the key — another member, or an endpoint
 * caller, with the same key opens a session of their own.
 *
 * Source: spec/platform-service.md § Session facts named (a chat is personal); docs/decisions.md D17 § 2.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import type { FiringTarget } from './firings.ts';
import { openFiredSession } from './session-opening.ts';
import { sessionsOf } from './session-store.ts';

const target: FiringTarget = {
  orgId: 'o1',
  agentId: 'a1',
  environment: 'main',
  buildId: 'b1',
  commitId: 'c1',
  workflow: 'concierge',
  state: 'talk',
  trigger: { id: 'chat', type: 'chat' },
};
const chat = (startedBy?: string) => ({
  payload: { caller: startedBy ? 'member' : 'public' },
  message: 'Hello',
  sessionKey: 'one-desk',
  ...(startedBy ? { startedBy } : {}),
});

describe('keyed chats of members', () => {
  it("join only the same member's open chat of the key", async () => {
    let n = 0;
    const deps = {
      docs: createMemoryDocumentStore(),
      objects: createMemoryObjectStore(),
      clock: { now: () => new Date('2026-11-26T10:00:00Z') },
      ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
      enqueueTurn: async () => undefined,
    };
    const ada = await openFiredSession(deps, target, chat('ada'));
    expect(ada.session.startedBy).toBe('ada');
    await sessionsOf(deps).updateOne({ _id: ada.session._id }, { $set: { status: 'awaiting_input' } });
    const bob = await openFiredSession(deps, target, chat('bob'));
    const stranger = await openFiredSession(deps, target, chat());
    expect([bob.outcome, stranger.outcome]).toEqual(['opened', 'opened']);
    expect(new Set([ada.session._id, bob.session._id, stranger.session._id]).size).toBe(3);
    expect([bob.session.startedBy, stranger.session.startedBy]).toEqual(['bob', undefined]);
    const again = await openFiredSession(deps, target, chat('ada'));
    expect([again.outcome, again.session._id]).toEqual(['delivered', ada.session._id]);
  });
});
