/**
 * One worker process from start to end: a fresh working directory, the sandbox of the launcher's plan
 * (./sandbox.ts: bubblewrap namespaces, or the permission model alone under a parent-death signal), its own
 * process group and a record in the run folder (./worker-registry.ts), the per-worker token and job on the
 * first line of its channel, the token checked (constant time) on every message and revoked once the worker has
 * answered (./worker-requests.ts), channel lines capped ({@link WORKER_CHANNEL_LINE_LIMIT}), its memory, wall
 * time, turn time and hook deadlines enforced from outside (./worker-limits.ts), its outcome known at its answer
 * (docs/decisions.md D24 § 2: its exit, the close of its channel and the removal of its directory follow while its
 * slot stays held), and its ending logged in one `[worker] ended …` line.
 *
 * Source: spec/platform-service.md § Rules 6–8; § Operational log lines ([worker]); § Errors;
 * docs/decisions.md D17 § 3.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isPlatformError } from '../../ports/platform-error.ts';
import type { WorkerOutcome, WorkerRunOptions } from '../../ports/worker.ts';
import { LineTooLongError } from '../runtime/json-lines.ts';
import { readMessages, WORKER_CHANNEL_LINE_LIMIT, type WorkerMessage, writeLine } from './protocol.ts';
import { classifyEnd, endedReason, type EndFacts, limitMessage } from './worker-outcome.ts';
import type { WorkerCommand } from './program.ts';
import type { SandboxPlan } from './sandbox.ts';
import type { HeldOutcome } from './slots.ts';
import { isolate, signalWorker } from './worker-signals.ts';
import { recordWorker } from './worker-registry.ts';
import { HookDeadlines, stopOnCancel, watchWorkerLimits } from './worker-limits.ts';
import { brokerReply, carriesToken, refusedReply } from './worker-requests.ts';

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
  /** How workers are isolated (./sandbox.ts); default permission-only. */
  sandbox?: SandboxPlan;
  /** setpriv's path: outside a namespace sandbox, the worker gets SIGKILL as parent-death signal through it. */
  setpriv?: string;
  /** The run folder of worker records (./worker-registry.ts); none when undefined. */
  runDir?: string;
  /**
   * Whether each worker starts in a session (and process group) of its own: default true. The launcher passes
   * false where it has no controlling terminal (../runtime/process-scheduling.ts: a session of its own is a
   * scheduling group of its own, which escapes the dispatcher's niceness).
   */
  newSession?: boolean;
}

/** What Node prints on stderr when its inspector listens: the port is the first group. */
const INSPECTOR_LISTENING = /Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)\//;

/**
 * Runs one worker: resolves with its outcome as soon as it is known (its answer: `result` or `failed`; else its end),
 * and `ended`, which settles (never rejects) once its process has exited, its channel closed, its `[worker] ended …`
 * line was logged and its working directory removed. What happens after the answer (an exit, a crash, the kill after
 * the grace) never changes the answered outcome. A worker refused before it started has no `ended`.
 *
 * Source: spec/platform-service.md § Rules 6–8; docs/decisions.md D24 § 2
 */
export async function runWorkerProcess(
  deps: WorkerProcessDeps,
  options: WorkerRunOptions,
  start: (workDir: string) => Promise<WorkerCommand>,
): Promise<HeldOutcome> {
  if (deps.sandbox?.mode === 'refused') {
    deps.log(`[worker] ended ${options.kind} worker (not started) for ${options.subject} (refused to start)`);
    const message = `the ${options.kind} worker could not start: ${deps.sandbox.reason}`;
    return { outcome: { ended: 'failed', reason: 'refused to start', message } };
  }
  let workDir: string | undefined;
  let command: WorkerCommand;
  try {
    // Made at once (one system call), not through the thread pool: docs/decisions.md D24 § 2.
    workDir = mkdtempSync(join(deps.tempRoot, 'cairn-worker-'));
    command = isolate(deps, await start(workDir), workDir);
  } catch (error) {
    if (workDir) await rm(workDir, { recursive: true, force: true });
    const fallback = workDir
      ? 'its program is not available'
      : `its working directory could not be made under ${deps.tempRoot}`;
    const message = isPlatformError(error) ? error.message : fallback;
    const outcome: WorkerOutcome = {
      ended: 'failed',
      reason: 'refused to start',
      message: `the ${options.kind} worker could not start: ${message}`,
    };
    return { outcome };
  }
  const run = new WorkerRun(deps, options, command, workDir);
  const removed = workDir;
  const ended = run.closed.then(() => rm(removed, { recursive: true, force: true })).catch(() => undefined);
  return { outcome: await run.answered, ended };
}

