/**
 * The pool of query processes of semantic-mcp: at most `maxProcesses` children in all, each bound to
 * one data key and running one query at a time. Shares are fair (docs/decisions.md D18 § 2): a project and a token
 * may have only so many queries running and waiting (pool-shares.ts), a query waits at most
 * `limits.maxWaitMs`, and waiters are served round-robin across projects (fair-queue.ts: the waiting project served
 * least recently goes first; in arrival order within a project), so a quiet project gets a process
 * while a busy one has work queued. The waiter served gets an idle child of its key, else a new child
 * while there is room, else the room of the least recently used idle child (of another key), which is
 * closed. A killed or ended child frees its room and is replaced on demand. A waiter whose caller has
 * gone (its AbortSignal) leaves the queue at once with `query_cancelled`.
 *
 * Source: spec/semantic-query-service.md § Limits; docs/decisions.md D18 § 2.
 */
import type { Logger } from '../../ports/logger.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { FairQueue } from './fair-queue.ts';
import {
  busyError,
  defaultShareLimits,
  mayRun,
  type QueryShare,
  ShareCounts,
  type ShareLimits,
  waitRefusal,
} from './pool-shares.ts';
import { cancelledError } from './query-execution.ts';
import {
  type QueryProcess,
  type QueryProcessCommand,
  type QueryProcessOptions,
  startQueryProcess,
} from './query-process.ts';

export type { QueryShare, ShareLimits } from './pool-shares.ts';

/**
 * Options of {@link createQueryProcessPool}.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface QueryProcessPoolOptions {
  command: QueryProcessCommand;
  logger: Logger;
  /** Children alive at most (starting, idle and busy together). */
  maxProcesses: number;
  /** Shares per project and token and the longest wait (default {@link defaultShareLimits} of maxProcesses). */
  limits?: Partial<ShareLimits>;
  /** A new, unused spill directory for a child of `dataKey`. */
  spillDirectory(dataKey: string): string;
  /** See QueryProcessOptions. */
  graceMs?: number;
  kernelLimit?: boolean;
  /** Starts a child (default startQueryProcess; tests pass a fake QueryProcess). */
  start?: (options: QueryProcessOptions) => QueryProcess;
}

/** Who waits and how they may stop waiting: see {@link QueryProcessPool.acquire}. */
export interface AcquireOptions {
  /** The project and token the query runs for; without it the query counts toward no share. */
  share?: QueryShare;
  /** Aborted when the caller has gone: the waiter leaves the queue with `query_cancelled`. */
  signal?: AbortSignal;
}

/**
 * Hands out ready children.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface QueryProcessPool {
  /**
   * A ready, idle child of `dataKey` (started over `databaseFile` when needed), reserved for the
   * caller until {@link release}.
   * @throws PlatformError `too_many_queries` (429) when the share's token or project already has as many
   *   queries waiting as allowed, `query_busy` (503) after `maxWaitMs` without a child, `query_cancelled`
   *   (499) when `options.signal` aborts while waiting, `query_failed` when a child cannot start or open
   *   the data, or the pool is closed
   */
  acquire(dataKey: string, databaseFile: string, options?: AcquireOptions): Promise<QueryProcess>;
  /** Gives `process` back (its share's running count drops): idle when `reusable` and alive, else it is retired. */
  release(process: QueryProcess, reusable: boolean): void;
  /** Kills every child and waits until they have ended. */
  close(): Promise<void>;
}

interface Waiter {
  dataKey: string;
  databaseFile: string;
  share?: QueryShare;
  resolve(process: QueryProcess): void;
  reject(error: Error): void;
  /** Clears the wait timer and the abort listener. */
  detach(): void;
}

