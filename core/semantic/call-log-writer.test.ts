/**
 * The call log writer: records off the response path, bounds what it stores (input, output, unknown tool
 * names, model names), and loses nothing that was recorded before drain() on a clean stop.
 */
import { describe, expect, it } from 'vitest';
import type { BaseDocument, DocumentStore } from '../ports/document-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import {
  boundForLog,
  type CallLogEntry,
  createCallLogWriter,
  loggedToolName,
  markedExcerpt,
  maxLoggedChars,
  maxLoggedToolNameChars,
} from './call-log-writer.ts';
import { calledTools, listCalls } from './call-log.ts';
import type { SemanticDeps } from './deps.ts';

const now = new Date('2026-11-23T10:00:00Z');
let counter = 0;

/** A document store whose inserts wait until `release()` (a port fake: the writes are real, only held). */
function heldStore(): { docs: DocumentStore; release(): void; inserts(): number } {
  const inner = createMemoryDocumentStore({ now: () => now });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let inserts = 0;
  const docs: DocumentStore = {
    ...inner,
    collection: <T extends BaseDocument>(name: string) => {
      const collection = inner.collection<T>(name);
      const insertOne: typeof collection.insertOne = async (doc) => {
        await gate;
        inserts += 1;
        return collection.insertOne(doc);
      };
      return new Proxy(collection, {
        get: (target, key) => (key === 'insertOne' ? insertOne : Reflect.get(target, key, target)),
      });
    },
  };
  return { docs, release, inserts: () => inserts };
}

const depsWith = (docs: DocumentStore): SemanticDeps => ({
  docs,
  objects: createMemoryObjectStore(),
  clock: { now: () => now },
  ids: {
    newId: () => `id${(counter += 1)}`,
    randomBytes: (n) => new Uint8Array(n),
    sha256Hex: async () => '0'.repeat(64),
  },
});

const entry = (output: unknown, input: unknown = { sql: 'SELECT 1' }): CallLogEntry => ({
  projectId: 'p1',
  tokenId: 't1',
  tool: 'execute_query',
  status: 'success',
  at: now,
  plane: 'production',
  input,
  output,
  durationMs: 3,
});

describe('call log writer', () => {
  it('returns before the write lands, and drain() waits for every pending write', async () => {
    const held = heldStore();
    const deps = depsWith(held.docs);
    const writer = createCallLogWriter(deps, {
      onError: () => {
        throw new Error('no write should fail');
      },
    });
    writer.record(entry({ text: 'one' }));
    writer.record(entry({ text: 'two' }));
    expect(writer.pendingCount()).toBe(2);
    expect(held.inserts()).toBe(0);
    const drained = writer.drain();
    held.release();
    await drained;
    expect(writer.pendingCount()).toBe(0);
    const logged = await listCalls(deps, 'p1', {});
    expect(logged.map((e) => (e.output as { text: string }).text).sort()).toEqual(['one', 'two']);
  });

  it('stores a large output as a bounded excerpt with its full length', async () => {
    const deps = depsWith(createMemoryDocumentStore({ now: () => now }));
    const writer = createCallLogWriter(deps, { onError: () => undefined });
    const big = { text: 'x'.repeat(200_000) };
    writer.record(entry(big, { sql: `SELECT '${'y'.repeat(100_000)}'` }));
    await writer.drain();
    const [logged] = await listCalls(deps, 'p1', {});
    expect(logged.output).toEqual({
      excerpt: JSON.stringify(big).slice(0, maxLoggedChars),
      truncated: true,
      originalChars: JSON.stringify(big).length,
    });
    expect((logged.input as { truncated: boolean; originalChars: number }).truncated).toBe(true);
    expect(JSON.stringify(logged).length).toBeLessThan(3 * maxLoggedChars);
  });

  it('bounds and writes an entry only when the deferred work runs', async () => {
    const deps = depsWith(createMemoryDocumentStore({ now: () => now }));
    const later: (() => void)[] = [];
    const writer = createCallLogWriter(deps, { onError: () => undefined, defer: (work) => later.push(work) });
    writer.record(entry({ text: 'deferred' }));
    await Promise.resolve();
    expect(await listCalls(deps, 'p1', {})).toEqual([]);
    expect(later).toHaveLength(1);
    later[0]();
    await writer.drain();
    expect((await listCalls(deps, 'p1', {})).map((e) => (e.output as { text: string }).text)).toEqual(['deferred']);
  });

  it('keeps a value that fits whole, and tells onError of a failed write', async () => {
    expect(boundForLog({ text: 'small' })).toEqual({ text: 'small' });
    expect(boundForLog('abcdef', 4)).toEqual({ excerpt: '"abc', truncated: true, originalChars: 8 });
    const failing = depsWith({
      ...createMemoryDocumentStore(),
      collection: () => ({
        insertOne: async () => {
          throw new Error('disk full');
        },
      }),
    } as unknown as DocumentStore);
    const failures: string[] = [];
    const writer = createCallLogWriter(failing, {
      onError: (error, failed) => failures.push(`${String(error)} ${failed.tool}`),
    });
    writer.record(entry({ text: 'lost' }));
    await writer.drain();
    expect(failures).toEqual(['Error: disk full execute_query']);
  });

  it('logs a known tool name whole and any other name as a marked 64-character excerpt (D18 § 4)', async () => {
    const deps = depsWith(createMemoryDocumentStore({ now: () => now }));
    const writer = createCallLogWriter(deps, { onError: () => undefined });
    const huge = 'n'.repeat(5 * 1024 * 1024);
    writer.record({ ...entry({ error: 'Unknown tool' }), tool: huge, modelName: 'm'.repeat(1_000_000) });
    writer.record({ ...entry({ error: 'Unknown tool' }), tool: 'drop_everything' });
    writer.record(entry({ text: 'ok' }));
    await writer.drain();
    const logged = await listCalls(deps, 'p1', {});
    const tools = logged.map((e) => e.tool);
    expect(tools).toContain(`${'n'.repeat(maxLoggedToolNameChars)}… [truncated: ${huge.length} characters]`);
    expect(tools).toContain('drop_everything');
    expect(tools).toContain('execute_query');
    const cut = logged.find((e) => e.tool.startsWith('nnn'));
    expect(cut?.modelName).toBe(`${'m'.repeat(200)}… [truncated: 1000000 characters]`);
    expect(JSON.stringify(await calledTools(deps, 'p1')).length).toBeLessThan(300);
    expect(loggedToolName('get_datasets')).toBe('get_datasets');
    expect(markedExcerpt('abcdef', 4)).toBe('abcd… [truncated: 6 characters]');
    expect(markedExcerpt('abcd… [truncated: 6 characters]', 4)).toBe('abcd… [truncated: 6 characters]');
  });
});
