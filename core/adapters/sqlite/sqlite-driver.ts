/**
 * A tiny synchronous SQLite interface over `node:sqlite` (Node ≥ 22.5) and `bun:sqlite` (Bun),
 * so the document store runs unchanged on both runtimes.
 *
 * Source: docs/architecture.md § Ports and adapters (DocumentStore, embedded SQLite).
 */

/** A value SQLite binds or returns for the columns this adapter uses. */
export type SqlValue = string | number | bigint | null | Uint8Array;

/** One result row: column name → value. */
export type SqlRow = Record<string, SqlValue>;

/** A prepared statement; all calls are synchronous. */
export interface SqlStatement {
  /** Executes the statement; `changes` is the number of rows written. */
  run(...params: SqlValue[]): { changes: number };
  /** Every result row. */
  all(...params: SqlValue[]): SqlRow[];
  /** The first result row, or undefined when there is none. */
  get(...params: SqlValue[]): SqlRow | undefined;
  /** The result rows one at a time (stop early by leaving the loop; nothing may write meanwhile). */
  iterate(...params: SqlValue[]): IterableIterator<SqlRow>;
}

/** A synchronous connection to one SQLite file. */
export interface SqlDriver {
  /** Runs one or more statements without parameters. */
  exec(sql: string): void;
  /**
   * A prepared statement for `sql`, cached per connection by its text (the {@link STATEMENT_CACHE_SIZE} texts prepared
   * last; a text dropped from the cache is prepared again when it comes back).
   */
  prepare(sql: string): SqlStatement;
  /**
   * Runs the synchronous `fn` with the connection's busy timeout at `ms` (0: never wait inside SQLite for another
   * connection's lock). The next statement run outside such a call sets the connection's own busy timeout (the one it
   * was opened with) back first; a timeout that already has the wanted value is not set again, so back-to-back writes
   * set it once, not twice each (docs/decisions.md D24 § 3).
   * @returns what `fn` returns
   * @throws what `fn` throws
   */
  withBusyTimeout<R>(ms: number, fn: () => R): R;
  /** Closes the connection. */
  close(): void;
  /** Which engine backs the connection. */
  readonly engine: 'node:sqlite' | 'bun:sqlite';
}

