/**
 * The data update sessions 1→2 run through the boot runner with the release's own list: a chat whose AG-UI threads
 * were all issued to one member becomes theirs (`startedBy`); sessions of endpoint callers, of several members, with
 * no thread, and child sessions stay as they were; a listing-only release refuses to apply it rather than guess.
 *
 * Source: docs/decisions.md D17 § 2 (chats are personal); spec § Data update at boot.
 */
import { describe, expect, it } from 'vitest';
import { createTestWorld } from '../../test/fixtures/data-update-world.ts';
import { cryptoIds } from '../adapters/runtime/system.ts';
import { runDataUpdatesAtBoot } from '../data-update/index.ts';
import { sessionCollections } from '../session/model.ts';
import { aguiThreadsCollection } from '../connection/agui-threads.ts';
import { platformRelease } from './platform-release.ts';

const off = { allowNewerData: false };
const oldSession = (id: string, depth = 0) => ({
  _id: id,
  schemaVersion: 1,
  orgId: 'o1',
  agentId: 'a1',
  workflow: 'concierge',
  depth,
  status: 'awaiting_input',
});
const thread = (id: string, sessionId: string, owner: string) => ({
  _id: id,
  schemaVersion: 1,
  connectionId: 'c1',
  owner,
  sessionId,
  createdAt: new Date(0),
});

describe('sessions 1→2 (a chat belongs to the member who started it)', () => {
  it(
    'writes startedBy of chats whose threads were issued to one member, ' +
      'and leaves every other session as it was',
    async () => {
      const w = createTestWorld();
      await w.insert(
        sessionCollections.sessions,
        oldSession('ada-chat'),
        oldSession('public-chat'),
        oldSession('shared-chat'),
        oldSession('manual'),
        oldSession('child', 1),
      );
      await w.insert(
        aguiThreadsCollection,
        thread('t1', 'ada-chat', 'member:ada'),
        thread('t2', 'ada-chat', 'member:ada'),
        thread('t3', 'public-chat', 'public'),
        thread('t4', 'shared-chat', 'member:ada'),
        thread('t5', 'shared-chat', 'member:bob'),
        thread('t6', 'child', 'member:ada'),
      );
      const { applied } = await runDataUpdatesAtBoot(
        w.deps,
        platformRelease({ docs: w.docs, clock: w.deps.clock, ids: cryptoIds }),
        off,
      );
      expect(applied.map((a) => [a.collection, a.from, a.to, a.documents]))
        .toEqual([[sessionCollections.sessions, 1, 2, 5]]);
      const sessions = await w.all(sessionCollections.sessions);
      expect(sessions.map((s) => [s._id, s.schemaVersion, s.startedBy])).toEqual([
        ['ada-chat', 2, 'ada'],
        ['child', 2, undefined],
        ['manual', 2, undefined],
        ['public-chat', 2, undefined],
        ['shared-chat', 2, undefined],
      ]);
    },
  );

  it('is refused, leaving the sessions as they were, by a release given no stores', async () => {
    const w = createTestWorld();
    await w.insert(sessionCollections.sessions, oldSession('ada-chat'));
    await expect(runDataUpdatesAtBoot(w.deps, platformRelease(), off))
      .rejects.toMatchObject({ code: 'data_update_failed' });
    expect((await w.all(sessionCollections.sessions)).map((s) => [s.schemaVersion, s.startedBy]))
      .toEqual([[1, undefined]]);
  });
});
