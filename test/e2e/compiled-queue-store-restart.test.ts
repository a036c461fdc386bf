/**
 * queue-store-restart.test.ts against the compiled executables (rebuilt by scripts/build when a source is newer).
 * Why compiled: dist/api and dist/dispatcher bundle BullMQ and ioredis (with its Lua scripts) against a real redis-
 * server.
 */
import { ensureDist } from '../helpers/product.ts';

process.env.CAIRN_E2E_DIST = '1';
ensureDist();
await import('./queue-store-restart.test.ts');
