/**
 * The worker host's wire: newline-delimited JSON over one TLS connection per worker run, with a cap on a
 * line's size (small until the peer has proved the key, so a stranger cannot make the host buffer much).
 *
 * Dispatching process → host: `proof`, then `run` (the job), `reply` (the broker's answer to a request),
 * `cancel`. Host → dispatching process: `proof`, then `started` (the worker's process id), `request` (a
 * worker's broker request that passed its token check), `log` (a `[worker] …` line), and one `outcome`.
 *
 * Source: spec/platform-service.md § Rules 6, 10.
 */
import type { Socket } from 'node:net';
import type { WorkerKind, WorkerLimits, WorkerOutcome } from '../../ports/worker.ts';
import type { WireError } from '../worker/protocol.ts';

/** Largest line before the peer proved the key, in characters (UTF-16 code units; a byte cap at most). */
export const UNPROVEN_LINE_CHARS = 1024;
/** Largest line once both sides proved the key (a turn's payload, a broker answer), in characters. */
export const PROVEN_LINE_CHARS = 64 * 1024 * 1024;

/** The job a dispatching process sends once both sides proved the key. */
export interface RunMessage {
  type: 'run';
  kind: WorkerKind;
  subject: string;
  task: string;
  payload: unknown;
  limits: WorkerLimits;
  /** The turn's own time limit in seconds (the workflow's turn_seconds), enforced by the host's launcher. */
  turnSeconds?: number;
}

/** A message from the dispatching process to the host. */
export type DispatcherMessage =
  | { type: 'proof'; proof: string }
  | RunMessage
  | { type: 'reply'; id: number; result: unknown }
  | { type: 'reply'; id: number; error: WireError }
  | { type: 'cancel' };

/** A message from the host to the dispatching process. */
export type HostMessage =
  | { type: 'proof'; proof: string }
  | { type: 'started'; pid: number }
  | { type: 'request'; id: number; op: string; args: unknown }
  | { type: 'log'; line: string }
  | { type: 'outcome'; outcome: WorkerOutcome };

/**
 * One connection's messages: read in order with {@link MessageSocket.next}, or handed to a handler with
 * {@link MessageSocket.listen}. A line over the cap, or one that is not JSON, ends the connection.
 *
 * Source: spec/platform-service.md § Rules 10
 */
export class MessageSocket<In, Out> {
  /** The unfinished line, in pieces (each chunk is scanned once). */
  private parts: string[] = [];
  private partChars = 0;
  private readonly queue: In[] = [];
  private waiter: ((message: In | undefined) => void) | undefined;
  private handler: ((message: In) => void) | undefined;
  private closed = false;
  private readonly closeHandlers: (() => void)[] = [];

  constructor(readonly socket: Socket, private maxLineChars = UNPROVEN_LINE_CHARS) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('close', () => this.onClose());
    socket.on('error', () => socket.destroy());
  }

  /** Allows lines up to `chars` characters from now on (once the peer proved the key). */
  raiseLimit(chars: number): void {
    this.maxLineChars = chars;
  }

  /** The next message, or undefined when the connection closed or `timeoutMs` passed first (the connection is then
   * ended). */
  next(timeoutMs: number): Promise<In | undefined> {
    const queued = this.queue.shift();
    if (queued !== undefined || this.closed) return Promise.resolve(queued);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        this.socket.destroy();
        resolve(undefined);
      }, timeoutMs);
      this.waiter = (message) => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(message);
      };
    });
  }

  /** Hands every later message to `handler`, and calls `onClose` once the connection has closed. */
  listen(handler: (message: In) => void, onClose: () => void): void {
    this.handler = handler;
    for (const message of this.queue.splice(0)) handler(message);
    if (this.closed) onClose();
    else this.closeHandlers.push(onClose);
  }

  /** Sends one message (dropped once the connection is closed). */
  send(message: Out): void {
    if (!this.closed && this.socket.writable) this.socket.write(`${JSON.stringify(message)}\n`);
  }

  /** Ends the connection after what was sent. */
  end(): void {
    this.socket.end();
  }

  private onData(chunk: string): void {
    let start = 0;
    for (let newline = chunk.indexOf('\n'); newline >= 0; newline = chunk.indexOf('\n', start)) {
      this.parts.push(chunk.slice(start, newline));
      const line = this.parts.join('');
      this.parts = [];
      this.partChars = 0;
      start = newline + 1;
      if (line.length > 0 && !this.deliver(line)) return;
    }
    if (start < chunk.length) {
      this.parts.push(chunk.slice(start));
      this.partChars += chunk.length - start;
    }
    if (this.partChars > this.maxLineChars) this.socket.destroy();
  }

  private deliver(line: string): boolean {
    let message: In;
    try {
      if (line.length > this.maxLineChars) throw new Error('too long');
      message = JSON.parse(line) as In;
    } catch {
      this.socket.destroy();
      return false;
    }
    if (this.handler) this.handler(message);
    else if (this.waiter) this.waiter(message);
    else this.queue.push(message);
    return true;
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.waiter?.(undefined);
    for (const handler of this.closeHandlers.splice(0)) handler();
  }
}
