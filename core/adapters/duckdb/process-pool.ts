/**
 * The pool of query processes of semantic-mcp: at most `maxProcesses` children in all, each bound to
 * one data key and running one query at a time. Callers wait in arrival order; the first waiter gets
 * an idle child of its key, else a new child while there is room, else the room of the least
 * recently used idle child (of another key), which is closed. A killed or ended child frees its
 * room and is replaced on demand, so a runaway query holds one child and other keys keep running.
 *
 * Source: ../shared/spec/semantic-query-service.md § Limits.
 */
import type { Logger } from '../../ports/logger.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { startQueryProcess, type QueryProcess, type QueryProcessCommand } from './query-process.ts';

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
  /** A new, unused spill directory for a child of `dataKey`. */
  spillDirectory(dataKey: string): string;
  /** See QueryProcessOptions. */
  graceMs?: number;
  kernelLimit?: boolean;
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
   * @throws PlatformError `query_failed` when a child cannot start or open the data, or the pool is closed
   */
  acquire(dataKey: string, databaseFile: string): Promise<QueryProcess>;
  /** Gives `process` back: idle when `reusable` and alive, else it is retired. */
  release(process: QueryProcess, reusable: boolean): void;
  /** Kills every child and waits until they have ended. */
  close(): Promise<void>;
}

interface Waiter {
  dataKey: string;
  databaseFile: string;
  resolve(process: QueryProcess): void;
  reject(error: Error): void;
}

/**
 * Creates an empty pool.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function createQueryProcessPool(options: QueryProcessPoolOptions): QueryProcessPool {
  return new FairProcessPool(options);
}

class FairProcessPool implements QueryProcessPool {
  /** Every child not yet ended, killed ones included (close waits for them). */
  private readonly all = new Set<QueryProcess>();
  /** Children that count toward maxProcesses. */
  private readonly live = new Set<QueryProcess>();
  /** Idle children, least recently used first. */
  private readonly idle = new Set<QueryProcess>();
  private readonly starting = new Set<QueryProcess>();
  private readonly waiting: Waiter[] = [];
  private closed = false;

  constructor(private readonly options: QueryProcessPoolOptions) {}

  acquire(dataKey: string, databaseFile: string): Promise<QueryProcess> {
    if (this.closed) return Promise.reject(new PlatformError('query_failed', 'The query engine is shutting down; try again shortly.', { status: 503 }));
    return new Promise((resolve, reject) => {
      this.waiting.push({ dataKey, databaseFile, resolve, reject });
      this.pump();
    });
  }

  release(process: QueryProcess, reusable: boolean): void {
    if (reusable && process.alive && !this.closed) this.idle.add(process);
    else process.kill('retired');
    this.pump();
  }

  async close(): Promise<void> {
    this.closed = true;
    const error = new PlatformError('query_failed', 'The query engine is shutting down; try again shortly.', { status: 503 });
    this.waiting.splice(0).forEach((waiter) => waiter.reject(error));
    const processes = [...this.all];
    processes.forEach((process) => process.kill('engine closed'));
    await Promise.all(processes.map((process) => process.ended));
  }

  /** Serves waiters in arrival order as far as idle children and room allow. */
  private pump(): void {
    if (this.closed) return;
    const startingByKey = new Map<string, number>();
    for (const process of this.starting) startingByKey.set(process.dataKey, (startingByKey.get(process.dataKey) ?? 0) + 1);
    for (const waiter of [...this.waiting]) {
      const idle = [...this.idle].find((process) => process.dataKey === waiter.dataKey);
      if (idle) {
        this.idle.delete(idle);
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        waiter.resolve(idle);
        continue;
      }
      const coming = startingByKey.get(waiter.dataKey) ?? 0;
      if (coming > 0) {
        startingByKey.set(waiter.dataKey, coming - 1);
        continue;
      }
      if (this.live.size >= this.options.maxProcesses && !this.evictIdle()) return;
      this.spawn(waiter.dataKey, waiter.databaseFile);
    }
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

  private spawn(dataKey: string, databaseFile: string): void {
    const process = startQueryProcess({
      command: this.options.command,
      dataKey,
      databaseFile,
      spillDirectory: this.options.spillDirectory(dataKey),
      logger: this.options.logger,
      graceMs: this.options.graceMs,
      kernelLimit: this.options.kernelLimit,
      onEnded: (ended) => this.forget(ended),
    });
    this.all.add(process);
    this.live.add(process);
    this.starting.add(process);
    process.ready.then(
      () => {
        this.starting.delete(process);
        if (process.alive) this.idle.add(process);
        this.pump();
      },
      (error: Error) => this.failed(process, error),
    );
  }

  /** A child that could not open: the first waiter of its key gets the error. */
  private failed(process: QueryProcess, error: Error): void {
    this.starting.delete(process);
    process.kill('open failed');
    const index = this.waiting.findIndex((waiter) => waiter.dataKey === process.dataKey);
    if (index >= 0) this.waiting.splice(index, 1)[0].reject(error);
    this.pump();
  }

  private forget(process: QueryProcess): void {
    this.all.delete(process);
    this.live.delete(process);
    this.idle.delete(process);
    this.starting.delete(process);
    this.pump();
  }
}
