/**
 * Improvement requests: the done state a member sets and clears (idempotent, 404 naming the id, one
 * project's requests only), and the open / done / all filter of the list.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import type { SemanticDeps } from './deps.ts';
import { listImprovements, markImprovementDone, submitImprovement } from './improvements.ts';

let counter = 0;
const fakeIds = {
  newId: () => `id${(counter += 1)}`,
  randomBytes: (n: number) => new Uint8Array(n),
  sha256Hex: async (data: string | Uint8Array) => `digest:${String(data)}`,
};

function world() {
  let now = new Date('2026-11-23T10:00:00Z');
  const docs = createMemoryDocumentStore({ now: () => now });
  const deps: SemanticDeps = { docs, objects: createMemoryObjectStore(), clock: { now: () => now }, ids: fakeIds };
  return {
    deps,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
  };
}

async function submit(w: ReturnType<typeof world>, projectId: string, title: string) {
  const record = await submitImprovement(w.deps, {
    projectId,
    modelName: 'flights',
    title,
    description: `about ${title}`,
    tokenId: 't1',
  });
  w.advance(1000);
  return record;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status?: number; message: string }> {
  return promise.then(() => {
    throw new Error('expected a refusal');
  }, (error: { code: string; status?: number; message: string }) => error);
}

describe('markImprovementDone', () => {
  it(
    'stores who marked a request done and when, keeps the first mark when ' + 'marked again, and clears both on reopen',
    async () => {
      const w = world();
      const request = await submit(w, 'p1', 'Add a carrier name');
      const done = await markImprovementDone(w.deps, 'p1', { id: request._id, by: 'ana@example.com' });
      expect(done).toMatchObject({
        _id: request._id,
        doneAt: new Date('2026-11-23T10:00:01Z'),
        doneBy: 'ana@example.com',
      });
      w.advance(60_000);
      const again = await markImprovementDone(w.deps, 'p1', { id: request._id, by: 'bo@example.com', done: true });
      expect(again).toMatchObject({ doneAt: new Date('2026-11-23T10:00:01Z'), doneBy: 'ana@example.com' });
      const [stored] = await listImprovements(w.deps, 'p1', { status: 'done' });
      expect(stored).toMatchObject({ doneAt: new Date('2026-11-23T10:00:01Z'), doneBy: 'ana@example.com' });

      const reopened = await markImprovementDone(w.deps, 'p1', { id: request._id, by: 'bo@example.com', done: false });
      expect(reopened.doneAt).toBeUndefined();
      expect(reopened.doneBy).toBeUndefined();
      const [open] = await listImprovements(w.deps, 'p1', { status: 'open' });
      expect(open?._id).toBe(request._id);
      expect(open && 'doneAt' in open).toBe(false);
      expect(await markImprovementDone(w.deps, 'p1', { id: request._id, by: 'bo@example.com', done: false }))
        .toMatchObject({
          _id: request._id,
          title: 'Add a carrier name',
        });
    },
  );

  it('refuses an unknown id, and the id of another project, with 404 not_found naming the id', async () => {
    const w = world();
    const other = await submit(w, 'p2', 'Elsewhere');
    for (const id of ['nope', other._id]) {
      const error = await refusal(markImprovementDone(w.deps, 'p1', { id, by: 'ana@example.com' }));
      expect(error).toMatchObject({ code: 'not_found', status: 404 });
      expect(error.message).toContain(`"${id}"`);
    }
    const [untouched] = await listImprovements(w.deps, 'p2');
    expect(untouched?.doneAt).toBeUndefined();
  });
});

describe('listImprovements', () => {
  it('answers open, done or all requests of the project, newest first, all by default, within the limit', async () => {
    const w = world();
    await submit(w, 'p1', 'first');
    const second = await submit(w, 'p1', 'second');
    const third = await submit(w, 'p1', 'third');
    await submit(w, 'p2', 'other project');
    await markImprovementDone(w.deps, 'p1', { id: second._id, by: 'ana@example.com' });
    const titles = async (options: Parameters<typeof listImprovements>[2]) =>
      (await listImprovements(w.deps, 'p1', options)).map((r) => r.title);
    expect(await titles({})).toEqual(['third', 'second', 'first']);
    expect(await titles({ status: 'all' })).toEqual(['third', 'second', 'first']);
    expect(await titles({ status: 'open' })).toEqual(['third', 'first']);
    expect(await titles({ status: 'done' })).toEqual(['second']);
    expect(await titles({ status: 'open', limit: 1 })).toEqual(['third']);
  });
});
