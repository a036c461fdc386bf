import { describe, expect, it } from 'vitest';
import { createTestWorld, sessionsRelease } from '../../test/fixtures/data-update-world.ts';
import { DATA_UPDATE_LOCK } from './model.ts';
import { runDataUpdatesAtBoot, runDataUpdateSweep } from './run-data-updates.ts';

const waiting = '[data-updates] waiting for another process to finish data updates (held by other-process)';
const off = { allowNewerData: false };

describe('data updates at boot: applying', () => {
  it('with nothing pending ensures the schemaVersion_1 indexes, takes no lock and logs nothing', async () => {
    const w = createTestWorld();
    await w.insert('sessions', { _id: 's1', schemaVersion: 3 });
    await w.insert('members', { _id: 'm1', schemaVersion: 1 });
    expect(await runDataUpdatesAtBoot(w.deps, sessionsRelease(), off)).toEqual({ applied: [] });
    expect(w.indexes).toEqual(['sessions:{"schemaVersion":1}', 'members:{"schemaVersion":1}']);
    expect(w.lockCalls).toEqual([]);
    expect(w.lines).toEqual([]);
    expect(w.sleeps).toEqual([]);
  });

  it('applies pending updates oldest first under the lock, one line per update, and releases the lock', async () => {
    const w = createTestWorld();
    const started = new Date('2026-01-01T00:00:00Z');
    await w.insert(
      'sessions',
      { _id: 's1', schemaVersion: 1, title: 'a', owner: 'ada', startedAt: started },
      { _id: 's2', schemaVersion: 1, title: 'b' },
      { _id: 's3', schemaVersion: 2, title: 'c', startedBy: 'bob' },
      { _id: 's4', schemaVersion: 3, name: 'd' },
    );
    const release = sessionsRelease({ onApply: () => w.advance(7) });
    const { applied } = await runDataUpdatesAtBoot(w.deps, release, off);
    expect(w.lines).toEqual([
      '[data-updates] sessions 1→2 adds startedBy: 2 documents in 14 ms',
      '[data-updates] sessions 2→3 renames title to name: 3 documents in 21 ms',
    ]);
    expect(applied.map((a) => [a.from, a.to, a.documents])).toEqual([[1, 2, 2], [2, 3, 3]]);
    expect(await w.all('sessions')).toEqual([
      { _id: 's1', schemaVersion: 3, name: 'a', owner: 'ada', startedAt: started, startedBy: 'ada' },
      { _id: 's2', schemaVersion: 3, name: 'b', startedBy: 'nobody' },
      { _id: 's3', schemaVersion: 3, name: 'c', startedBy: 'bob' },
      { _id: 's4', schemaVersion: 3, name: 'd' },
    ]);
    expect(w.lockCalls).toEqual([`acquire ${DATA_UPDATE_LOCK}`, `release ${DATA_UPDATE_LOCK}`]);
    expect(await w.lease.holder(DATA_UPDATE_LOCK)).toBeNull();
  });

  it('renews the lock while applying a long update', async () => {
    const w = createTestWorld();
    for (let i = 0; i < 6; i++) await w.insert('sessions', { _id: `s${i}`, schemaVersion: 2, title: `t${i}` });
    const holders: (string | null)[] = [];
    const release = sessionsRelease({
      onApply: async () => {
        holders.push(await w.lease.holder(DATA_UPDATE_LOCK));
        w.advance(25_000);
      },
    });
    await runDataUpdatesAtBoot(w.deps, release, { allowNewerData: false, lockTtlMs: 60_000 });
    expect(holders).toEqual(Array(6).fill('this-process'));
    expect(w.lockCalls.filter((c) => c.startsWith('renew'))).toHaveLength(5);
    expect(w.lines).toEqual(['[data-updates] sessions 2→3 renames title to name: 6 documents in 150000 ms']);
  });

  it(
    'waits while another process holds the lock, logs the waiting line ' +
      'every 30 s, and starts once nothing is left',
    async () => {
      const w = createTestWorld();
      await w.insert('sessions', { _id: 's1', schemaVersion: 2, title: 'a' }, {
        _id: 's2',
        schemaVersion: 2,
        title: 'b',
      });
      await w.lease.acquire(DATA_UPDATE_LOCK, 'other-process', 600_000);
      w.onSleep = async (slept) => {
        if (slept !== 75_000) return;
        // The other process finishes: every document at version 3, lock released.
        for (const id of ['s1', 's2']) {
          await w.docs.collection('sessions').updateOne({ _id: id }, { $set: { schemaVersion: 3 } });
        }
        await w.lease.release(DATA_UPDATE_LOCK, 'other-process');
      };
      const { applied } = await runDataUpdatesAtBoot(w.deps, sessionsRelease(), {
        allowNewerData: false,
        pollMs: 5_000,
      });
      expect(applied).toEqual([]);
      expect(w.lines).toEqual([waiting, waiting, waiting]);
      expect(w.sleeps.reduce((a, b) => a + b, 0)).toBe(75_000);
      expect(w.lockCalls.every((c) => c === `acquire ${DATA_UPDATE_LOCK}`)).toBe(true);
    },
  );

  it(
    'takes over once the holder stops renewing (killed) and continues with ' + 'the documents not yet rewritten',
    async () => {
      const w = createTestWorld();
      await w.insert('sessions', { _id: 's1', schemaVersion: 3, name: 'done' }, {
        _id: 's2',
        schemaVersion: 2,
        title: 'b',
      });
      await w.lease.acquire(DATA_UPDATE_LOCK, 'other-process', 60_000);
      const { applied } = await runDataUpdatesAtBoot(w.deps, sessionsRelease(), {
        allowNewerData: false,
        pollMs: 5_000,
      });
      expect(w.lines).toEqual([
        waiting,
        waiting,
        '[data-updates] sessions 2→3 renames title to name: 1 documents in 0 ms',
      ]);
      expect(applied).toHaveLength(1);
      expect(w.sleeps.reduce((a, b) => a + b, 0)).toBe(60_000);
      expect((await w.all('sessions')).map((d) => d.schemaVersion)).toEqual([3, 3]);
    },
  );

  it('stops when the lock is lost mid-update (renewal refused) and goes back to waiting', async () => {
    const w = createTestWorld();
    await w.insert(
      'sessions',
      { _id: 's1', schemaVersion: 2, title: 'a' },
      { _id: 's2', schemaVersion: 2, title: 'b' },
      { _id: 's3', schemaVersion: 2, title: 'c' },
    );
    const release = sessionsRelease({
      onApply: async (doc) => {
        if (doc._id !== 's1') return;
        w.advance(61_000);
        expect(await w.lease.acquire(DATA_UPDATE_LOCK, 'other-process', 600_000)).toBe(true);
      },
    });
    w.onSleep = async () => {
      await w.docs.collection('sessions').updateOne({ _id: 's2' }, { $set: { schemaVersion: 3 } });
      await w.docs.collection('sessions').updateOne({ _id: 's3' }, { $set: { schemaVersion: 3 } });
      await w.lease.release(DATA_UPDATE_LOCK, 'other-process');
    };
    const { applied } = await runDataUpdatesAtBoot(w.deps, release, { allowNewerData: false, lockTtlMs: 60_000 });
    expect(applied.map((a) => a.documents)).toEqual([1]);
    expect(w.lines).toEqual(['[data-updates] sessions 2→3 renames title to name: 1 documents in 61000 ms', waiting]);
    expect(w.lockCalls).toEqual([
      `acquire ${DATA_UPDATE_LOCK}`,
      `renew ${DATA_UPDATE_LOCK}`,
      `acquire ${DATA_UPDATE_LOCK}`,
    ]);
  });

  it('rewrites a document only if it is still at the old version (another writer moved it meanwhile)', async () => {
    const w = createTestWorld();
    await w.insert('sessions', { _id: 's1', schemaVersion: 2, title: 'a' }, {
      _id: 's2',
      schemaVersion: 2,
      title: 'b',
    });
    const release = sessionsRelease({
      onApply: async (doc) => {
        if (doc._id === 's1') {
          await w.docs.collection('sessions').updateOne({ _id: 's2' }, {
            $set: { schemaVersion: 3, name: 'by another process' },
            $unset: { title: true },
          });
        }
      },
    });
    const { applied } = await runDataUpdatesAtBoot(w.deps, release, off);
    expect(applied[0].documents).toBe(1);
    expect(await w.all('sessions')).toEqual([{ _id: 's1', schemaVersion: 3, name: 'a' }, {
      _id: 's2',
      schemaVersion: 3,
      name: 'by another process',
    }]);
  });

  it(
    'stops on a failing update naming the document, releases the lock, and a fixed release continues where it ' +
      'stopped',
    async () => {
      const w = createTestWorld();
      await w.insert(
        'sessions',
        { _id: 's1', schemaVersion: 2, title: 'a' },
        { _id: 's2', schemaVersion: 2, title: 'b' },
        { _id: 's3', schemaVersion: 2, title: 'c' },
      );
      const failing = sessionsRelease({
        onApply: (doc) => {
          if (doc._id === 's2') throw new Error('cannot read title');
        },
      });
      await expect(runDataUpdatesAtBoot(w.deps, failing, off)).rejects.toMatchObject({
        code: 'data_update_failed',
        message: '[data-updates] sessions 2→3 renames title to name failed on document s2: cannot read title',
      });
      expect(await w.lease.holder(DATA_UPDATE_LOCK)).toBeNull();
      expect((await w.all('sessions')).map((d) => d.schemaVersion)).toEqual([3, 2, 2]);
      await runDataUpdatesAtBoot(w.deps, sessionsRelease(), off);
      expect(w.lines.at(-1)).toMatch(/: 2 documents in/);
      expect((await w.all('sessions')).map((d) => d.name)).toEqual(['a', 'b', 'c']);
    },
  );
});