interface NativeStatement {
  run(...params: unknown[]): { changes: number | bigint };
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

interface NativeDatabase {
  exec(sql: string): void;
  prepare(sql: string): NativeStatement;
  close(): void;
}

/**
 * Default busy timeout of every connection, in ms: how long a statement waits for another connection's
 * write lock before failing with SQLITE_BUSY ("database is locked"). A connection without one fails at
 * once whenever another process writes, e.g. a lease renewal during a large call-log write.
 */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * Opens the SQLite file at `path` (created when missing) with the runtime's built-in engine:
 * `bun:sqlite` when `globalThis.Bun` exists, `node:sqlite` otherwise, and sets its busy timeout.
 * @param path - file path of the database
 * @param options - `busyTimeoutMs`: the connection's busy timeout in ms, default {@link SQLITE_BUSY_TIMEOUT_MS}
 * @returns a connection with a per-connection statement cache
 * @throws the engine's error when the file cannot be opened
 */
export async function openSqlDriver(path: string, options: { busyTimeoutMs?: number } = {}): Promise<SqlDriver> {
  const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;
  const native = isBun ? await openBun(path) : await openNode(path);
  const busyTimeoutMs = options.busyTimeoutMs ?? SQLITE_BUSY_TIMEOUT_MS;
  try {
    if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
      throw new Error(`busyTimeoutMs must be a whole number of milliseconds >= 0, got ${busyTimeoutMs}`);
    }
    native.exec(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  } catch (error) {
    native.close();
    throw error;
  }
  return wrap(native, isBun ? 'bun:sqlite' : 'node:sqlite', busyTimeoutMs);
}

async function openNode(path: string): Promise<NativeDatabase> {
  const specifier = 'node:sqlite';
  const mod = (await import(/* @vite-ignore */ specifier)) as { DatabaseSync: new (p: string) => NativeDatabase };
  return new mod.DatabaseSync(path);
}

async function openBun(path: string): Promise<NativeDatabase> {
  const specifier = 'bun:sqlite';
  const mod = (await import(/* @vite-ignore */ specifier)) as {
    Database: new (p: string, o: { create: boolean }) => NativeDatabase;
  };
  return new mod.Database(path, { create: true });
}

/**
 * How many prepared statements a connection keeps, by SQL text. The adapter's texts depend on a filter's shape (its
 * fields, the length of an `$in` list), not on its values: a few hundred at most; the bound keeps a long-lived process
 * from keeping one statement for every `$in` length it ever saw. The oldest text is dropped first.
 */
export const STATEMENT_CACHE_SIZE = 256;

function wrap(native: NativeDatabase, engine: SqlDriver['engine'], busyTimeoutMs: number): SqlDriver {
  const cache = new Map<string, SqlStatement>();
  const timeouts = new Map<number, NativeStatement>();
  let current = busyTimeoutMs;
  let scoped = 0;
  const setTimeoutTo = (ms: number) => {
    let statement = timeouts.get(ms);
    if (statement === undefined) {
      statement = native.prepare(`PRAGMA busy_timeout = ${ms}`);
      timeouts.set(ms, statement);
    }
    statement.get();
    current = ms;
  };
  // Outside every withBusyTimeout call: the connection's own busy timeout, set again only when a call changed it.
  const settle = () => {
    if (scoped === 0 && current !== busyTimeoutMs) setTimeoutTo(busyTimeoutMs);
  };
  return {
    engine,
    exec(sql) {
      settle();
      native.exec(sql);
    },
    prepare(sql) {
      let statement = cache.get(sql);
      if (statement === undefined) {
        statement = statementOf(native.prepare(sql), settle);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
        cache.set(sql, statement);
      }
      return statement;
    },
    withBusyTimeout(ms, fn) {
      const outer = current;
      if (current !== ms) setTimeoutTo(ms);
      scoped += 1;
      try {
        return fn();
      } finally {
        scoped -= 1;
        if (scoped > 0 && current !== outer) setTimeoutTo(outer);
      }
    },
    close() {
      cache.clear();
      timeouts.clear();
      native.close();
    },
  };
}

/** The {@link SqlStatement} of `raw`; `settle` runs before each call (the connection's busy timeout). */
function statementOf(raw: NativeStatement, settle: () => void): SqlStatement {
  return {
    run(...params) {
      settle();
      return { changes: Number(raw.run(...params).changes) };
    },
    all(...params) {
      settle();
      return raw.all(...params) as SqlRow[];
    },
    get(...params) {
      settle();
      // bun:sqlite answers null for "no row", node:sqlite undefined.
      return (raw.get(...params) ?? undefined) as SqlRow | undefined;
    },
    iterate(...params) {
      settle();
      return raw.iterate(...params) as IterableIterator<SqlRow>;
    },
  };
}

/**
 * True when `error` is SQLite's unique or primary-key constraint failure
 * (extended codes 2067 SQLITE_CONSTRAINT_UNIQUE, 1555 SQLITE_CONSTRAINT_PRIMARYKEY).
 * node:sqlite puts the code in `errcode`, bun:sqlite in `errno`.
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { errcode, errno } = error as { errcode?: unknown; errno?: unknown };
  const code = typeof errcode === 'number' ? errcode : errno;
  return code === 2067 || code === 1555;
}

/**
 * True when `error` is SQLite's SQLITE_BUSY ("database is locked": another connection holds the write lock), any
 * extended code (primary code 5). node:sqlite puts the code in `errcode`, bun:sqlite in `errno`.
 */
export function isBusy(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { errcode, errno } = error as { errcode?: unknown; errno?: unknown };
  const code = typeof errcode === 'number' ? errcode : errno;
  return typeof code === 'number' && (code & 0xff) === 5;
}

/** Longest pause between two tries of a write that found the file locked, in ms. */
const MAX_WRITE_BACKOFF_MS = 16;

/**
 * Runs the synchronous write `fn` without waiting inside SQLite for another connection's write lock: `fn` runs with
 * the connection's busy timeout at 0 ({@link SqlDriver.withBusyTimeout}), and when it fails with SQLITE_BUSY (it held
 * nothing: a statement or a `BEGIN IMMEDIATE` that cannot take the lock fails before writing) it is tried again after
 * a timer (1 ms, doubling to 16 ms, with jitter), so the event loop serves other work meanwhile; any other statement
 * runs with the connection's own busy timeout. After `busyTimeoutMs` of tries the last SQLITE_BUSY error is thrown, as
 * a blocking wait would have.
 * Source: docs/architecture.md § Queues and collections (the embedded document store is shared by processes).
 * @param busyTimeoutMs - the connection's busy timeout (the budget of the tries), in ms
 * @throws the error of `fn`; SQLITE_BUSY once the budget is spent
 */
export async function writeWithoutBlocking<R>(driver: SqlDriver, busyTimeoutMs: number, fn: () => R): Promise<R> {
  const started = Date.now();
  for (let pause = 1;; pause = Math.min(pause * 2, MAX_WRITE_BACKOFF_MS)) {
    try {
      return driver.withBusyTimeout(0, fn);
    } catch (error) {
      if (!isBusy(error) || Date.now() - started >= busyTimeoutMs) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())));
  }
}

/**
 * Runs `fn` inside `BEGIN IMMEDIATE … COMMIT` (rolled back when `fn` throws). `fn` must be
 * synchronous: an open write transaction must never span an `await`, or a second connection in the
 * same process would block the event loop on `busy_timeout` while holding nothing it can release.
 */
export function inImmediateTransaction<R>(driver: SqlDriver, fn: () => R): R {
  driver.exec('BEGIN IMMEDIATE');
  let result: R;
  try {
    result = fn();
  } catch (error) {
    driver.exec('ROLLBACK');
    throw error;
  }
  driver.exec('COMMIT');
  return result;
}
