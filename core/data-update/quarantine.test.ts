import { describe, expect, it } from 'vitest';
import { anyShape } from '../testing/any-shape.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { QUARANTINE_COLLECTION, quarantineDocument } from './quarantine.ts';
import { runDataUpdatesAtBoot } from './run-data-updates.ts';
import type { ReleaseData, StoredDocument } from './model.ts';
import { createMemoryLease } from '../testing/memory-lease.ts';

const release: ReleaseData = {
  collections: { evaluation_calls: { baseline: 1, current: 1 }, [QUARANTINE_COLLECTION]: { baseline: 1, current: 1 } },
  updates: [],
};
const clock = { now: () => new Date('2026-11-29T08:00:00.000Z') };

async function boot(docs: DocumentStore): Promise<string> {
  const deps = {
    docs,
    lease: createMemoryLease({ now: () => clock.now().getTime() }),
    clock,
    sleep: async () => {},
    owner: 'test',
    logger: () => {},
  };
  return runDataUpdatesAtBoot(deps, release, { allowNewerData: false }).then(() => 'started', (e: Error) => e.message);
}

/** A store whose next deleteOne never happens: the process stopped between the copy and the removal. */
function stoppingBeforeDelete(inner: DocumentStore): DocumentStore & { armed: boolean } {
  const store = {
    armed: true,
    close: () => inner.close(),
    collection: <T extends { _id: string }>(name: string) => {
      const collection = inner.collection<T>(name);
      return new Proxy(collection, {
        get(target, key) {
          if (key === 'deleteOne' && store.armed) return () => Promise.reject(new Error('the process stopped here'));
          const value = Reflect.get(target, key) as unknown;
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
    },
  };
  return store as DocumentStore & { armed: boolean };
}

describe('cairn data-updates quarantine', () => {
  it('sets a refused document aside whole, so the next boot starts; the refusal line names the command', async () => {
    const docs = createMemoryDocumentStore();
    await anyShape(docs.collection<StoredDocument>('evaluation_calls')).insertOne({ _id: 'c1', runId: 'r1' });
    expect(await boot(docs)).toContain(
      'collection evaluation_calls holds 1 documents without a schemaVersion (for example _id c1), written around ' +
        'the platform; find and correct them (filter {"schemaVersion": {"$not": {"$type": "number"}}}), or set each ' +
        'aside: cairn data-updates quarantine evaluation_calls "c1"; no version is guessed',
    );
    expect(await quarantineDocument({ docs, clock }, release, { collection: 'evaluation_calls', id: 'c1' })).toBe(
      'moved',
    );
    expect(await boot(docs)).toBe('started');
    expect(await docs.collection(QUARANTINE_COLLECTION).find({})).toEqual([{
      _id: 'evaluation_calls/c1',
      schemaVersion: 1,
      collection: 'evaluation_calls',
      document: { _id: 'c1', runId: 'r1' },
      quarantinedAt: clock.now(),
    }]);
  });

  it('a run stopped between the copy and the removal is finished by the next, with one copy', async () => {
    const inner = createMemoryDocumentStore();
    await anyShape(inner.collection<StoredDocument>('evaluation_calls')).insertOne({ _id: 'c1', runId: 'r1' });
    const docs = stoppingBeforeDelete(inner);
    const target = { collection: 'evaluation_calls', id: 'c1' };
    await expect(quarantineDocument({ docs, clock }, release, target)).rejects.toThrow('stopped here');
    expect(await boot(inner)).toContain('refusing to start');
    docs.armed = false;
    expect(await quarantineDocument({ docs, clock }, release, target)).toBe('moved');
    expect(await inner.collection(QUARANTINE_COLLECTION).countDocuments({})).toBe(1);
    expect(await boot(inner)).toBe('started');
  });

  it('refuses a readable document and an unknown collection, and finds nothing to do for an absent id', async () => {
    const docs = createMemoryDocumentStore();
    await docs.collection('evaluation_calls').insertOne({ _id: 'ok', schemaVersion: 1 });
    await expect(quarantineDocument({ docs, clock }, release, { collection: 'evaluation_calls', id: 'ok' }))
      .rejects.toMatchObject({ code: 'document_readable' });
    await expect(quarantineDocument({ docs, clock }, release, { collection: 'nope', id: 'ok' }))
      .rejects.toMatchObject({ code: 'unknown_collection' });
    expect(await quarantineDocument({ docs, clock }, release, { collection: 'evaluation_calls', id: 'gone' }))
      .toBe('absent');
    expect(await docs.collection('evaluation_calls').countDocuments({})).toBe(1);
  });
});