class WorkerRun {
  /** Settles with the outcome at the worker's answer, or at its end when it gave none. */
  readonly answered: Promise<WorkerOutcome>;
  /** Settles with the outcome once the process has exited and its channel closed. */
  readonly closed: Promise<WorkerOutcome>;
  private answer!: (outcome: WorkerOutcome) => void;
  private readonly child: ChildProcess;
  private readonly token = randomBytes(32);
  private revoked = false;
  private readonly facts: EndFacts = { stderr: '' };
  /** Run when the worker has ended: timers and listeners. */
  private readonly cleanups: (() => void)[] = [];
  /** Hook deadlines the worker announced, by its hook id. */
  private readonly hookDeadlines: HookDeadlines;

  constructor(
    private readonly deps: WorkerProcessDeps,
    private readonly options: WorkerRunOptions,
    command: WorkerCommand,
    workDir: string,
  ) {
    this.hookDeadlines = new HookDeadlines({ options, kill: (outcome, signal) => this.kill(outcome, signal) });
    // With a controlling terminal, its own session and process group (detached), so that it and anything under it
    // are ended together; without one it stays in the launcher's (bubblewrap's namespace or the permission model
    // keeps it from starting processes that outlive it).
    const stdio: ['pipe', 'pipe', 'pipe'] = ['pipe', 'pipe', 'pipe'];
    const detached = deps.newSession ?? true;
    this.child = spawn(command.command, command.args, { cwd: workDir, env: deps.env, stdio, detached });
    this.facts.sandboxed = deps.sandbox?.mode === 'namespaces';
    this.answered = new Promise((resolve) => (this.answer = resolve));
    this.closed = new Promise((resolve) => {
      this.child.on('close', (code, signal) => resolve(this.onClosed(code, signal)));
    });
    this.child.on('error', (error: NodeJS.ErrnoException) => {
      this.facts.spawnError = error.code ?? 'an error';
    });
    this.child.stdin?.on('error', () => undefined); // a dead worker's pipe: its end is handled on close
    this.readStderr();
    readMessages<WorkerMessage>(this.child.stdout!, (message) => this.onMessage(message), (error) => {
      if (error instanceof LineTooLongError) {
        this.kill(limitMessage(options.kind, 'channel line', options.limits, WORKER_CHANNEL_LINE_LIMIT));
      } else if (error) {
        const message = `the ${options.kind} worker wrote something that is not a channel message`;
        this.kill({ ended: 'failed', reason: 'lost its channel', message });
      }
    }, { maxLineChars: WORKER_CHANNEL_LINE_LIMIT });
    if (this.child.pid !== undefined) {
      if (deps.runDir) this.cleanups.push(recordWorker(deps.runDir, this.child.pid, workDir));
      this.watch();
      deps.onStarted?.(this.child.pid);
      options.onProgress?.({ kind: 'spawned' });
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
      this.deps.log(
        `[worker] inspector of ${kind} worker ${this.child.pid} for ${subject} on 127.0.0.1:${port} (no permission ` +
          `model: PLATFORM_WORKER_INSPECT=on)`,
      );
    });
  }

  /** Enforces the worker's limits and its run's cancellation from outside (./worker-limits.ts). */
  private watch(): void {
    const worker = {
      pid: this.child.pid!,
      options: this.options,
      kill: (outcome: EndFacts['killedFor'], signal?: NodeJS.Signals) => this.kill(outcome, signal),
      onEnded: (cleanup: () => void) => void this.cleanups.push(cleanup),
    };
    watchWorkerLimits(worker);
    this.cleanups.push(() => this.hookDeadlines.clear());
    stopOnCancel(worker);
  }

  /** Ends the worker for `outcome` (the first cause wins): SIGKILL, or SIGTERM then SIGKILL after the grace. */
  private kill(outcome: EndFacts['killedFor'], signal: NodeJS.Signals = 'SIGKILL'): void {
    if (this.facts.killedFor || this.facts.answer || this.child.exitCode !== null || this.child.signalCode !== null) {
      return;
    }
    this.facts.killedFor = outcome;
    this.revoked = true;
    this.signalGroup(signal);
    if (signal !== 'SIGKILL') this.killAfterGrace();
  }

  /** Sends `signal` to the worker (see {@link signalWorker}), unless it has ended. */
  private signalGroup(signal: NodeJS.Signals): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    signalWorker(this.child, this.facts.sandboxed ?? false, signal);
  }

  private onMessage(message: WorkerMessage): void {
    if (!this.holdsToken(message)) return this.refuse(message);
    if (message.type === 'request') return void this.answerRequest(message.id, message.op, message.args);
    if (message.type === 'deadline') return this.hookDeadlines.announce(message.id, message.ms);
    if (message.type === 'started') return this.options.onProgress?.({ kind: 'ready' });
    if (message.type === 'denied') {
      const permission = /^[A-Za-z]{1,40}$/.test(String(message.permission)) ? message.permission : 'an operation';
      return this.deps.log(`[worker] refused ${permission} for ${this.options.subject}`);
    }
    if (message.type === 'result' || message.type === 'failed') this.onAnswer(message);
  }

  private holdsToken(message: WorkerMessage): boolean {
    return !this.revoked && carriesToken(message, this.token);
  }

  /** A message without this worker's token, or after it was revoked: refused, logged, never answered with data. */
  private refuse(message: WorkerMessage): void {
    const what = this.revoked ? 'a request after its end' : 'a request with a wrong token';
    this.deps.log(`[worker] refused ${what} for ${this.options.subject}`);
    const reply = refusedReply(message);
    if (reply && this.child.stdin?.writable) writeLine(this.child.stdin, reply);
  }

  private async answerRequest(id: number, op: string, args: unknown): Promise<void> {
    const reply = await brokerReply(this.options.broker, op, args);
    if (!this.revoked && this.child.stdin?.writable) writeLine(this.child.stdin, { type: 'reply', id, ...reply });
  }

  /** The worker answered: its token is revoked, its channel closed; it exits by itself or is killed after the grace. */
  private onAnswer(message: Extract<WorkerMessage, { type: 'result' | 'failed' }>): void {
    if (this.facts.answer) return;
    this.facts.answer = message.type === 'result' ? { result: message.result } : { error: message.error };
    this.revoked = true;
    this.child.stdin?.end();
    this.killAfterGrace();
    // Known now (./worker-outcome.ts: an answer, taken only before any kill, decides the outcome whatever follows).
    this.answer(classifyEnd(this.options, this.facts));
  }

  private killAfterGrace(): void {
    const timer = setTimeout(() => this.signalGroup('SIGKILL'), this.deps.killGraceMs);
    this.cleanups.push(() => clearTimeout(timer));
  }

  private onClosed(code: number | null, signal: NodeJS.Signals | null): WorkerOutcome {
    this.revoked = true;
    for (const cleanup of this.cleanups) cleanup();
    const outcome = classifyEnd(this.options, { ...this.facts, code, signal });
    const pid = this.child.pid ?? '(not started)';
    this.deps.log(
      `[worker] ended ${this.options.kind} worker ${pid} for ${this.options.subject} (${endedReason(outcome)})`,
    );
    this.answer(outcome);
    return outcome;
  }
}
