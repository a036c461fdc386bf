/**
 * The remote worker launcher: runs each turn or call on a worker host (PLATFORM_WORKER_HOST) over its own
 * TLS connection, both sides proving PLATFORM_WORKER_HOST_KEY first. To its caller it is the local
 * launcher: the same slots (this process keeps its own), outcomes and `[worker] …` lines; the worker's
 * broker requests arrive over the connection (after the host checked the worker's token) and are
 * answered by the run's broker here; aborting the run's signal cancels the worker; a connection that
 * ends without an outcome is `lost its channel`.
 *
 * Source: spec/platform-service.md § Rules 6–8, 10; § Operational log lines ([worker]).
 */
import { connect, type TLSSocket } from 'node:tls';
import { isPlatformError } from '../../ports/platform-error.ts';
import type { WorkerKind, WorkerLauncher, WorkerOutcome, WorkerRunOptions } from '../../ports/worker.ts';
import { WorkerSlots } from '../worker/slots.ts';
import { proveKey } from './handshake.ts';
import { checkOutcome, relayedLine } from './relayed.ts';
import { type DispatcherMessage, type HostMessage, MessageSocket, PROVEN_LINE_CHARS } from './wire.ts';

/**
 * What the remote launcher needs.
 *
 * Source: spec/platform-service.md § Rules 7, 10; § Deployment settings (PLATFORM_WORKER_HOST, _KEY,
 * PLATFORM_WORKER_*_SLOTS)
 */
export interface RemoteWorkerLauncherOptions {
  /** The worker host's name or address (PLATFORM_WORKER_HOST). */
  host: string;
  port: number;
  /** PLATFORM_WORKER_HOST_KEY (at least 32 bytes). */
  key: Uint8Array;
  /** Workers of each kind at once from this process (PLATFORM_WORKER_TURN_SLOTS, _CALL_SLOTS). */
  slots: Record<WorkerKind, number>;
  /** Receives each `[worker] …` line (the caller prints it). */
  log(line: string): void;
  /** Milliseconds to connect and complete the handshake (default 10 000). */
  connectTimeoutMs?: number;
  /** Milliseconds past the run's wall time after which a silent host counts as lost (default 30 000). */
  graceMs?: number;
}

/**
 * Creates the remote launcher; `run` waits for a slot of the run's kind, then runs the worker on the host.
 * A run cancelled while waiting for its slot ends `signalled` without connecting.
 *
 * Source: spec/platform-service.md § Rules 6–8, 10
 */
export function createRemoteWorkerLauncher(
  options: RemoteWorkerLauncherOptions,
): WorkerLauncher & { slots: WorkerSlots } {
  const slots = new WorkerSlots(options.slots);
  return {
    slots,
    reserve: (kind, signal) => slots.reserve(kind, signal),
    async run(run: WorkerRunOptions): Promise<WorkerOutcome> {
      return slots.runInSlot(run, async () => {
        try {
          return await new RemoteRun(options, run).ended;
        } catch (error) {
          return {
            ended: 'failed',
            reason: 'refused to start',
            message: `the ${run.kind} worker could not start: the worker host ` +
              `${options.host}:${options.port} could not be reached ` +
              `(${(error as NodeJS.ErrnoException).code ?? 'a connection error'})`,
          };
        }
      });
    },
  };
}

class RemoteRun {
  readonly ended: Promise<WorkerOutcome>;
  private finish!: (outcome: WorkerOutcome) => void;
  private readonly channel: MessageSocket<HostMessage, DispatcherMessage>;
  private readonly where: string;
  private pid: number | undefined;
  private outcome: WorkerOutcome | undefined;
  private proven = false;
  private cancelled = false;
  private failure: string | undefined;
  private readonly timers: ReturnType<typeof setTimeout>[] = [];

