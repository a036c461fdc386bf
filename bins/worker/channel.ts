/**
 * The worker's end of its channel (stdin/stdout, one JSON message per line): reads its token and job from
 * the first line, sends every request with the token, and answers once with a result or a failure.
 *
 * Source: spec/platform-service.md § Rules 6 (reaches platform data only through the process
 * that started it, with a per-worker token checked on every operation).
 */
import type { Readable } from 'node:stream';
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { WorkerBroker } from '../../core/ports/worker.ts';
import { readMessages, writeLine, type LauncherMessage, type WireError, type WorkerMessage } from '../../core/adapters/worker/protocol.ts';

/** The job of this worker, from the `start` line. */
export interface WorkerJob {
  task: string;
  payload: unknown;
}

/**
 * Where the channel runs: stdin, stdout and how the process exits (tests and fixtures pass the real ones).
 *
 * Source: spec/platform-service.md § Rules 6
 */
export interface WorkerIo {
  input: Readable;
  output: { write(chunk: string, callback?: () => void): unknown };
  exit(code: number): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

/**
 * The channel of one worker; also its {@link WorkerBroker}.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export class WorkerChannel implements WorkerBroker {
  /** Resolves with the job once the first line has arrived. */
  readonly job: Promise<WorkerJob>;
  private token: string | undefined;
  private nextId = 1;
  private nextDeadline = 1;
  private readonly pending = new Map<number, Pending>();
  private receive!: (job: WorkerJob) => void;
  private answered = false;

  constructor(private readonly io: WorkerIo) {
    this.job = new Promise((resolve) => {
      this.receive = resolve;
    });
    readMessages<LauncherMessage>(io.input, (message) => this.onMessage(message), () => this.onClosed());
  }

  request(op: string, args: unknown): Promise<unknown> {
    if (this.token === undefined) return Promise.reject(new PlatformError('worker_channel_closed', 'the worker has no job yet'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ type: 'request', token: this.token!, id, op, args });
    });
  }

  /** Announces a hook's deadline on the channel (sent at once: stdout is a pipe, written synchronously). */
  hookDeadline(ms: number): () => void {
    if (this.token === undefined) return () => undefined;
    const id = this.nextDeadline++;
    this.send({ type: 'deadline', token: this.token, id, ms });
    return () => {
      if (!this.answered && this.token !== undefined) this.send({ type: 'deadline', token: this.token, id, ms: null });
    };
  }

  /** Reports a permission the model refused (a plain permission name, never a path or value). */
  denied(permission: string): void {
    if (this.token !== undefined) this.send({ type: 'denied', token: this.token, permission });
  }

  /** Sends the result, then exits once it is written. Later answers are ignored. */
  finish(result: unknown): void {
    this.answer({ type: 'result', token: this.token ?? '', result: result ?? null });
  }

  /** Sends the failure, then exits once it is written. Later answers are ignored. */
  fail(error: WireError): void {
    this.answer({ type: 'failed', token: this.token ?? '', error });
  }

  private answer(message: WorkerMessage): void {
    if (this.answered) return;
    this.answered = true;
    this.io.output.write(`${JSON.stringify(message)}\n`, () => this.io.exit(0));
  }

  private send(message: WorkerMessage): void {
    writeLine(this.io.output, message);
  }

  private onMessage(message: LauncherMessage): void {
    if (message.type === 'start') {
      if (this.token !== undefined) return;
      this.token = message.token;
      this.send({ type: 'started', token: message.token });
      this.receive({ task: message.task, payload: message.payload });
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return;
    this.pending.delete(message.id);
    if ('error' in message) pending.reject(new PlatformError(message.error.code, message.error.message));
    else pending.resolve(message.result);
  }

  /** The starting process closed the channel: nothing can be answered any more, so the worker ends. */
  private onClosed(): void {
    for (const pending of this.pending.values()) pending.reject(new PlatformError('worker_channel_closed', 'the worker lost its channel'));
    this.pending.clear();
    if (!this.answered) this.io.exit(1);
  }
}
