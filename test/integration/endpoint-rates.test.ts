/**
 * The endpoints' calls-per-minute counters (bins/api/endpoint-rate.ts over core/adapters/rate-limit/rate-chain.ts)
 * on a real redis-server and in process memory: a call counts per caller and then per endpoint in ONE round trip to
 * the queue store (one script call), a call the caller's limit refuses leaves the endpoint's count alone (one loud
 * caller cannot shut out the others), and counters of two connections are apart.
 * Source: spec/platform-service.md § Limits (endpoint calls per minute), § Errors (429 with a retry time).
 */
import { describe, expect, it } from 'vitest';
import { endpointLimiters } from '../../bins/api/endpoint-rate.ts';
import { countEndpointCall, type RateLimitedError } from '../../core/connection/endpoint-calls.ts';
import type { RateChain } from '../../core/ports/rate-limiter.ts';
import { openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import { redisForSuite } from '../helpers/redis-suite.ts';

const suite = redisForSuite();

/** One call counted by the domain (core/connection/endpoint-calls.ts): undefined, or which limit refused and when. */
async function consumeEndpointRates(
  endpointRates: RateChain, connection: { _id: string; rate: { perCaller: number; perEndpoint: number } }, caller: string,
): Promise<{ which: string; retryAfterSeconds: number } | undefined> {
  try {
    await countEndpointCall({ endpointRates }, connection, caller);
    return undefined;
  } catch (error) {
    const refused = error as RateLimitedError;
    expect(refused).toMatchObject({ code: 'rate_limited', status: 429 });
    return { which: /from this caller/.test(refused.message) ? 'from this caller' : 'to this endpoint', retryAfterSeconds: refused.retryAfterSeconds };
  }
}

/** Calls of each script command since the last CONFIG RESETSTAT (INFO commandstats). */
function scriptCalls(): number {
  const stats = suite.server.cli('info', 'commandstats');
  return [...stats.matchAll(/^cmdstat_(?:eval|evalsha|fcall):calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

const stores: Array<[string, () => RedisConnection | undefined]> = [
  ['the shared queue store', () => suite.connection],
  ['process memory', () => undefined],
];

describe.each(stores)('endpoint rates in %s', (_, store) => {
  it('refuses per caller first, and a refused caller does not use up the endpoint', async () => {
    const counters = endpointLimiters(store());
    const hook = { _id: `hook-${Math.random()}`, rate: { perCaller: 2, perEndpoint: 3 } };
    const call = (caller: string) => consumeEndpointRates(counters, hook, caller);
    expect(await call('10.0.0.1')).toBeUndefined();
    expect(await call('10.0.0.1')).toBeUndefined();
    for (let i = 0; i < 5; i += 1) {
      const refused = await call('10.0.0.1');
      expect(refused?.which).toBe('from this caller');
      expect(refused?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(refused?.retryAfterSeconds).toBeLessThanOrEqual(60);
    }
    // The endpoint counted 2 of its 3: one more caller is taken, the next is refused at the endpoint.
    expect(await call('10.0.0.2')).toBeUndefined();
    expect((await call('10.0.0.3'))?.which).toBe('to this endpoint');
    // Another connection counts apart.
    const other = { _id: `other-${Math.random()}`, rate: { perCaller: 2, perEndpoint: 3 } };
    expect(await consumeEndpointRates(counters, other, '10.0.0.1')).toBeUndefined();
  });
});

describe('endpoint rates in the shared queue store', () => {
  it('count both limits of a call in one round trip (one script call per call)', async () => {
    const counters = endpointLimiters(suite.connection);
    const hook = { _id: 'round-trips', rate: { perCaller: 600, perEndpoint: 600 } };
    await consumeEndpointRates(counters, hook, 'warm-up');
    suite.server.cli('config', 'resetstat');
    for (let i = 0; i < 10; i += 1) {
      expect(await consumeEndpointRates(counters, hook, `caller-${i % 3}`)).toBeUndefined();
    }
    expect(scriptCalls()).toBe(10);
  });

  it('shares the count between two API processes (two connections to the store)', async () => {
    const second = await openRedis(suite.server.url);
    try {
      const hook = { _id: `shared-${Math.random()}`, rate: { perCaller: 3, perEndpoint: 3 } };
      const [a, b] = [endpointLimiters(suite.connection), endpointLimiters(second)];
      expect(await consumeEndpointRates(a, hook, 'x')).toBeUndefined();
      expect(await consumeEndpointRates(b, hook, 'x')).toBeUndefined();
      expect(await consumeEndpointRates(a, hook, 'x')).toBeUndefined();
      expect((await consumeEndpointRates(b, hook, 'x'))?.which).toBe('from this caller');
    } finally {
      await second.quit();
    }
  });
});
