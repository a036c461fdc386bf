/**
 * One query's run in a query process, as the parent sees it: the deadline (answer `query_timeout`
 * at once, interrupt, kill after the grace period), the resident-set watchdog (kill past the
 * ceiling, answer `query_memory_exceeded`), the child's answer, and whether the child may take the
 * next query.
 *
 * Source: spec/semantic-query-service.md § Limits (query timeout, engine memory).
 */
import { PlatformError } from '../../ports/platform-error.ts';
import type { QueryResult } from '../../ports/query-engine.ts';
import { memoryWatchdogIntervalMs } from './memory-ceiling.ts';
import { type ChildMessage, fromWire } from './query-protocol.ts';
import { memoryExceeded } from './run-query.ts';

/**
 * One execution: `result` settles by the deadline; `done` once the child is free again (true) or
 * has ended or been retired (false).
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface Execution {
  result: Promise<QueryResult>;
  done: Promise<boolean>;
  /**
   * Stops the query because its caller has gone: `result` rejects with `query_cancelled` at once (unless it
   * has settled), the child is asked to interrupt and is killed after the grace period if it has not answered.
   * Source: docs/decisions.md D18 § 2 (a request whose client has gone stops)
   */
  cancel(): void;
}

/**
 * What a tracker needs of its query process.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface TrackedProcess {
  readonly alive: boolean;
  /** Milliseconds the child gets to stop after the interrupt. */
  readonly graceMs: number;
  interrupt(id: number): void;
  kill(reason: string): void;
  /** Resident bytes when over the ceiling, else undefined. */
  overCeiling(): Promise<number | undefined>;
  /** After a query: whether the child may take the next one (it is retired otherwise). */
  keepAfterQuery(): Promise<boolean>;
}

/**
 * One query's deadline, watchdog and answer.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export class ExecutionTracker implements Execution {
  readonly result: Promise<QueryResult>;
  readonly done: Promise<boolean>;
  private settle!: { resolve(result: QueryResult): void; reject(error: Error): void };
  private finish!: (reusable: boolean) => void;
  private settled = false;
  private finished = false;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];
  private readonly watchdog: ReturnType<typeof setInterval>;

  constructor(private readonly process: TrackedProcess, private readonly id: number, timeoutMs: number) {
    this.result = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
    this.timers.push(setTimeout(() => this.timedOut(timeoutMs), timeoutMs));
    this.watchdog = setInterval(() => void this.checkMemory(), memoryWatchdogIntervalMs);
  }

  answer(message: ChildMessage): void {
    if (message.type === 'result') this.reply(() => this.settle.resolve(fromWire(message.result)));
    else if (message.type === 'error') {
      this.reply(() =>
        this.settle.reject(new PlatformError(message.code, message.message, { status: message.status }))
      );
    }
    if (message.type === 'error' && message.code === 'query_memory_exceeded') this.process.kill('memory');
    else this.end(true);
  }

  ended(killedFor: string | undefined): void {
    const error = killedFor === 'memory' ? memoryExceeded() : processEnded();
    this.reply(() => this.settle.reject(error));
    this.end(false);
  }

  private timedOut(timeoutMs: number): void {
    this.reply(() => this.settle.reject(timeoutError(timeoutMs)));
    this.process.interrupt(this.id);
    this.timers.push(setTimeout(() => this.process.kill('timeout'), this.process.graceMs));
  }

  cancel(): void {
    if (this.finished || this.settled) return;
    this.reply(() => this.settle.reject(cancelledError()));
    this.process.interrupt(this.id);
    this.timers.push(setTimeout(() => this.process.kill('cancelled'), this.process.graceMs));
  }

  private async checkMemory(): Promise<void> {
    const rss = await this.process.overCeiling();
    if (rss === undefined || this.finished) return;
    this.reply(() => this.settle.reject(memoryExceeded()));
    this.process.kill('memory');
  }

  private reply(settle: () => void): void {
    if (this.settled) return;
    this.settled = true;
    settle();
  }

  private end(reusable: boolean): void {
    if (this.finished) return;
    this.finished = true;
    this.timers.forEach(clearTimeout);
    clearInterval(this.watchdog);
    if (!reusable || !this.process.alive) this.finish(false);
    else void this.process.keepAfterQuery().then((keep) => this.finish(keep));
  }
}

function processEnded(): PlatformError {
  return new PlatformError(
    'query_failed',
    'The query stopped because its query process ended unexpectedly. Try again; if it happens again, narrow the ' +
      'query (filter rows, aggregate, or add LIMIT).',
    { status: 500 },
  );
}

/**
 * PlatformError `query_cancelled` (499, the client closed the request) for a query whose caller went away
 * before its answer: it was taken out of the queue or interrupted.
 *
 * Source: docs/decisions.md D18 § 2
 */
export function cancelledError(): PlatformError {
  return new PlatformError(
    'query_cancelled',
    'Query cancelled: its client went away before the answer, so it was ' +
      'stopped. Send it again if you still need the answer.',
    { status: 499 },
  );
}

/**
 * PlatformError `query_timeout` (408) for a query stopped after `timeoutMs`.
 *
 * Source: spec/semantic-query-service.md § Errors (query exceeds 30 s)
 */
export function timeoutError(timeoutMs: number): PlatformError {
  const seconds = Number((timeoutMs / 1000).toFixed(3));
  return new PlatformError(
    'query_timeout',
    `Query timed out after ${seconds} s and was stopped; narrow the query (filter rows, aggregate, or add LIMIT) ` +
      `and try again.`,
    { status: 408 },
  );
}