describe('data update sweep', () => {
  it('with nothing pending takes no lock and logs nothing', async () => {
    const w = createTestWorld();
    await w.insert('sessions', { _id: 's1', schemaVersion: 3 });
    expect(await runDataUpdateSweep(w.deps, sessionsRelease())).toEqual({ applied: [] });
    expect(w.lockCalls).toEqual([]);
    expect(w.lines).toEqual([]);
  });

  it('brings forward documents a previous release wrote at an older version, under the lock', async () => {
    const w = createTestWorld();
    await w.insert('sessions', { _id: 's1', schemaVersion: 3, name: 'a' }, {
      _id: 's2',
      schemaVersion: 1,
      title: 'old release',
    });
    const { applied } = await runDataUpdateSweep(w.deps, sessionsRelease());
    expect(applied.map((a) => `${a.from}→${a.to}:${a.documents}`)).toEqual(['1→2:1', '2→3:1']);
    expect(w.lines).toHaveLength(2);
    expect(w.lockCalls).toEqual([`acquire ${DATA_UPDATE_LOCK}`, `release ${DATA_UPDATE_LOCK}`]);
    expect((await w.all('sessions'))[1]).toEqual({
      _id: 's2',
      schemaVersion: 3,
      name: 'old release',
      startedBy: 'nobody',
    });
  });

  it('skips the round while another process holds the lock, and refuses nothing', async () => {
    const w = createTestWorld();
    await w.insert('sessions', { _id: 's1', schemaVersion: 2, title: 'a' }, { _id: 's2' }, {
      _id: 's3',
      schemaVersion: 9,
    });
    await w.lease.acquire(DATA_UPDATE_LOCK, 'other-process', 60_000);
    expect(await runDataUpdateSweep(w.deps, sessionsRelease())).toEqual({ applied: [], skipped: 'lock_held' });
    await w.lease.release(DATA_UPDATE_LOCK, 'other-process');
    expect((await runDataUpdateSweep(w.deps, sessionsRelease())).applied).toHaveLength(1);
    expect(w.sleeps).toEqual([]);
  });
});