/**
 * Creates an empty pool.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function createQueryProcessPool(options: QueryProcessPoolOptions): QueryProcessPool {
  return new FairProcessPool(options);
}

const closedError = () =>
  new PlatformError('query_failed', 'The query engine is shutting down; try again shortly.', { status: 503 });

class FairProcessPool implements QueryProcessPool {
  /** Every child not yet ended, killed ones included (close waits for them). */
  private readonly all = new Set<QueryProcess>();
  /** Children that count toward maxProcesses. */
  private readonly live = new Set<QueryProcess>();
  /** Idle children, least recently used first. */
  private readonly idle = new Set<QueryProcess>();
  /** Children handed out or starting for a waiter, with the share they count toward. */
  private readonly granted = new Map<QueryProcess, QueryShare | undefined>();
  private readonly waiting = new FairQueue<Waiter>();
  private readonly counts = new ShareCounts();
  private readonly limits: ShareLimits;
  private closed = false;

  constructor(private readonly options: QueryProcessPoolOptions) {
    this.limits = { ...defaultShareLimits(options.maxProcesses), ...options.limits };
  }

  acquire(dataKey: string, databaseFile: string, options: AcquireOptions = {}): Promise<QueryProcess> {
    if (this.closed) return Promise.reject(closedError());
    const { share, signal } = options;
    if (signal?.aborted) return Promise.reject(cancelledError());
    const refused = waitRefusal(share, this.waiting.list.map((waiter) => waiter.share), this.limits);
    if (refused) {
      this.options.logger.info({ ...share, code: refused.code }, 'query refused: too many queries waiting');
      return Promise.reject(refused);
    }
    return new Promise((resolve, reject) => {
      const leave = (error: Error, stage: string) => {
        if (!this.waiting.remove(waiter)) return;
        waiter.detach();
        this.options.logger.info({ ...share, dataKey, code: (error as PlatformError).code }, `query ${stage}`);
        reject(error);
      };
      const onAbort = () => leave(cancelledError(), 'cancelled while waiting for a query process');
      const busy = () => leave(busyError(this.limits.maxWaitMs), 'refused: waited too long for a query process');
      const timer = setTimeout(busy, this.limits.maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const waiter: Waiter = {
        dataKey,
        databaseFile,
        share,
        resolve,
        reject,
        detach: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
        },
      };
      this.waiting.push(waiter);
      this.pump();
    });
  }

  release(process: QueryProcess, reusable: boolean): void {
    this.ungrant(process);
    if (reusable && process.alive && !this.closed) this.idle.add(process);
    else process.kill('retired');
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.drain()) {
      waiter.detach();
      waiter.reject(closedError());
    }
    const processes = [...this.all];
    processes.forEach((process) => process.kill('engine closed'));
    await Promise.all(processes.map((process) => process.ended));
  }

  /** Serves waiters, fairest first, as far as shares, idle children and room allow. */
  private pump(): void {
    if (this.closed) return;
    const eligible = (waiter: Waiter) => mayRun(this.counts, waiter.share, this.limits);
    for (let waiter = this.waiting.next(eligible); waiter; waiter = this.waiting.next(eligible)) {
      const idle = [...this.idle].find((process) => process.dataKey === waiter!.dataKey);
      if (idle) {
        this.idle.delete(idle);
        this.grant(waiter, idle);
        waiter.resolve(idle);
        continue;
      }
      if (this.live.size >= this.options.maxProcesses && !this.evictIdle()) return;
      this.grant(waiter, this.spawn(waiter));
    }
  }

  /** Takes `waiter` out of the queue; its share counts `process` as running until release. */
  private grant(waiter: Waiter, process: QueryProcess): void {
    this.waiting.take(waiter);
    waiter.detach();
    this.counts.add(waiter.share);
    this.granted.set(process, waiter.share);
  }

  private ungrant(process: QueryProcess): void {
    if (!this.granted.has(process)) return;
    this.counts.remove(this.granted.get(process));
    this.granted.delete(process);
  }

  /** Closes the least recently used idle child; false when none is idle. */
  private evictIdle(): boolean {
    const [oldest] = this.idle;
    if (!oldest) return false;
    this.idle.delete(oldest);
    this.live.delete(oldest);
    oldest.kill('room needed for another data key');
    return true;
  }

  /** Starts a child for `waiter`, which gets it once ready (or its error). */
  private spawn(waiter: Waiter): QueryProcess {
    const start = this.options.start ?? startQueryProcess;
    const process = start({
      command: this.options.command,
      dataKey: waiter.dataKey,
      databaseFile: waiter.databaseFile,
      spillDirectory: this.options.spillDirectory(waiter.dataKey),
      logger: this.options.logger,
      graceMs: this.options.graceMs,
      kernelLimit: this.options.kernelLimit,
      onEnded: (ended) => this.forget(ended),
    });
    this.all.add(process);
    this.live.add(process);
    process.ready.then(
      () => {
        if (process.alive) waiter.resolve(process);
        else this.failed(process, waiter, closedError());
      },
      (error: Error) => this.failed(process, waiter, error),
    );
    return process;
  }

  /** A child that could not open: its waiter gets the error. */
  private failed(process: QueryProcess, waiter: Waiter, error: Error): void {
    process.kill('open failed');
    this.ungrant(process);
    waiter.reject(error);
    this.pump();
  }

  private forget(process: QueryProcess): void {
    this.all.delete(process);
    this.live.delete(process);
    this.idle.delete(process);
    this.pump();
  }
}
