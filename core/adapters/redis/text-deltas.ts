/**
 * TextDeltas and SessionChanges over Redis pub/sub on one channel per root session (`cairn:text:<rootId>`): a text
 * delta is its JSON, a change notification is the bare word `changed` (never valid JSON, so an older reader drops
 * it). Publishing uses the process's queue-store connection; subscribing uses one extra connection per process (a
 * subscribed Redis connection takes no other command), opened at the first subscription and shared by every stream,
 * MCP call and cancellation watch. When that connection comes back after a loss (a queue store restart), it
 * subscribes again and tells every change watcher to read again: notifications in between were lost.
 *
 * Source: spec/platform-service.md § AG-UI request (rule 3); docs/architecture.md § Ports and adapters,
 * § Queues and collections (other keys).
 */
import type { SessionChanges } from '../../ports/session-changes.ts';
import type { TextDelta, TextDeltas } from '../../ports/text-deltas.ts';
import type { RedisConnection } from './open-redis.ts';

const channelOf = (rootId: string) => `cairn:text:${rootId}`;
/** The message of a change notification. */
const CHANGED = 'changed';

/** One channel's listeners. */
interface Listeners {
  deltas: Set<(delta: TextDelta) => void>;
  changes: Set<() => void>;
  subscribed: Promise<unknown>;
}

/**
 * A TextDeltas hub and SessionChanges notifier on `redis`.
 * @param onError - told of a failed publish or subscription (streams then read on their safety timer only)
 */
export function createRedisTextDeltas(
  redis: RedisConnection,
  onError: (error: Error) => void = () => undefined,
): TextDeltas & SessionChanges & { close(): void } {
  let subscriber: RedisConnection | undefined;
  let readyOnce = false;
  const channels = new Map<string, Listeners>();
  const deliver = (channel: string, message: string) => {
    const listeners = channels.get(channel);
    if (!listeners) return;
    if (message === CHANGED) {
      for (const handler of [...listeners.changes]) handler();
      return;
    }
    let delta: TextDelta;
    try {
      delta = JSON.parse(message) as TextDelta;
    } catch {
      return;
    }
    for (const handler of [...listeners.deltas]) handler(delta);
  };
  /** Back after a loss: subscribe again (the client also does), then every watcher reads again. */
  const resubscribed = async (connection: RedisConnection) => {
    const names = [...channels.keys()];
    if (names.length > 0) await connection.subscribe(...names).catch((error: Error) => onError(error));
    for (const listeners of [...channels.values()]) for (const handler of [...listeners.changes]) handler();
  };
  const subscriberConnection = (): RedisConnection => {
    if (subscriber) return subscriber;
    const connection = (redis as { duplicate(): RedisConnection }).duplicate();
    connection.on('error', (error: Error) => onError(error));
    connection.on('message', deliver);
    connection.on('ready', () => {
      if (readyOnce) void resubscribed(connection);
      readyOnce = true;
    });
    subscriber = connection;
    return connection;
  };
  const publish = (rootId: string, message: string) => {
    redis.publish(channelOf(rootId), message).catch((error: Error) => onError(error));
  };
  type Handler<K extends keyof Listeners> = Listeners[K] extends Set<infer H> ? H : never;
  async function listen<K extends 'deltas' | 'changes'>(rootId: string, kind: K, handler: Handler<K>) {
    const channel = channelOf(rootId);
    let listeners = channels.get(channel);
    if (!listeners) {
      const subscribed = subscriberConnection().subscribe(channel);
      channels.set(channel, listeners = { deltas: new Set(), changes: new Set(), subscribed });
      subscribed.catch(() => {
        if (channels.get(channel)?.subscribed === subscribed) channels.delete(channel);
      });
    }
    // Every listener of a channel waits for its subscription (a second one may come while the first is on its way).
    await listeners.subscribed;
    (listeners[kind] as Set<unknown>).add(handler);
    const own = listeners;
    return () => {
      (own[kind] as Set<unknown>).delete(handler);
      if (own.deltas.size > 0 || own.changes.size > 0 || channels.get(channel) !== own) return;
      channels.delete(channel);
      subscriber?.unsubscribe(channel).catch((error: Error) => onError(error));
    };
  }
  return {
    /** Closes the subscriber connection (if one was opened). */
    close() {
      subscriber?.disconnect();
    },
    publish(delta) {
      publish(delta.rootId, JSON.stringify(delta));
    },
    subscribe: (rootId, onDelta) => listen(rootId, 'deltas', onDelta),
    changed(rootId) {
      publish(rootId, CHANGED);
    },
    watch: (rootId, onChange) => listen(rootId, 'changes', onChange),
  };
}
