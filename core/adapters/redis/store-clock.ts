/**
 * A {@link Clock} on the queue store's time: Redis `TIME`, read at start and every minute, gives this process's
 * offset from the store (taken at the middle of the round trip), and `now()` is the local time plus that offset.
 * Every dispatcher of one deployment shares the queue store, so heartbeats written and compared with this clock
 * agree across machines whose own clocks drift apart (within a round trip), which `Date.now()` does not. The
 * document store is not used for this: the DocumentStore port has no time of its own (SQLite has no server, and
 * MongoDB's `$$NOW` is not an operator the port offers).
 *
 * Source: docs/architecture.md § Life of a turn (heartbeats and staleness); spec/platform-service.md § Rules 3.
 */
import type { Clock } from '../../ports/clock.ts';

/** What the clock reads: ioredis's `time()` (seconds and microseconds as text). */
export interface TimeSource {
  time(): Promise<[string, string] | (string | number)[]>;
}

/** A clock on the queue store's time; `sync` reads the store again, `stop` ends the periodic reads. */
export interface StoreClock extends Clock {
  /** Reads the store's time again. @throws what the connection throws (the last offset is kept) */
  sync(): Promise<void>;
  stop(): void;
}

/** Options of {@link createStoreClock}. */
export interface StoreClockOptions {
  /** This machine's time in ms (default `Date.now`). */
  local?: () => number;
  /** How often the store's time is read again (ms); default 60 000; 0: never. */
  resyncMs?: number;
  /** Told when a periodic read fails (the last offset is kept). */
  onError?: (error: Error) => void;
}

/**
 * Creates the clock and reads the store's time once.
 * @throws what the first `TIME` throws (the queue store is down)
 */
export async function createStoreClock(store: TimeSource, options: StoreClockOptions = {}): Promise<StoreClock> {
  const local = options.local ?? (() => Date.now());
  let offset = 0;
  const sync = async () => {
    const sent = local();
    const [seconds, micros] = await store.time();
    const received = local();
    offset = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - Math.round((sent + received) / 2);
  };
  await sync();
  const every = options.resyncMs ?? 60_000;
  const resync = () => {
    sync().catch((error: Error) => options.onError?.(error));
  };
  const timer = every > 0 ? setInterval(resync, every) : undefined;
  timer?.unref?.();
  return { now: () => new Date(local() + offset), sync, stop: () => clearInterval(timer) };
}
