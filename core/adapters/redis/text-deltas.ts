/**
 * TextDeltas over Redis pub/sub: one channel per root session (`cairn:text:<rootId>`). Publishing uses the
 * process's queue-store connection; subscribing uses one extra connection per process (a subscribed Redis
 * connection takes no other command), opened at the first subscription and shared by every stream.
 *
 * Source: spec/platform-service.md § AG-UI request (rule 3); ../shared/ARCHITECTURE.md § Ports, adapters.
 */
import type { TextDelta, TextDeltas } from '../../ports/text-deltas.ts';
import type { RedisConnection } from './open-redis.ts';

const channelOf = (rootId: string) => `cairn:text:${rootId}`;

/**
 * A TextDeltas hub on `redis`.
 * @param onError - told of a failed publish or subscription (the stream then shows whole messages only)
 */
export function createRedisTextDeltas(redis: RedisConnection, onError: (error: Error) => void = () => undefined): TextDeltas & { close(): void } {
  let subscriber: RedisConnection | undefined;
  const handlers = new Map<string, Set<(delta: TextDelta) => void>>();
  const subscriberConnection = (): RedisConnection => {
    if (subscriber) return subscriber;
    const connection = (redis as { duplicate(): RedisConnection }).duplicate();
    connection.on('error', (error: Error) => onError(error));
    connection.on('message', (channel: string, message: string) => {
      const set = handlers.get(channel);
      if (!set) return;
      let delta: TextDelta;
      try {
        delta = JSON.parse(message) as TextDelta;
      } catch {
        return;
      }
      for (const handler of set) handler(delta);
    });
    subscriber = connection;
    return connection;
  };
  return {
    /** Closes the subscriber connection (if one was opened). */
    close() { subscriber?.disconnect(); },
    publish(delta) {
      redis.publish(channelOf(delta.rootId), JSON.stringify(delta)).catch((error: Error) => onError(error));
    },
    async subscribe(rootId, onDelta) {
      const channel = channelOf(rootId);
      let set = handlers.get(channel);
      if (!set) {
        handlers.set(channel, (set = new Set()));
        await subscriberConnection().subscribe(channel);
      }
      set.add(onDelta);
      return () => {
        set.delete(onDelta);
        if (set.size > 0 || handlers.get(channel) !== set) return;
        handlers.delete(channel);
        subscriber?.unsubscribe(channel).catch((error: Error) => onError(error));
      };
    },
  };
}