  constructor(private readonly options: RemoteWorkerLauncherOptions, private readonly run: WorkerRunOptions) {
    this.where = `${options.host}:${options.port}`;
    this.ended = new Promise((resolve) => (this.finish = resolve));
    const socket = connect({
      host: options.host,
      port: options.port,
      rejectUnauthorized: false,
      minVersion: 'TLSv1.3',
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (this.failure ??= error.code ?? error.message));
    this.channel = new MessageSocket<HostMessage, DispatcherMessage>(socket);
    const connectMs = options.connectTimeoutMs ?? 10_000;
    this.timers.push(
      setTimeout(
        () => this.proven || (this.failure ??= `no answer within ${connectMs} ms`, socket.destroy()),
        connectMs,
      ),
    );
    const onAbort = (): void => this.cancel();
    run.signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('close', () => {
      for (const timer of this.timers) clearTimeout(timer);
      run.signal?.removeEventListener('abort', onAbort);
      this.onClosed();
    });
    socket.once('secureConnect', () => void this.start(socket, connectMs));
  }

  /** Proves the key, checks the host's proof, then sends the job and relays the channel. */
  private async start(socket: TLSSocket, timeoutMs: number): Promise<void> {
    socket.setKeepAlive(true, 30_000);
    if (!(await proveKey(this.channel, this.options.key, 'dispatcher', timeoutMs))) return void socket.destroy();
    if (socket.destroyed) return;
    this.proven = true;
    this.channel.raiseLimit(PROVEN_LINE_CHARS);
    const { kind, subject, task, payload, limits, turnSeconds } = this.run;
    const turnLimit = turnSeconds === undefined ? {} : { turnSeconds };
    this.channel.send({ type: 'run', kind, subject, task, payload: payload ?? null, limits, ...turnLimit });
    if (this.cancelled || this.run.signal?.aborted) this.channel.send({ type: 'cancel' });
    // A host that stays silent past the run's wall time (it enforces the limit itself) counts as lost.
    this.timers.push(
      setTimeout(() => socket.destroy(), limits.wallTimeSeconds * 1000 + (this.options.graceMs ?? 30_000)),
    );
    this.channel.listen((message) => this.onMessage(message), () => undefined);
  }

  private cancel(): void {
    this.cancelled = true;
    if (this.proven) this.channel.send({ type: 'cancel' });
    else this.channel.socket.destroy();
  }

  private onMessage(message: HostMessage): void {
    if (message?.type === 'started' && Number.isInteger(message.pid)) this.pid = message.pid;
    else if (message?.type === 'request' && Number.isInteger(message.id)) {
      void this.answer(message.id, String(message.op), message.args);
    } else if (message?.type === 'log') {
      const line = relayedLine(message.line);
      if (line) this.options.log(line);
    } else if (message?.type === 'outcome') this.outcome ??= checkOutcome(message.outcome);
  }

  private async answer(id: number, op: string, args: unknown): Promise<void> {
    try {
      this.channel.send({ type: 'reply', id, result: (await this.run.broker(op, args)) ?? null });
    } catch (error) {
      const wire = isPlatformError(error)
        ? { code: error.code, message: error.message }
        : { code: 'worker_request_failed', message: 'the platform could not answer this request' };
      this.channel.send({ type: 'reply', id, error: wire });
    }
  }

  /** The connection closed: the host's outcome, or what its absence means (its `[worker] ended …` line is ours to
   * write). */
  private onClosed(): void {
    if (this.outcome) return this.finish(this.outcome);
    const { kind, subject } = this.run;
    const outcome: WorkerOutcome = this.cancelled
      ? { ended: 'failed', reason: 'signalled', message: `the ${kind} worker was stopped: its run was cancelled` }
      : !this.proven
      ? {
        ended: 'failed',
        reason: 'refused to start',
        message: `the ${kind} worker could not start: ${
          this.failure && this.failure !== 'ECONNRESET'
            ? `the worker host ${this.where} could not be reached (${this.failure})`
            : `the worker host ${this.where} and this process do not hold the same PLATFORM_WORKER_HOST_KEY`
        }`,
      }
      : {
        ended: 'failed',
        reason: 'lost its channel',
        message:
          `the ${kind} worker lost its channel: the connection to the worker host ${this.where} ended before the ` +
          `worker answered`,
      };
    this.options.log(`[worker] ended ${kind} worker ${this.pid ?? '(not started)'} for ${subject} (${outcome.reason})`);
    this.finish(outcome);
  }
}
