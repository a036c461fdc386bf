/**
 * One worker process from start to end: a fresh working directory, the per-worker token and job on the
 * first line of its channel, the token checked (constant time) on every message and revoked once the
 * worker has answered, its memory (resident set, every 50 ms) and wall time watched, and its ending
 * turned into a {@link WorkerOutcome} with one `[worker] ended …` line.
 *
 * Source: ../shared/spec/platform-service.md § Rules 6–8; § Operational log lines ([worker]); § Errors.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlatformError } from '../../ports/platform-error.ts';
import type { WorkerOutcome, WorkerRunOptions } from '../../ports/worker.ts';
import { readProcessMemory } from '../runtime/process-memory.ts';
import { readMessages, writeLine, type WireError, type WorkerMessage } from './protocol.ts';
import { classifyEnd, endedReason, limitMessage, type EndFacts } from './worker-outcome.ts';
import type { WorkerCommand } from './program.ts';

/** Interval of the resident-set watchdog, in milliseconds. */
export const WORKER_WATCHDOG_INTERVAL_MS = 50;

/**
 * What a worker run needs from the launcher.
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export interface WorkerProcessDeps {
  env: Record<string, string>;
  tempRoot: string;
  killGraceMs: number;
  log(line: string): void;
  /** Started with an inspector (PLATFORM_WORKER_INSPECT=on): its port is logged once, read from the worker's stderr. */
  inspect?: boolean;
  /** Called with the worker's process id once it was started (the worker host logs and relays it). */
  onStarted?(pid: number): void;
}

/** What Node prints on stderr when its inspector listens: the port is the first group. */
const INSPECTOR_LISTENING = /Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)\//;

/**
 * Runs one worker to its end.
 *
 * Source: spec/platform-service.md § Rules 6–8
 */
