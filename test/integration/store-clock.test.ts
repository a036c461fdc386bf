/**
 * Staleness compares one clock: two dispatchers whose own clocks are 10 minutes apart write and judge heartbeats on
 * the queue store's clock (a real redis-server's TIME), so the one ahead does not fail the other's live turn as
 * stale, which it does on each machine's own clock.
 *
 * Source: docs/architecture.md § Life of a turn; core/adapters/redis/store-clock.ts.
 */
import { describe, expect, it } from 'vitest';
import { createStoreClock } from '../../core/adapters/redis/index.ts';
import { cryptoIds } from '../../core/adapters/runtime/system.ts';
import type { Clock } from '../../core/ports/clock.ts';
import { openSessionWithTurn } from '../../core/session/queued-turns.ts';
import { beatTurn, claimTurn, turnsOf } from '../../core/session/session-store.ts';
import { failStaleTurns } from '../../core/session/stale-turns.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { redisForSuite } from '../helpers/redis-suite.ts';

const suite = redisForSuite();

const FIVE_MINUTES = 5 * 60_000;
const skewed = (ms: number) => () => Date.now() + ms;

/** Dispatcher A (behind) claims a turn and renews its heartbeat; dispatcher B (ahead) sweeps stale turns. */
async function sweepAcrossSkew(clockA: Clock, clockB: Clock): Promise<string[]> {
  const docs = createMemoryDocumentStore();
  const store = { docs, objects: createMemoryObjectStore(), ids: cryptoIds };
  const fields = {
    orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'w', buildId: 'b', commitId: 'c', state: 's',
    variables: {}, lockedVariables: [], trigger: 'manual', depth: 0, inheritedForbid: [],
  };
  const queuing = { ...store, clock: clockA, enqueueTurn: async () => undefined };
  const { turn } = await openSessionWithTurn(queuing, fields, 'prompt', {});
  await claimTurn({ ...store, clock: clockA }, turn._id, 'dispatcher-a');
  expect(await beatTurn({ ...store, clock: clockA }, turn._id, 'dispatcher-a')).toBe('running');
  const failed = await failStaleTurns({ docs, clock: clockB });
  expect((await turnsOf(store).findOne({ _id: turn._id }))!.status).toBe(failed.length === 0 ? 'running' : 'failed');
  return failed;
}

describe('the queue store clock', () => {
  it('keeps a live turn of a dispatcher 10 minutes behind from being failed by one ahead', async () => {
    const a = await createStoreClock(suite.connection, { local: skewed(-FIVE_MINUTES), resyncMs: 0 });
    const b = await createStoreClock(suite.connection, { local: skewed(FIVE_MINUTES), resyncMs: 0 });
    expect(await sweepAcrossSkew(a, b)).toEqual([]);
  });

  it('(each machine\'s own clock fails it: the case the store clock closes)', async () => {
    const own = (ms: number): Clock => ({ now: () => new Date(skewed(ms)()) });
    expect(await sweepAcrossSkew(own(-FIVE_MINUTES), own(FIVE_MINUTES))).toHaveLength(1);
  });

  it('reads the store again on sync and keeps its last offset when the store does not answer', async () => {
    let fail = false;
    const source = { time: async () => { if (fail) throw new Error('down'); return suite.connection.time(); } };
    const clock = await createStoreClock(source, { local: skewed(FIVE_MINUTES), resyncMs: 0 });
    const [seconds] = await suite.connection.time();
    expect(Math.abs(clock.now().getTime() / 1000 - Number(seconds))).toBeLessThan(60);
    fail = true;
    await expect(clock.sync()).rejects.toThrow('down');
    expect(Math.abs(clock.now().getTime() / 1000 - Number(seconds))).toBeLessThan(60);
  });
});
