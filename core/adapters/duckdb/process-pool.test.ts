/**
 * The pool's fair shares (docs/decisions.md D18 § 2), with a fake QueryProcess (the pool's `start` seam; the real
 * children are exercised in query-processes.test.ts and query-cancellation.test.ts): a quiet project gets
 * a process while a busy one has work queued, waiters are served round-robin across projects, running
 * and waiting queries are bounded per token and per project with an answer naming the limit, a wait is
 * bounded, and a waiter whose caller has gone leaves the queue.
 */
import { describe, expect, it } from 'vitest';
import { createQueryProcessPool, type QueryProcessPool, type QueryShare, type ShareLimits } from './process-pool.ts';
import type { QueryProcess, QueryProcessOptions } from './query-process.ts';
import { failure, recordingLogger } from './test-fixtures.ts';

/** A child that is ready at once and ends when killed. */
function fakeProcess(options: QueryProcessOptions, pid: number): QueryProcess {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => {
    end = resolve;
  });
  const process = {
    pid,
    dataKey: options.dataKey,
    ready: Promise.resolve(),
    baseRssBytes: 0,
    alive: true,
    ended,
    execute: () => {
      throw new Error('not used by the pool');
    },
    kill: () => {
      if (!process.alive) return;
      process.alive = false;
      end();
      void ended.then(() => options.onEnded?.(process));
    },
  };
  return process;
}

function pool(maxProcesses: number, limits: Partial<ShareLimits> = {}) {
  let pids = 0;
  const logger = recordingLogger();
  const created = createQueryProcessPool({
    command: { command: 'unused', args: [], env: {} },
    logger,
    maxProcesses,
    limits,
    spillDirectory: () => '/nonexistent',
    start: (options) => fakeProcess(options, pids += 1),
  });
  return { pool: created, logger };
}

const share = (projectId: string, tokenId = `${projectId}-token`): QueryShare => ({ projectId, tokenId });

/** One acquire and what became of it so far. */
interface Tracked {
  label: string;
  settled?: { process?: QueryProcess; error?: Error & { code?: string } };
}

function track(target: QueryProcessPool, label: string, key: string, who: QueryShare, signal?: AbortSignal): Tracked {
  const tracked: Tracked = { label };
  target.acquire(key, `/data/${key}`, { share: who, signal }).then(
    (process) => {
      tracked.settled = { process };
    },
    (error: Error & { code?: string }) => {
      tracked.settled = { error };
    },
  );
  return tracked;
}

/** Lets every ready child and settled promise be handled (the fakes are ready at once). */
const settle = async () => {
  for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
};
const served = (all: Tracked[]) => all.filter((t) => t.settled?.process).map((t) => t.label);