export async function runWorkerProcess(deps: WorkerProcessDeps, options: WorkerRunOptions, start: (workDir: string) => Promise<WorkerCommand>): Promise<WorkerOutcome> {
  let workDir: string | undefined;
  let command: WorkerCommand;
  try {
    workDir = await mkdtemp(join(deps.tempRoot, 'cairn-worker-'));
    command = await start(workDir);
  } catch (error) {
    if (workDir) await rm(workDir, { recursive: true, force: true });
    const fallback = workDir ? 'its program is not available' : `its working directory could not be made under ${deps.tempRoot}`;
    const message = isPlatformError(error) ? error.message : fallback;
    return { ended: 'failed', reason: 'refused to start', message: `the ${options.kind} worker could not start: ${message}` };
  }
  try {
    return await new WorkerRun(deps, options, command, workDir).ended;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

class WorkerRun {
  readonly ended: Promise<WorkerOutcome>;
  private readonly child: ChildProcess;
  private readonly token = randomBytes(32);
  private revoked = false;
  private readonly facts: EndFacts = { stderr: '' };
  /** Run when the worker has ended: timers and listeners. */
  private readonly cleanups: (() => void)[] = [];

  constructor(private readonly deps: WorkerProcessDeps, private readonly options: WorkerRunOptions, command: WorkerCommand, workDir: string) {
    this.child = spawn(command.command, command.args, { cwd: workDir, env: deps.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.ended = new Promise((resolve) => {
      this.child.on('close', (code, signal) => resolve(this.onClosed(code, signal)));
    });
    this.child.on('error', (error: NodeJS.ErrnoException) => {
      this.facts.spawnError = error.code ?? 'an error';
    });
    this.child.stdin?.on('error', () => undefined); // a dead worker's pipe: its end is handled on close
    this.readStderr();
    readMessages<WorkerMessage>(this.child.stdout!, (message) => this.onMessage(message), (error) => {
      if (error) this.kill({ ended: 'failed', reason: 'lost its channel', message: `the ${options.kind} worker wrote something that is not a channel message` });
    });
    if (this.child.pid !== undefined) {
      this.watch();
      deps.onStarted?.(this.child.pid);
    }
    const { task, payload } = options;
    writeLine(this.child.stdin!, { type: 'start', token: this.token.toString('base64url'), task, payload });
  }

  /** Keeps the last 4 KiB of stderr (never logged); with an inspector, logs its port once. */
  private readStderr(): void {
    let inspectorLogged = !this.deps.inspect;
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      this.facts.stderr = (this.facts.stderr + chunk).slice(-4096);
      const port = inspectorLogged ? undefined : INSPECTOR_LISTENING.exec(this.facts.stderr)?.[1];
      if (port === undefined) return;
      inspectorLogged = true;
      const { kind, subject } = this.options;
      this.deps.log(`[worker] inspector of ${kind} worker ${this.child.pid} for ${subject} on 127.0.0.1:${port} (no permission model: PLATFORM_WORKER_INSPECT=on)`);
    });
  }

  private watch(): void {
    const { kind, limits, signal } = this.options;
    const pid = this.child.pid!;
    const ceiling = limits.memoryMb * 1024 * 1024;
    const watchdog = setInterval(() => {
      void readProcessMemory(pid).then((memory) => {
        if (memory && memory.rssBytes > ceiling) this.kill(limitMessage(kind, 'memory', limits));
      });
    }, WORKER_WATCHDOG_INTERVAL_MS);
    const wallTime = setTimeout(() => this.kill(limitMessage(kind, 'wall time', limits)), limits.wallTimeSeconds * 1000);
    this.cleanups.push(() => clearInterval(watchdog), () => clearTimeout(wallTime));
    const onAbort = (): void => this.kill({ ended: 'failed', reason: 'signalled', message: `the ${kind} worker was stopped: its run was cancelled` }, 'SIGTERM');
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    this.cleanups.push(() => signal?.removeEventListener('abort', onAbort));
  }

  /** Ends the worker for `outcome` (the first cause wins): SIGKILL, or SIGTERM then SIGKILL after the grace. */
  private kill(outcome: EndFacts['killedFor'], signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.facts.killedFor || this.facts.answer || this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.facts.killedFor = outcome;
    this.revoked = true;
    this.child.kill(signal);
    if (signal !== 'SIGKILL') this.killAfterGrace();
  }

  private onMessage(message: WorkerMessage): void {
    if (!this.holdsToken(message)) return this.refuse(message);
    if (message.type === 'request') return void this.answerRequest(message.id, message.op, message.args);
    if (message.type === 'denied') {
      const permission = /^[A-Za-z]{1,40}$/.test(String(message.permission)) ? message.permission : 'an operation';
      return this.deps.log(`[worker] refused ${permission} for ${this.options.subject}`);
    }
    if (message.type === 'result' || message.type === 'failed') this.onAnswer(message);
  }

  private holdsToken(message: WorkerMessage): boolean {
    if (this.revoked || typeof message?.token !== 'string') return false;
    const given = Buffer.from(message.token, 'base64url');
    return given.length === this.token.length && timingSafeEqual(given, this.token);
  }

  /** A message without this worker's token, or after it was revoked: refused, logged, never answered with data. */
  private refuse(message: WorkerMessage): void {
    const what = this.revoked ? 'a request after its end' : 'a request with a wrong token';
    this.deps.log(`[worker] refused ${what} for ${this.options.subject}`);
    if (message?.type === 'request' && typeof message.id === 'number' && this.child.stdin?.writable) {
      writeLine(this.child.stdin, { type: 'reply', id: message.id, error: { code: 'worker_token_refused', message: 'the request did not carry this worker\'s token, or the worker has ended' } });
    }
  }

  private async answerRequest(id: number, op: string, args: unknown): Promise<void> {
    let reply: { result: unknown } | { error: WireError };
    try {
      reply = { result: (await this.options.broker(String(op), args)) ?? null };
    } catch (error) {
      reply = { error: isPlatformError(error) ? { code: error.code, message: error.message } : { code: 'worker_request_failed', message: 'the platform could not answer this request' } };
    }
    if (!this.revoked && this.child.stdin?.writable) writeLine(this.child.stdin, { type: 'reply', id, ...reply });
  }

  /** The worker answered: its token is revoked, its channel closed; it exits by itself or is killed after the grace. */
  private onAnswer(message: Extract<WorkerMessage, { type: 'result' | 'failed' }>): void {
    if (this.facts.answer) return;
    this.facts.answer = message.type === 'result' ? { result: message.result } : { error: message.error };
    this.revoked = true;
    this.child.stdin?.end();
    this.killAfterGrace();
  }

  private killAfterGrace(): void {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), this.deps.killGraceMs);
    this.cleanups.push(() => clearTimeout(timer));
  }

  private onClosed(code: number | null, signal: NodeJS.Signals | null): WorkerOutcome {
    this.revoked = true;
    for (const cleanup of this.cleanups) cleanup();
    const outcome = classifyEnd(this.options, { ...this.facts, code, signal });
    const pid = this.child.pid ?? '(not started)';
    this.deps.log(`[worker] ended ${this.options.kind} worker ${pid} for ${this.options.subject} (${endedReason(outcome)})`);
    return outcome;
  }
}
