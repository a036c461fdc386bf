/**
 * The per-user ceiling on a real Redis (the count every API replica shares), as the request rules hand it
 * to routes: over PLATFORM_USER_RATE_PER_MINUTE one person gets 429 with Retry-After, others keep going.
 * The request rules apply it to the routes that start work (route-classes.ts `userCeilingClass`);
 * test/e2e/user-ceiling.test.ts drives it through the proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openRedis, type RedisConnection } from '../../../core/adapters/redis/index.ts';
import type { Logger } from '../../../core/ports/logger.ts';
import { startRedis, type RunningRedis } from '../../../test/helpers/redis-server.ts';
import { errorToResponse } from '../http-helpers.ts';
import { requestRules } from './request-rules.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const person = (id: string) => ({ id, email: `${id}@example.com`, emailVerified: true });
let server: RunningRedis;
let redis: RedisConnection;

beforeAll(async () => {
  server = await startRedis();
  redis = await openRedis(server.url);
});
afterAll(async () => {
  redis?.disconnect();
  await server?.stop();
});

describe('per-user ceiling (PLATFORM_USER_RATE_PER_MINUTE)', () => {
  it('answers 429 with Retry-After once one person exceeds the ceiling, counted across replicas; others keep going', async () => {
    const replica = () => requestRules({
      signIn: { mode: 'dev-user' }, identity: { emailVerification: true }, trustedProxies: [], allowedOrigins: [],
      accessLog: 'off', log: () => undefined, userRatePerMinute: 3, redis, logger,
    });
    const [a, b] = [replica(), replica()];
    await a.consumeUserRate(person('ada'));
    await b.consumeUserRate(person('ada'));
    await a.consumeUserRate(person('ada'));
    const refused = await b.consumeUserRate(person('ada')).then(() => undefined, (error: unknown) => error);
    const response = errorToResponse(refused, logger);
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await response.json()).toMatchObject({ error: { code: 'rate_limited' } });
    await expect(a.consumeUserRate(person('bob'))).resolves.toBeUndefined();
  });
});
