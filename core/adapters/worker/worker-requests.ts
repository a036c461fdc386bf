/**
 * A worker's requests on its channel: the per-worker token checked in constant time, the reply refusing a request
 * without it, and the broker's answer to a request as it crosses the channel (a PlatformError's code and message,
 * anything else a fixed error that names nothing).
 *
 * Source: spec/platform-service.md § Rules 6 (reaches platform data only through the process that started it);
 * § Operational log lines ([worker]).
 */
import { timingSafeEqual } from 'node:crypto';
import { isPlatformError } from '../../ports/platform-error.ts';
import type { BrokerHandler } from '../../ports/worker.ts';
import type { ReplyMessage, WireError, WorkerMessage } from './protocol.ts';

/**
 * Whether `message` carries `token` (base64url), compared in constant time.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export function carriesToken(message: WorkerMessage, token: Buffer): boolean {
  if (typeof message?.token !== 'string') return false;
  const given = Buffer.from(message.token, 'base64url');
  return given.length === token.length && timingSafeEqual(given, token);
}

/**
 * The reply to a refused request (no token, a wrong one, or after the worker's end): never data; undefined when
 * `message` is not a request.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export function refusedReply(message: WorkerMessage): ReplyMessage | undefined {
  if (message?.type !== 'request' || typeof message.id !== 'number') return undefined;
  return {
    type: 'reply',
    id: message.id,
    error: {
      code: 'worker_token_refused',
      message: "the request did not carry this worker's token, or the worker has ended",
    },
  };
}

/**
 * The broker's answer to operation `op` with `args`: its result (null for none), or its error as it crosses the
 * channel (`worker_request_failed` for anything but a PlatformError).
 *
 * Source: spec/platform-service.md § Rules 6
 */
export async function brokerReply(
  broker: BrokerHandler,
  op: string,
  args: unknown,
): Promise<{ result: unknown } | { error: WireError }> {
  try {
    return { result: (await broker(String(op), args)) ?? null };
  } catch (error) {
    return {
      error: isPlatformError(error)
        ? { code: error.code, message: error.message }
        : { code: 'worker_request_failed', message: 'the platform could not answer this request' },
    };
  }
}
