import { describe, expect, it } from 'vitest';
import { createTestWorld, sessionsRelease } from '../../test/fixtures/data-update-world.ts';
import { listPendingDataUpdates, runDataUpdatesAtBoot } from './run-data-updates.ts';

const refuse = '[data-updates] refusing to start: ';

async function refusal(run: Promise<unknown>): Promise<{ code: string; message: string; firstLine: string }> {
  const error = (await run.then(() => undefined, (e: unknown) => e)) as { code: string; message: string } | undefined;
  if (!error) throw new Error('expected a refusal');
  return { code: error.code, message: error.message, firstLine: error.message.split('\n')[0] };
}

describe('data updates at boot: refusals on unreadable data', () => {
  it(
    'refuses documents above the version this release knows, naming ' + 'collection and versions and what to do',
    async () => {
      const w = createTestWorld();
      await w.insert('sessions', { _id: 's1', schemaVersion: 3 }, { _id: 's2', schemaVersion: 4 }, {
        _id: 's3',
        schemaVersion: 5,
      }, { _id: 's4', schemaVersion: 1 });
      const r = await refusal(runDataUpdatesAtBoot(w.deps, sessionsRelease(), { allowNewerData: false }));
      expect(r.code).toBe('data_refused');
      expect(
        r.firstLine.startsWith(
          `${refuse}collection sessions holds 2 documents at version 5 (highest), above version 3, the newest this ` +
            `release knows`,
        ),
      ).toBe(true);
      expect(r.firstLine).toMatch(/roll forward.*restore the backup.*PLATFORM_ALLOW_NEWER_DATA=true/);
      expect(r.message.split('\n')).toHaveLength(1);
      expect(w.lockCalls).toEqual([]);
      expect((await w.all('sessions')).find((d) => d._id === 's4')?.schemaVersion).toBe(1);
    },
  );

  it(
    'with PLATFORM_ALLOW_NEWER_DATA starts on newer documents, still brings older ones forward, and warns on ' +
      'every boot',
    async () => {
      const w = createTestWorld();
      await w.insert('sessions', { _id: 's1', schemaVersion: 4, title: 'newer' }, {
        _id: 's2',
        schemaVersion: 2,
        title: 'older',
      });
      await runDataUpdatesAtBoot(w.deps, sessionsRelease(), { allowNewerData: true });
      await runDataUpdatesAtBoot(w.deps, sessionsRelease(), { allowNewerData: true });
      const warning =
        '[data-updates] warning: PLATFORM_ALLOW_NEWER_DATA=true: starting on documents above the versions this ' +
        'release knows (collection sessions: 1 documents up to version 4, this release knows 3); safe only when the ' +
        'newer release says its update is readable by this one; remove the variable after rolling forward';
      expect(w.lines).toEqual([
        warning,
        expect.stringMatching(/^\[data-updates\] sessions 2→3 renames title to name: 1 documents in \d+ ms$/),
        warning,
      ]);
      expect(await w.all('sessions')).toEqual([{ _id: 's1', schemaVersion: 4, title: 'newer' }, {
        _id: 's2',
        schemaVersion: 3,
        name: 'older',
      }]);
    },
  );

  it('warns while PLATFORM_ALLOW_NEWER_DATA is set even when no document is newer', async () => {
    const w = createTestWorld();
    await w.insert('sessions', { _id: 's1', schemaVersion: 3 });
    await runDataUpdatesAtBoot(w.deps, sessionsRelease(), { allowNewerData: true });
    expect(w.lines).toEqual([
      expect.stringMatching(
        new RegExp(
          String.raw`^\[data-updates\] warning: PLATFORM_ALLOW_NEWER_DATA=true: no documents are ` +
            String.raw`above the versions this release knows; .*remove the variable after rolling ` +
            String.raw`forward$`,
        ),
      ),
    ]);
    expect(w.lockCalls).toEqual([]);
  });

  it.each([false, true])(
    'refuses documents below the baseline (allowNewerData %s never lifts it)',
    async (allowNewerData) => {
      const w = createTestWorld();
      await w.insert('sessions', { _id: 's1', schemaVersion: 0 }, { _id: 's2', schemaVersion: -2 }, {
        _id: 's3',
        schemaVersion: 1,
      });
      const r = await refusal(runDataUpdatesAtBoot(w.deps, sessionsRelease(), { allowNewerData }));
      expect(r.code).toBe('data_refused');
      expect(r.firstLine).toBe(
        `${refuse}collection sessions holds 2 documents at version -2 (lowest), below version 1, the oldest this ` +
          `release can update; the database is older than any data update of this release: reset it, or convert it ` +
          `with the one-off tool the release named`,
      );
      expect(w.lockCalls).toEqual([]);
    },
  );

  it.each([false, true])(
    'refuses documents without a schemaVersion, naming some, guessing no version (allowNewerData %s never lifts it)',
    async (allowNewerData) => {
      const w = createTestWorld();
      await w.insert('members', { _id: 'm3' }, { _id: 'm1', schemaVersion: null }, { _id: 'm2', schemaVersion: '1' }, {
        _id: 'm4',
        schemaVersion: 1,
      }, { _id: 'm5' });
      const r = await refusal(runDataUpdatesAtBoot(w.deps, sessionsRelease(), { allowNewerData }));
      expect(r.code).toBe('data_refused');
      expect(r.firstLine).toBe(
        `${refuse}collection members holds 4 documents without a schemaVersion (for example _id m1, m2, m3), ` +
          `written around the platform; find and correct them (filter {"schemaVersion": {"$not": {"$type": ` +
          `"number"}}}), or set each aside: cairn data-updates quarantine members "m1"; no version is guessed`,
      );
      expect((await w.all('members')).map((d) => d.schemaVersion)).toEqual([null, '1', undefined, 1, undefined]);
    },
  );

  it('puts every refusal on its own line, the first line first', async () => {
    const w = createTestWorld();
    await w.insert('sessions', { _id: 's1', schemaVersion: 9 }, { _id: 's2' });
    await w.insert('members', { _id: 'm1', schemaVersion: 0 });
    const r = await refusal(runDataUpdatesAtBoot(w.deps, sessionsRelease(), { allowNewerData: false }));
    const lines = r.message.split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line.startsWith(refuse)).toBe(true);
    expect(lines.map((l) => /collection (\w+) holds \d+ documents (\w+)/.exec(l)?.slice(1).join(' '))).toEqual([
      'sessions without',
      'sessions at',
      'members at',
    ]);
  });

  it(
    'lists pending updates with the documents each will rewrite, and the ' + 'refusals a boot would stop with',
    async () => {
      const w = createTestWorld();
      await w.insert('sessions', { _id: 's1', schemaVersion: 1 }, { _id: 's2', schemaVersion: 1 }, {
        _id: 's3',
        schemaVersion: 2,
      }, { _id: 's4', schemaVersion: 7 });
      const listed = await listPendingDataUpdates({ docs: w.docs }, sessionsRelease());
      expect(listed.pending).toEqual([
        { collection: 'sessions', from: 1, to: 2, description: 'adds startedBy', documents: 2 },
        { collection: 'sessions', from: 2, to: 3, description: 'renames title to name', documents: 3 },
      ]);
      expect(listed.refusals).toEqual([
        expect.stringContaining(`${refuse}collection sessions holds 1 documents at version 7`),
      ]);
      expect((await listPendingDataUpdates({ docs: w.docs }, sessionsRelease(), { allowNewerData: true })).refusals)
        .toEqual([]);
      expect(w.lockCalls).toEqual([]);
    },
  );

  it('refuses a release whose updates do not chain from baseline to current', async () => {
    const w = createTestWorld();
    const release = sessionsRelease();
    const broken = { ...release, updates: [release.updates[1], release.updates[0]] };
    await expect(runDataUpdatesAtBoot(w.deps, broken, { allowNewerData: false })).rejects.toMatchObject({
      code: 'invalid_release',
      message: expect.stringContaining('collection sessions needs an update 1→2 next, not 2→3'),
    });
    const short = { ...release, updates: [release.updates[0]] };
    await expect(runDataUpdatesAtBoot(w.deps, short, { allowNewerData: false })).rejects.toMatchObject({
      code: 'invalid_release',
      message: expect.stringContaining('updates up to 2 but its current version is 3'),
    });
  });
});
