/**
 * An in-process SessionChanges hub for tests: notifications go to the watchers of the same hub at once. `lost()`
 * acts out a subscription made again after a lost connection (every watcher is told to read again); `published`
 * lists the root ids notified, in order.
 *
 * Source: core/ports/session-changes.ts; docs/architecture.md § Ports and adapters.
 */
import type { SessionChanges } from '../ports/session-changes.ts';

/** The hub, with what the tests look at. */
export interface MemorySessionChanges extends SessionChanges {
  /** Root ids notified so far, in order. */
  published: string[];
  /** How many watchers are subscribed now. */
  watchers(): number;
  /** Tells every watcher to read again, as a subscription made again after a lost connection does. */
  lost(): void;
  /** While true, notifications are dropped (a failed publish). */
  dropping: boolean;
}

/** A new, empty hub. */
export function createMemorySessionChanges(): MemorySessionChanges {
  const handlers = new Map<string, Set<() => void>>();
  const hub: MemorySessionChanges = {
    published: [],
    dropping: false,
    watchers: () => [...handlers.values()].reduce((n, set) => n + set.size, 0),
    lost() {
      for (const set of [...handlers.values()]) for (const handler of [...set]) handler();
    },
    changed(rootId) {
      hub.published.push(rootId);
      if (hub.dropping) return;
      for (const handler of [...(handlers.get(rootId) ?? [])]) handler();
    },
    async watch(rootId, onChange) {
      let set = handlers.get(rootId);
      if (!set) handlers.set(rootId, set = new Set());
      set.add(onChange);
      const own = set;
      return () => {
        own.delete(onChange);
        if (own.size === 0 && handlers.get(rootId) === own) handlers.delete(rootId);
      };
    },
  };
  return hub;
}
