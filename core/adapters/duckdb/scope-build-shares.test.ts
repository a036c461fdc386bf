/**
 * The scope builder's shares against real DuckDB (docs/decisions.md D18 § 7): another project's six
 * slow builds do not delay a quiet project's build; a query waits for its build to start at most the slots' wait and
 * is then told to try again; a build whose only caller has gone is interrupted; a refused view_query stays refused
 * while its scope is unchanged (not only for a minute). No timing threshold: outcomes and order are asserted.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryObjectStore } from '../../testing/memory-object-store.ts';
import type { DataSet } from '../../ports/query-engine.ts';
import { createDataBuilder } from './data-build.ts';
import { createScopeBuilder } from './scope-build.ts';
import { dataSetOf, failure, recordingLogger, temporaryDirectory, writeDataFiles } from './test-fixtures.ts';

let directory: { path: string; remove: () => Promise<void> };
let cacheDir: string;
let data: DataSet;
let dataFile: string;
const store = createMemoryObjectStore();
/** A view_query that runs far past any test (10^12 rows) and honours an interrupt. */
const slowSql = 'SELECT count(*) AS n FROM range(1000000) a, range(1000000) b WHERE hash(a.range + b.range) = 42';
const quickViews = [{ name: 'events', sql: 'SELECT id FROM data.events WHERE id < 5' }];

beforeAll(async () => {
  directory = await temporaryDirectory('cairn-duckdb-shares-');
  cacheDir = join(directory.path, 'cache');
  const files = await writeDataFiles(directory.path, { 'source.duckdb': 'events=SELECT range AS id FROM range(100)' });
  data = await dataSetOf(store, files);
  dataFile = await createDataBuilder({ objectStore: store, cacheDir, logger: recordingLogger() }).databaseFile(data);
});

afterAll(async () => {
  vi.useRealTimers();
  await directory.remove();
});

const request = (scope: string, sql: string, projectId: string, signal?: AbortSignal) => ({
  dataKey: data.key,
  dataFile,
  scope,
  views: [{ name: 'events', sql }],
  share: { projectId, orgId: `org-of-${projectId}` },
  signal,
});

describe('scope builds are shared per project', () => {
  it("build a quiet project's scope while another project's six slow builds are in flight", async () => {
    const logger = recordingLogger();
    const builder = createScopeBuilder({ cacheDir, logger });
    const busyCaller = new AbortController();
    const settled: string[] = [];
    const busy = Array.from(
      { length: 6 },
      (_, i) =>
        builder.scopeFile(request(`_scope_busy${i}_000000000001`, slowSql, 'busy', busyCaller.signal))
          .then(() => settled.push(`busy ${i} built`), (error: { code: string }) => settled.push(error.code)),
    );
    const quiet = await builder.scopeFile({ ...request('_scope_quiet_000000000001', '', 'quiet'), views: quickViews });
    settled.push('quiet built');
    await quiet.release();
    expect(existsSync(quiet.path)).toBe(true);
    // The busy project's caller goes away: its running build is interrupted, its queued ones leave the line.
    busyCaller.abort();
    await Promise.all(busy);
    expect(settled).toEqual(['quiet built', ...Array(6).fill('query_cancelled')]);
    const interrupted = logger.lines.filter((line) =>
      line.message === 'scope build interrupted: no caller waits for it'
    );
    expect(interrupted).toHaveLength(1);
    // The interrupted build ends and leaves nothing behind (no file, no temporary file).
    const busyFiles = () => readdirSync(join(cacheDir, data.key, 'scopes')).filter((name) => name.includes('busy'));
    while (busyFiles().length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  }, 60_000);

  it('tells a query whose build did not start within the wait to try again, and keeps the build queued', async () => {
    const builder = createScopeBuilder({ cacheDir, logger: recordingLogger(), limits: { slots: 1, maxWaitMs: 300 } });
    const busyCaller = new AbortController();
    const running = failure(builder.scopeFile(request('_scope_hog_000000000001', slowSql, 'hog', busyCaller.signal)));
    const waiting = { ...request('_scope_late_000000000001', '', 'late'), views: quickViews };
    const error = await failure(builder.scopeFile(waiting));
    expect(error.code).toBe('query_busy');
    expect(error.message).toBe(
      "Query not run: this model's data is new to the engine and its build did not start within 0.3 s (the longest " +
        "a query waits for one); the engine is building other projects' data. The build stays queued: try again in " +
        'half a minute.',
    );
    busyCaller.abort();
    expect((await running).code).toBe('query_cancelled');
    // The build stayed queued (prepared): it ran once the slot was free, and the next try finds it built.
    const again = await builder.scopeFile(waiting);
    await again.release();
    expect(existsSync(again.path)).toBe(true);
  }, 60_000);

  it('keeps refusing a failing view_query while its scope is unchanged, past a minute, building it once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const logger = recordingLogger();
    const builder = createScopeBuilder({ cacheDir, logger });
    const failing = request(
      '_scope_broken_000000000001',
      "SELECT CAST('x' || id AS INTEGER) AS n FROM data.events",
      'p',
    );
    expect((await failure(builder.scopeFile(failing))).code).toBe('view_materialisation_failed');
    vi.setSystemTime(Date.now() + 3_600_000);
    expect((await failure(builder.scopeFile(failing))).code).toBe('view_materialisation_failed');
    const builds = logger.lines.filter((line) => line.message === 'view_query could not be materialised');
    expect(builds).toHaveLength(1);
    // A changed view_query (a new scope) is built.
    const fixed = await builder.scopeFile({ ...failing, scope: '_scope_broken_000000000002', views: quickViews });
    await fixed.release();
    expect(existsSync(fixed.path)).toBe(true);
    vi.useRealTimers();
  });
});
