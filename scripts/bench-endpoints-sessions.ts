/**
 * Sessions of a bench workflow, counted in the product's embedded document store (`<data dir>/docdb.sqlite`,
 * read through the SQLite adapter beside the running product): the API lists at most 500, the bench opens
 * thousands.
 */
import { join } from 'node:path';
import { openSqliteDocumentStore } from '../core/adapters/sqlite/index.ts';

/**
 * Root sessions of `workflow` in the store under `dataDir` (only those no longer running when `settled`), or
 * undefined when the store cannot be read.
 */
export async function countSessions(dataDir: string, workflow: string, settled = false): Promise<number | undefined> {
  try {
    const docs = await openSqliteDocumentStore({ path: join(dataDir, 'docdb.sqlite') });
    try {
      return await docs.collection('sessions').countDocuments({ workflow, depth: 0, ...(settled ? { status: { $ne: 'running' } } : {}) });
    } finally {
      await docs.close();
    }
  } catch {
    return undefined;
  }
}

/**
 * Polls every 250 ms until `workflow` has at least `count` sessions (that no longer run, with `options.settled`: the
 * dispatcher's turn of each ran), for at most `seconds`; then, with `options.thenWaitMs`, waits that long more and
 * counts again (to see a late duplicate).
 * @returns whether the count was reached, when (performance.now()), and the last count
 */
export async function waitForSessions(dataDir: string, workflow: string, count: number, seconds: number, options: { settled?: boolean; thenWaitMs?: number } = {}): Promise<{ done: boolean; at: number; count: number }> {
  const settleMs = options.thenWaitMs ?? 0;
  const deadline = performance.now() + seconds * 1000;
  let seen = 0;
  while (performance.now() < deadline) {
    seen = (await countSessions(dataDir, workflow, options.settled)) ?? 0;
    if (seen >= count) {
      const at = performance.now();
      if (settleMs > 0) {
        await new Promise((r) => setTimeout(r, settleMs));
        seen = (await countSessions(dataDir, workflow, options.settled)) ?? seen;
      }
      return { done: true, at, count: seen };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { done: false, at: performance.now(), count: seen };
}
