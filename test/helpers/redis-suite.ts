/**
 * A real redis-server and one connection to it for the tests of one file: started in `beforeAll`, stopped in
 * `afterAll` (the connection first).
 */
import { afterAll, beforeAll } from 'vitest';
import { openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import { startRedis, type RunningRedis } from './redis-server.ts';

/** The file's redis-server and connection, set once `beforeAll` has run. */
export interface RedisSuite { server: RunningRedis; connection: RedisConnection }

/** Registers the hooks that start and stop the file's redis-server; read the fields inside tests and hooks. */
export function redisForSuite(): RedisSuite {
  const suite = {} as RedisSuite;
  beforeAll(async () => {
    suite.server = await startRedis();
    suite.connection = await openRedis(suite.server.url);
  });
  afterAll(async () => {
    await suite.connection?.quit();
    await suite.server?.stop();
  });
  return suite;
}
