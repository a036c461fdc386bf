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

/** What the hub's methods share: the publishing connection, the subscriber connection, the channels' listeners. */
interface Hub {
  redis: RedisConnection;
  onError: (error: Error) => void;
  /** The subscribing connection, opened at the first subscription. */
  subscriber?: RedisConnection;
  /** Whether the subscriber was ready once (a later `ready` is a reconnection). */
  readyOnce: boolean;
  channels: Map<string, Listeners>;
}

/**
 * A TextDeltas hub and SessionChanges notifier on `redis`.
 * @param onError - told of a failed publish or subscription (streams then read on their safety timer only)
 */
export function createRedisTextDeltas(
  redis: RedisConnection,
  onError: (error: Error) => void = () => undefined,
): TextDeltas & SessionChanges & { close(): void } {
  const hub: Hub = { redis, onError, readyOnce: false, channels: new Map() };
  const publish = (rootId: string, message: string) => {
    redis.publish(channelOf(rootId), message).catch((error: Error) => onError(error));
  };
  return {
    /** Closes the subscriber connection (if one was opened). */
    close() {
      hub.subscriber?.disconnect();
    },
    publish(delta) {
      publish(delta.rootId, JSON.stringify(delta));
    },
    subscribe: (rootId, onDelta) => listen(hub, rootId, 'deltas', onDelta),
    changed(rootId) {
      publish(rootId, CHANGED);
    },
    watch: (rootId, onChange) => listen(hub, rootId, 'changes', onChange),
  };
}

/** Hands a channel's message to its listeners: a change to the watchers, a delta (JSON) to the streams. */
function deliver(hub: Hub, channel: string, message: string): void {
  const listeners = hub.channels.get(channel);
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
}

/** Back after a loss: subscribe again (the client also does), then every watcher reads again. */
async function resubscribed(hub: Hub, connection: RedisConnection): Promise<void> {
  const names = [...hub.channels.keys()];
  if (names.length > 0) await connection.subscribe(...names).catch((error: Error) => hub.onError(error));
  for (const listeners of [...hub.channels.values()]) for (const handler of [...listeners.changes]) handler();
}

/** The subscribing connection, opened (a duplicate of the publishing one) on first use. */
function subscriberConnection(hub: Hub): RedisConnection {
  if (hub.subscriber) return hub.subscriber;
  const connection = (hub.redis as { duplicate(): RedisConnection }).duplicate();
  connection.on('error', (error: Error) => hub.onError(error));
  connection.on('message', (channel: string, message: string) => deliver(hub, channel, message));
  connection.on('ready', () => {
    if (hub.readyOnce) void resubscribed(hub, connection);
    hub.readyOnce = true;
  });
  hub.subscriber = connection;
  return connection;
}

type Handler<K extends keyof Listeners> = Listeners[K] extends Set<infer H> ? H : never;

/** Adds `handler` to `rootId`'s channel (subscribed first); returns its removal, unsubscribing the channel's last. */
async function listen<K extends 'deltas' | 'changes'>(
  hub: Hub,
  rootId: string,
  kind: K,
  handler: Handler<K>,
): Promise<() => void> {
  const { channels } = hub;
  const channel = channelOf(rootId);
  let listeners = channels.get(channel);
  if (!listeners) {
    const subscribed = subscriberConnection(hub).subscribe(channel);
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
    hub.subscriber?.unsubscribe(channel).catch((error: Error) => hub.onError(error));
  };
}