describe('fair shares of the query processes', () => {
  it('keeps a process for a quiet project while a busy one has work queued', async () => {
    const { pool: target } = pool(4);
    const busy = [1, 2, 3, 4, 5, 6].map((n) => track(target, `a${n}`, 'k', share('A', `A-token-${n % 3}`)));
    await settle();
    expect(served(busy)).toHaveLength(3);
    const quiet = track(target, 'b', 'k', share('B'));
    await settle();
    expect(served([quiet])).toEqual(['b']);
    await target.close();
  });

  it('serves waiters round-robin across projects, not in arrival order', async () => {
    const { pool: target } = pool(2, { runningPerProject: 2 });
    const running = [track(target, 'a1', 'k', share('A', 't1')), track(target, 'a2', 'k', share('A', 't2'))];
    const queued = [
      track(target, 'a3', 'k', share('A', 't1')),
      track(target, 'a4', 'k', share('A', 't2')),
      track(target, 'b1', 'k', share('B')),
      track(target, 'c1', 'k', share('C')),
    ];
    await settle();
    expect(served(running)).toEqual(['a1', 'a2']);
    const order: string[] = [];
    let holders = running;
    for (let round = 0; round < 4; round += 1) {
      const [first, ...rest] = holders;
      target.release(first.settled!.process!, true);
      await settle();
      const next = queued.filter((t) => t.settled?.process && !order.includes(t.label));
      order.push(...next.map((t) => t.label));
      holders = [...rest, ...next];
    }
    expect(order).toEqual(['b1', 'c1', 'a3', 'a4']);
    await target.close();
  });

  it('runs at most runningPerToken queries of one token at once, even with processes free', async () => {
    const { pool: target } = pool(4, { runningPerToken: 2 });
    const calls = [1, 2, 3].map((n) => track(target, `t${n}`, 'k', share('A', 'one-token')));
    await settle();
    expect(served(calls)).toEqual(['t1', 't2']);
    const other = track(target, 'other token', 'k', share('A', 'another-token'));
    await settle();
    expect(served([other])).toEqual(['other token']);
    target.release(calls[0].settled!.process!, true);
    await settle();
    expect(served(calls)).toEqual(['t1', 't2', 't3']);
    await target.close();
  });

  it('refuses a query beyond the waiting bound of its token, then of its project, naming the limit', async () => {
    const { pool: target, logger } = pool(1, { runningPerProject: 1, waitingPerToken: 2, waitingPerProject: 3 });
    const first = track(target, 'running', 'k', share('A', 't1'));
    const waiting = [track(target, 'w1', 'k', share('A', 't1')), track(target, 'w2', 'k', share('A', 't1'))];
    const overToken = await failure(target.acquire('k', '/data/k', { share: share('A', 't1') }));
    expect(overToken.code).toBe('too_many_queries');
    expect(overToken.message).toBe(
      'Query refused: this token already has 2 queries waiting for a query process ' +
        '(at most 2 may wait per token, 2 run at once). Wait for the answers of the queries already sent before ' +
        'sending more, or send them one after another.',
    );
    waiting.push(track(target, 'w3', 'k', share('A', 't2')));
    const overProject = await failure(target.acquire('k', '/data/k', { share: share('A', 't3') }));
    expect(overProject.code).toBe('too_many_queries');
    expect(overProject.message).toMatch(
      new RegExp(
        '^Query refused: this project already has 3 queries waiting for a ' +
          'query process \\(at most 3 may wait per project, 1 run at once\\)\\.',
      ),
    );
    // Another project is not refused for A's queue.
    const other = track(target, 'other project', 'k', share('B'));
    await settle();
    expect([first, ...waiting, other].map((t) => t.settled?.error)).toEqual(Array(5).fill(undefined));
    expect(logger.lines.filter((line) => line.message === 'query refused: too many queries waiting')).toHaveLength(2);
    await target.close();
  });

  it('answers query_busy, naming the longest wait, when no process becomes free in time', async () => {
    const { pool: target } = pool(1, { maxWaitMs: 50 });
    const holder = track(target, 'holder', 'k', share('A'));
    const error = await failure(target.acquire('k', '/data/k', { share: share('B') }));
    expect(error.code).toBe('query_busy');
    expect(error.message).toBe(
      'Query not run: no query process became free within 0.05 s (the longest a query waits ' +
        'for one); the engine is busy with other queries. Try again in a few seconds.',
    );
    expect(served([holder])).toEqual(['holder']);
    await target.close();
  });

  it('drops a waiter whose caller has gone: query_cancelled, logged; the next waiter gets the process', async () => {
    const { pool: target, logger } = pool(1);
    const holder = track(target, 'holder', 'k', share('A'));
    const gone = new AbortController();
    const abandoned = track(target, 'abandoned', 'k', share('B'), gone.signal);
    const later = track(target, 'later', 'k', share('C'));
    await settle();
    gone.abort();
    await settle();
    expect(abandoned.settled?.error?.code).toBe('query_cancelled');
    expect(logger.lines.some((line) =>
      line.message === 'query cancelled while waiting for a query process' &&
      line.fields.projectId === 'B'
    )).toBe(true);
    target.release(holder.settled!.process!, true);
    await settle();
    expect(served([holder, abandoned, later])).toEqual(['holder', 'later']);
    const already = await failure(target.acquire('k', '/data/k', { share: share('D'), signal: gone.signal }));
    expect(already.code).toBe('query_cancelled');
    await target.close();
  });
});
