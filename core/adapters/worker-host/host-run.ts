/**
 * One worker run on the worker host, once its dispatching process proved the key: the job is checked,
 * the worker started by the host's own launcher (same program, flags, limits, working directory and
 * environment allowlist as a local worker), its broker requests relayed to the dispatching process and
 * the answers back, its `[worker] …` lines relayed, and its outcome sent. A closed connection or a
 * `cancel` ends the worker (outcome `signalled`).
 *
 * Source: spec/platform-service.md § Rules 6–7, 10; § Operational log lines ([worker-host], [worker]).
 */
import { PlatformError } from '../../ports/platform-error.ts';
import type { WorkerOutcome } from '../../ports/worker.ts';
import type { LauncherRunOptions } from '../worker/launcher.ts';
import { endedReason } from '../worker/worker-outcome.ts';
import type { DispatcherMessage, HostMessage, MessageSocket, RunMessage } from './wire.ts';

/**
 * What runs the workers on a host: the local launcher (core/adapters/worker) with slots no dispatcher reaches.
 *
 * Source: spec/platform-service.md § Rules 10 (it runs as many workers as its dispatchers send it)
 */
export interface HostLauncher {
  run(options: LauncherRunOptions): Promise<WorkerOutcome>;
}

/** Milliseconds a proven connection has to send its job. */
const JOB_TIMEOUT_MS = 10_000;

/**
 * The job of a `run` message, or a reason it is not one (said back to the dispatching process).
 *
 * Source: spec/platform-service.md § Rules 6–7
 */
export function checkRunMessage(message: unknown): RunMessage | string {
  const run = message as Partial<RunMessage> | undefined;
  if (run?.type !== 'run') return 'the first message after the handshake must be the run';
  if (run.kind !== 'turn' && run.kind !== 'call') return 'kind must be turn or call';
  if (typeof run.subject !== 'string' || !/^[\x20-\x7e]{1,200}$/.test(run.subject)) {
    return 'subject must be 1 to 200 printable ASCII characters';
  }
  if (typeof run.task !== 'string' || !/^[A-Za-z][\w-]{0,63}$/.test(run.task)) return 'task must be a task name';
  const { memoryMb, wallTimeSeconds } = run.limits ?? ({} as Partial<RunMessage['limits']>);
  if (!Number.isInteger(memoryMb) || memoryMb! < 1 || !Number.isInteger(wallTimeSeconds) || wallTimeSeconds! < 1) {
    return 'limits must be { memoryMb, wallTimeSeconds } positive integers';
  }
  const { turnSeconds } = run;
  if (turnSeconds !== undefined && !(Number.isInteger(turnSeconds) && turnSeconds > 0)) {
    return 'turnSeconds must be a positive integer when given';
  }
  const limits = { memoryMb: memoryMb!, wallTimeSeconds: wallTimeSeconds! };
  const { kind, subject, task } = run;
  const checked: RunMessage = { type: 'run', kind, subject, task, payload: run.payload ?? null, limits };
  return turnSeconds === undefined ? checked : { ...checked, turnSeconds };
}

/**
 * Serves one proven connection: reads its job, runs the worker, relays its channel, sends the outcome
 * and ends the connection. Logs `[worker-host] started …` and `[worker-host] ended … (<reason>)`.
 *
 * Source: spec/platform-service.md § Rules 10; § Operational log lines ([worker-host])
 */
export async function serveRun(
  channel: MessageSocket<DispatcherMessage, HostMessage>,
  launcher: HostLauncher,
  log: (line: string) => void,
): Promise<void> {
  const job = checkRunMessage(await channel.next(JOB_TIMEOUT_MS));
  if (typeof job === 'string') {
    channel.send({
      type: 'outcome',
      outcome: { ended: 'failed', reason: 'refused to start', message: `the worker host refused the job: ${job}` },
    });
    return channel.end();
  }
  const relay = new BrokerRelay(channel);
  let pid: number | string = '(not started)';
  const outcome = await launcher.run({
    kind: job.kind,
    subject: job.subject,
    task: job.task,
    payload: job.payload,
    limits: job.limits,
    ...(job.turnSeconds === undefined ? {} : { turnSeconds: job.turnSeconds }),
    signal: relay.cancelled.signal,
    broker: (op, args) => relay.request(op, args),
    onStarted: (started) => {
      pid = started;
      log(`[worker-host] started ${job.kind} worker ${started} for ${job.subject}`);
      channel.send({ type: 'started', pid: started });
    },
    log: (line) => channel.send({ type: 'log', line }),
    // Its `[worker] ended …` line is relayed before the outcome that ends the connection.
    untilEnded: true,
  });
  relay.close();
  log(`[worker-host] ended ${job.kind} worker ${pid} for ${job.subject} (${endedReason(outcome)})`);
  channel.send({ type: 'outcome', outcome });
  channel.end();
}

/** The worker's broker requests, sent to the dispatching process and answered by its `reply` messages. */
class BrokerRelay {
  readonly cancelled = new AbortController();
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();

  constructor(private readonly channel: MessageSocket<DispatcherMessage, HostMessage>) {
    channel.listen((message) => this.onMessage(message), () => this.onClosed());
  }

  request(op: string, args: unknown): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.channel.send({ type: 'request', id, op, args });
    });
  }

  close(): void {
    for (const waiting of this.pending.values()) {
      waiting.reject(new PlatformError('worker_channel_lost', 'the worker ended before the platform answered'));
    }
    this.pending.clear();
  }

  private onMessage(message: DispatcherMessage): void {
    if (message?.type === 'cancel') return this.cancelled.abort();
    if (message?.type !== 'reply') return;
    const waiting = this.pending.get(message.id);
    if (!waiting) return;
    this.pending.delete(message.id);
    if ('error' in message) {
      waiting.reject(
        new PlatformError(
          String(message.error?.code ?? 'worker_request_failed'),
          String(message.error?.message ?? 'the platform could not answer this request'),
        ),
      );
    } else waiting.resolve(message.result);
  }

  /** The dispatching process is gone: its worker is ended and its waiting requests fail. */
  private onClosed(): void {
    this.cancelled.abort();
    for (const waiting of this.pending.values()) {
      waiting.reject(
        new PlatformError('worker_channel_lost', 'the dispatching process closed its connection to the worker host'),
      );
    }
    this.pending.clear();
  }
}
