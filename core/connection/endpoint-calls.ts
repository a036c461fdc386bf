/**
 * The calls per minute of an endpoint (AG-UI, MCP, webhook, callback), the second half of admitting a request after
 * `admitCaller` (./admission.ts): each call that would start work counts once against its caller's limit and then
 * its endpoint's, in one round trip to the shared counters (the RateChain port), and a call over either is refused
 * 429 `rate_limited` with the seconds to wait. The use cases count a call themselves at the point where it would
 * start work (an AG-UI run before its turn is queued, an MCP tool call before its session opens), through an
 * {@link EndpointCallCounter} a front door makes once per request: nothing is handed back to the route layer.
 *
 * Source: spec/platform-service.md § Limits (endpoint calls per minute), § Errors (429 with a retry time);
 * docs/decisions.md D17 § 6, D28.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { RateChain } from '../ports/rate-limiter.ts';
import { recordRateLimitRefusal } from '../telemetry/instruments.ts';
import type { ConnectionRecord } from './model.ts';

/** What counting an endpoint's calls needs: the shared calls-per-minute counters. */
export interface EndpointRateDeps {
  endpointRates: RateChain;
}

/** A refusal over a rate: 429 `rate_limited`, with the whole seconds to wait (the answer's Retry-After). */
export type RateLimitedError = PlatformError & { retryAfterSeconds: number };

/** The 429 of a call over its caller's or its endpoint's calls per minute (`which`: from whom, or to what). */
export function rateLimited(retryAfterSeconds: number, which: string): RateLimitedError {
  const message = `Too many calls ${which}; retry in ${retryAfterSeconds} s.`;
  return Object.assign(new PlatformError('rate_limited', message, { status: 429 }), { retryAfterSeconds });
}

/**
 * Counts one call of caller `rateKey` on `connection`, per caller and then per endpoint (a call the caller's limit
 * refuses does not count against the endpoint's). @throws {@link RateLimitedError} over either limit
 */
export async function countEndpointCall(
  deps: EndpointRateDeps,
  connection: Pick<ConnectionRecord, '_id' | 'rate'>,
  rateKey: string,
): Promise<void> {
  const refused = await deps.endpointRates.consume(connection._id, [
    { key: `caller:${rateKey}`, points: connection.rate.perCaller },
    { key: 'endpoint', points: connection.rate.perEndpoint },
  ]);
  if (!refused) return;
  recordRateLimitRefusal(refused.index === 0 ? 'endpoint_caller' : 'endpoint');
  throw rateLimited(refused.retryAfterSeconds, refused.index === 0 ? 'from this caller' : 'to this endpoint');
}

/** One request's counter of the calls that start work (an MCP POST may carry several). */
export interface EndpointCallCounter {
  /** Counts one call. @throws {@link RateLimitedError} over a limit (not counted then) */
  count(): Promise<void>;
  /** The calls counted so far. */
  readonly counted: number;
}

/** The counter of one admitted caller's request on `connection`. */
export function endpointCallCounter(
  deps: EndpointRateDeps,
  connection: Pick<ConnectionRecord, '_id' | 'rate'>,
  rateKey: string,
): EndpointCallCounter {
  let counted = 0;
  return {
    async count() {
      await countEndpointCall(deps, connection, rateKey);
      counted += 1;
    },
    get counted() {
      return counted;
    },
  };
}
