/**
 * The semantic cache's retention against real directories and real data builds (docs/decisions.md D18 § 8): a data
 * build no plane uses is removed, but only once the last query holding it has ended, and nothing that is not a data
 * build is touched; a new build that would pass the cap is refused with a clear error and leaves no database behind.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import { createCacheRetention } from './cache-retention.ts';
import { createDataBuilder } from './data-build.ts';
import { dataSetOf, failure, recordingLogger, temporaryDirectory } from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let counter = 0;
beforeAll(async () => {
  directory = await temporaryDirectory('cairn-cache-retention-');
});
afterAll(async () => {
  await directory.remove();
});

/** A fresh cache directory holding a data build (data.duckdb and a scope file) for each of `keys`. */
function cacheWith(keys: string[]): string {
  counter += 1;
  const cacheDir = join(directory.path, `cache-${counter}`);
  for (const key of keys) {
    mkdirSync(join(cacheDir, key, 'scopes'), { recursive: true });
    writeFileSync(join(cacheDir, key, 'data.duckdb'), new Uint8Array(1024));
    writeFileSync(join(cacheDir, key, 'scopes', '_scope_m_0123abcd_0123456789ab.duckdb'), new Uint8Array(512));
  }
  return cacheDir;
}

describe('unused data builds', () => {
  it('are removed by a sweep; live ones, and anything that is not a data build, are kept', async () => {
    const cacheDir = cacheWith(['old1', 'old2', 'live']);
    mkdirSync(join(cacheDir, 'notes'));
    writeFileSync(join(cacheDir, 'notes', 'todo.txt'), 'mine');
    writeFileSync(join(cacheDir, 'README'), 'not a build');
    const retention = createCacheRetention({
      cacheDir,
      logger: recordingLogger(),
      liveDataKeys: () => Promise.resolve(new Set(['live'])),
    });
    await retention.sweep();
    expect(readdirSync(cacheDir).sort()).toEqual(['README', 'live', 'notes']);
  });

  it('held by a running query stay until its last hold ends', async () => {
    const cacheDir = cacheWith(['busy', 'live']);
    const live = new Set(['busy', 'live']);
    const retention = createCacheRetention({
      cacheDir,
      logger: recordingLogger(),
      liveDataKeys: () => Promise.resolve(live),
    });
    await retention.sweep();
    const first = retention.hold('busy');
    const second = retention.hold('busy');
    live.delete('busy'); // a publish moved the plane to other data while two queries ran on this one
    await retention.sweep();
    expect(existsSync(join(cacheDir, 'busy', 'data.duckdb'))).toBe(true);
    first();
    first(); // a second release of the same hold counts once
    expect(existsSync(join(cacheDir, 'busy', 'data.duckdb'))).toBe(true);
    second();
    await expect.poll(() => existsSync(join(cacheDir, 'busy'))).toBe(false);
    expect(readdirSync(cacheDir)).toEqual(['live']);
  });

  it('are kept when the live keys cannot be read', async () => {
    const cacheDir = cacheWith(['a', 'b']);
    const logger = recordingLogger();
    const retention = createCacheRetention({
      cacheDir,
      logger,
      liveDataKeys: () => Promise.reject(new Error('store unreachable')),
    });
    await retention.sweep();
    expect(readdirSync(cacheDir).sort()).toEqual(['a', 'b']);
  });
});

describe('the cap', () => {
  const store = createMemoryObjectStore();
  const csv = (rows: number) =>
    new TextEncoder().encode(`id,note\n${Array.from({ length: rows }, (_, i) => `${i},note ${i}`).join('\n')}`);

  it('refuses a build whose files would pass it, saying the cap, the variable and what to do', async () => {
    const cacheDir = cacheWith(['other']);
    const retention = createCacheRetention({ cacheDir, logger: recordingLogger(), maxBytes: 2 ** 20 });
    const builder = createDataBuilder({ objectStore: store, cacheDir, logger: recordingLogger(), limit: retention });
    const data = await dataSetOf(store, { 'big.csv': csv(80_000) });
    const error = await failure(builder.databaseFile(data));
    expect(error.code).toBe('semantic_cache_full');
    expect(error.message).toMatch(
      /^The data of this model cannot be built: its files need 1\.\d MiB, and with the data already in the semantic /,
    );
    expect(error.message).toContain('would pass its cap of 1 MiB (SEMANTIC_CACHE_MAX_MB), even after removing every');
    expect(error.message).toMatch(/Ask the operator to raise SEMANTIC_CACHE_MAX_MB .*or make the project's data files/);
    expect(readdirSync(join(cacheDir, data.key))).toEqual([]);
  });

  it('refuses a built database that would pass it and removes it; a build that fits is kept', async () => {
    const cacheDir = cacheWith([]);
    // 100 KiB: the CSV (a few KiB) is admitted, the database (at least 256 KiB: DuckDB's blocks) is not.
    const retention = createCacheRetention({ cacheDir, logger: recordingLogger(), maxBytes: 100 * 1024 });
    const small = await dataSetOf(store, { 'small.csv': csv(100) });
    const tight = createDataBuilder({ objectStore: store, cacheDir, logger: recordingLogger(), limit: retention });
    const error = await failure(tight.databaseFile(small));
    expect(error.code).toBe('semantic_cache_full');
    expect(error.message).toMatch(/: its database takes 0\.\d+ MiB, and with the data already in the semantic cache /);
    expect(readdirSync(join(cacheDir, small.key))).toEqual([]);
    const roomy = createCacheRetention({ cacheDir, logger: recordingLogger(), maxBytes: 4 * 2 ** 20 });
    const builder = createDataBuilder({ objectStore: store, cacheDir, logger: recordingLogger(), limit: roomy });
    expect(await builder.databaseFile(small)).toBe(join(cacheDir, small.key, 'data.duckdb'));
  });
});
