/**
 * Group commit of inserts: the inserts a store's callers make in one turn of the event loop (a burst of webhook
 * claims, say) are written in one `BEGIN IMMEDIATE … COMMIT` instead of one transaction each, so the file's write
 * lock is taken and the WAL appended once per group rather than once per document. Each caller is still answered on
 * its own, after the commit: its insert's `duplicate_key` (another document of the group or of the file holds its
 * `_id` or a unique key; the group applies inserts in call order, so the first caller wins) or success. An insert
 * that fails otherwise (an engine error) aborts the group, whose inserts are then each written alone, so one failing
 * insert never fails the others. The group's transaction never spans an `await` (it runs synchronously inside
 * {@link writeWithoutBlocking}, which tries again after a timer while another connection holds the lock).
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore, embedded SQLite); docs/endpoints.md.
 */
import { isPlatformError } from '../../ports/platform-error.ts';
import { type SqlDriver, writeWithoutBlocking } from './sqlite-driver.ts';

/** One waiting insert: `write` runs it synchronously (inside the group's transaction or alone). */
interface Waiting {
  write: () => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Marks an insert of the group that succeeded (its slot in the outcomes holds its error otherwise). */
const written = Symbol('written');

/** Queues synchronous inserts and commits each event-loop turn's inserts together. */
export interface InsertBatcher {
  /**
   * Runs `write` (one synchronous INSERT, which throws PlatformError `duplicate_key` for a clash) in the next group
   * commit. @returns once its group is committed; rejects with its own error, or the commit's
   */
  insert(write: () => void): Promise<void>;
}

/**
 * An {@link InsertBatcher} on `driver`. A group is flushed on `setImmediate` after its first insert, so inserts made
 * in the same turn of the event loop (or while the previous group waits for the lock) share it.
 * @param busyTimeoutMs - how long a group keeps trying for another connection's write lock (the busy timeout)
 * @param assertOpen - throws once the store is closed (checked before each try)
 */
export function createInsertBatcher(driver: SqlDriver, busyTimeoutMs: number, assertOpen: () => void): InsertBatcher {
  const target: BatchTarget = { driver, busyTimeoutMs, assertOpen };
  let queued: Waiting[] = [];
  let scheduled = false;

  const flush = async () => {
    const group = queued;
    queued = [];
    try {
      await writeGroup(target, group);
    } finally {
      scheduled = queued.length > 0;
      if (scheduled) setImmediate(() => void flush());
    }
  };

  return {
    insert(write) {
      return new Promise<void>((resolve, reject) => {
        queued.push({ write, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(() => void flush());
        }
      });
    },
  };
}

/** Where a group is written: the driver, the busy timeout in milliseconds, the store's open check. */
interface BatchTarget {
  driver: SqlDriver;
  busyTimeoutMs: number;
  assertOpen: () => void;
}

/**
 * Writes `group` and answers each of its callers: one insert alone; more in one transaction, or each alone when an
 * engine error aborted it; a failed commit (or lock wait) rejects them all.
 */
async function writeGroup(target: BatchTarget, group: Waiting[]): Promise<void> {
  if (group.length === 1) {
    await writeAlone(target, group[0]);
    return;
  }
  let outcomes: unknown[] | undefined;
  try {
    outcomes = await writeWithoutBlocking(target.driver, target.busyTimeoutMs, () => writeTogether(target, group));
  } catch (error) {
    for (const item of group) item.reject(error);
    return;
  }
  if (outcomes === undefined) {
    for (const item of group) await writeAlone(target, item);
    return;
  }
  group.forEach((item, i) => (outcomes[i] === written ? item.resolve() : item.reject(outcomes[i])));
}

/** Writes one insert in a transaction of its own and answers its caller. */
async function writeAlone(target: BatchTarget, item: Waiting): Promise<void> {
  try {
    await writeWithoutBlocking(target.driver, target.busyTimeoutMs, () => {
      target.assertOpen();
      item.write();
    });
    item.resolve();
  } catch (error) {
    item.reject(error);
  }
}

/** The group in one transaction: each insert's outcome, or undefined when an engine error aborted it. */
function writeTogether(target: BatchTarget, group: Waiting[]): unknown[] | undefined {
  const { driver } = target;
  target.assertOpen();
  driver.exec('BEGIN IMMEDIATE');
  const outcomes: unknown[] = [];
  try {
    for (const item of group) {
      try {
        item.write();
        outcomes.push(written);
      } catch (error) {
        // A clash is this insert's answer (SQLite undid only its statement); anything else aborts the group.
        if (!isPlatformError(error, 'duplicate_key')) throw error;
        outcomes.push(error);
      }
    }
  } catch {
    try {
      driver.exec('ROLLBACK');
    } catch { /* the engine's error already ended the transaction */ }
    return undefined;
  }
  try {
    driver.exec('COMMIT');
  } catch (error) {
    try {
      driver.exec('ROLLBACK');
    } catch { /* the failed commit already ended the transaction */ }
    throw error;
  }
  return outcomes;
}
