/**
 * An in-process async mutex per key: work under one key runs one at a time, in arrival order.
 *
 * Source: ../shared/spec/semantic-query-service.md § What the service does (3) (materialisation per call).
 */

/**
 * Runs work exclusively per key.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export interface KeyedLock {
  /** Runs `work` once every earlier holder of `key` has finished; returns its outcome. */
  run<T>(key: string, work: () => Promise<T>): Promise<T>;
}

/**
 * Creates a lock table; a key's entry is dropped when its queue empties.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function createKeyedLock(): KeyedLock {
  const tails = new Map<string, Promise<void>>();
  return {
    async run<T>(key: string, work: () => Promise<T>): Promise<T> {
      const previous = tails.get(key) ?? Promise.resolve();
      let release!: () => void;
      const tail = new Promise<void>((resolve) => {
        release = resolve;
      });
      const chained = previous.then(() => tail);
      tails.set(key, chained);
      await previous;
      try {
        return await work();
      } finally {
        release();
        if (tails.get(key) === chained) tails.delete(key);
      }
    },
  };
}
