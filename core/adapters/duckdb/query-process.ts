/**
 * The parent side of one query process: spawns the child (semantic-mcp's own executable with the
 * query-process flag, a minimal environment without secrets, stdio pipes), opens its query instance
 * over one data database, measures its base memory and sets its ceiling, then runs one query at a
 * time. The deadline is kept here: at `timeoutMs` the caller gets `query_timeout` at once, the child
 * is asked to interrupt, and a child that has not answered within the grace period is killed
 * (SIGKILL). A child past its memory ceiling is killed and the caller gets `query_memory_exceeded`.
 *
 * Source: spec/semantic-query-service.md § Limits (query timeout, engine memory).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import type { Logger } from '../../ports/logger.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { limitDataSize, queryProcessBudgetBytes, readProcessMemory, retireAfterGrowthBytes } from './memory-ceiling.ts';
import { type ChildMessage, type ExecuteMessage, readMessages, writeMessage } from './query-protocol.ts';
import { type Execution, ExecutionTracker, type TrackedProcess } from './query-execution.ts';

/**
 * How to start a query process: the executable, its arguments (including the flag that makes it a
 * query process) and its whole environment (no secrets: the child needs none).
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface QueryProcessCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * Options of {@link startQueryProcess}.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface QueryProcessOptions {
  command: QueryProcessCommand;
  dataKey: string;
  /** The data database built by the parent (attached read-only by the child). */
  databaseFile: string;
  /** The child's spill directory, removed when the child has ended. */
  spillDirectory: string;
  logger: Logger;
  /** Milliseconds a child gets to stop after the interrupt before it is killed (default 500). */
  graceMs?: number;
  /** Set RLIMIT_DATA with prlimit (default true); the watchdog runs either way. */
  kernelLimit?: boolean;
  /** Called once the child has ended and its spill directory is gone. */
  onEnded?: (process: QueryProcess) => void;
}

/** A query's fields as the child receives them. */
export type QueryRequest = Omit<ExecuteMessage, 'type' | 'id'>;

export type { Execution } from './query-execution.ts';

/**
 * A started query process. `ready` resolves once the child has opened its instance and its ceiling
 * is set, and rejects with PlatformError `query_failed` when it cannot start or open.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export interface QueryProcess {
  readonly pid: number | undefined;
  readonly dataKey: string;
  readonly ready: Promise<void>;
  /** Resident bytes measured once open (0 where /proc is unavailable). */
  readonly baseRssBytes: number;
  /** False once the child has been killed or has ended. */
  readonly alive: boolean;
  /** Runs one query (never two at a time). */
  execute(request: QueryRequest, timeoutMs: number): Execution;
  /** Kills the child (SIGKILL); `ended` resolves once it is gone. */
  kill(reason: string): void;
  readonly ended: Promise<void>;
}

/**
 * Spawns a query process for `options.dataKey`.
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function startQueryProcess(options: QueryProcessOptions): QueryProcess {
  return new ChildQueryProcess(options);
}

/** Warnings about a missing mechanism are logged once per process, not once per child. */
const warned = new Set<string>();
function warnOnce(logger: Logger, key: string, fields: Record<string, unknown>, message: string): void {
  if (warned.has(key)) return;
  warned.add(key);
  logger.warn(fields, message);
}

interface InFlight {
  id: number;
  answer(message: ChildMessage): void;
  ended(): void;
}

class ChildQueryProcess implements QueryProcess, TrackedProcess {
  readonly dataKey: string;
  readonly ready: Promise<void>;
  readonly ended: Promise<void>;
  baseRssBytes = 0;
  private baseDataBytes = 0;
  alive = true;
  private readonly child: ChildProcess;
  private readonly logger: Logger;
  private inFlight: InFlight | undefined;
  private opening: { resolve(): void; reject(error: Error): void } | undefined;
  private nextId = 1;
  private killedFor: string | undefined;

  constructor(private readonly options: QueryProcessOptions) {
    this.dataKey = options.dataKey;
    const { command, args, env } = options.command;
    this.child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'inherit'] });
    this.logger = options.logger.child({ dataKey: options.dataKey, pid: this.child.pid });
    this.child.stdin?.on('error', () => undefined); // a dead child's pipe: its end is handled on close
    this.ended = new Promise((resolve) =>
      this.child.on('close', (code, signal) => void this.onClosed(code, signal).finally(resolve))
    );
    this.child.on('error', (error) => this.logger.error({ err: error.message }, 'query process could not start'));
    readMessages<ChildMessage>(this.child.stdout!, (message) => this.onMessage(message), (error) => {
      if (error) this.kill(`unreadable output (${error.message})`);
    });
    this.ready = new Promise<void>((resolve, reject) => {
      this.opening = { resolve, reject };
    }).then(() => this.setCeiling());
    writeMessage(this.child.stdin!, {
      type: 'open',
      databaseFile: options.databaseFile,
      spillDirectory: options.spillDirectory,
    });
    this.logger.info({}, 'query process started');
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  execute(request: QueryRequest, timeoutMs: number): Execution {
    const id = this.nextId++;
    const execution = new ExecutionTracker(this, id, timeoutMs);
    this.inFlight = {
      id,
      answer: (message) => execution.answer(message),
      ended: () => execution.ended(this.killedFor),
    };
    if (this.alive) writeMessage(this.child.stdin!, { type: 'execute', id, ...request });
    else execution.ended(undefined);
    void execution.done.then(() => {
      if (this.inFlight?.id === id) this.inFlight = undefined;
    });
    return execution;
  }

  /** Sends the interrupt for request `id`. */
  interrupt(id: number): void {
    if (this.alive) writeMessage(this.child.stdin!, { type: 'interrupt', id });
  }

  /** Current resident bytes over the ceiling, or undefined when within it (or unknown). */
  async overCeiling(): Promise<number | undefined> {
    if (!this.alive || !this.child.pid || this.baseRssBytes === 0) return undefined;
    const memory = await readProcessMemory(this.child.pid);
    return memory && memory.rssBytes > this.baseRssBytes + queryProcessBudgetBytes ? memory.rssBytes : undefined;
  }

  /**
   * After a query: true when the child may take the next one; false (and the child is retired)
   * when it holds on to more than retireAfterGrowthBytes over its base.
   */
  async keepAfterQuery(): Promise<boolean> {
    if (!this.alive || !this.child.pid || this.baseRssBytes === 0) return this.alive;
    const memory = await readProcessMemory(this.child.pid);
    if (!memory) return this.alive;
    const grown = Math.max(memory.rssBytes - this.baseRssBytes, memory.dataBytes - this.baseDataBytes);
    if (grown <= retireAfterGrowthBytes) return this.alive;
    this.kill('memory retained after a query');
    return false;
  }

  kill(reason: string): void {
    if (!this.alive) return;
    this.alive = false;
    this.killedFor = reason;
    this.logger.info({ reason }, 'query process killed');
    this.child.kill('SIGKILL');
  }

  private onMessage(message: ChildMessage): void {
    if (message.type === 'ready') this.opening?.resolve();
    else if (message.type === 'open_failed') this.opening?.reject(openFailed(message.message));
    else if (this.inFlight && this.inFlight.id === message.id) this.inFlight.answer(message);
    if (message.type === 'ready' || message.type === 'open_failed') this.opening = undefined;
  }

  private async onClosed(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    const expected = this.killedFor !== undefined;
    this.alive = false;
    this.opening?.reject(openFailed(`the query process ended while opening (exit ${code ?? signal})`));
    this.inFlight?.ended();
    await rm(this.options.spillDirectory, { recursive: true, force: true }).catch(() => undefined);
    if (!expected) this.logger.warn({ code, signal }, 'query process ended');
    this.options.onEnded?.(this);
  }

  /** Measures the base and sets RLIMIT_DATA; a child that cannot be measured runs without a ceiling. */
  private async setCeiling(): Promise<void> {
    const pid = this.child.pid;
    const memory = pid ? await readProcessMemory(pid) : undefined;
    if (!pid || !memory) {
      warnOnce(
        this.logger,
        'proc',
        {},
        'query process memory cannot be read (no /proc): query processes run without a memory ceiling',
      );
      return;
    }
    this.baseRssBytes = memory.rssBytes;
    this.baseDataBytes = memory.dataBytes;
    if (this.options.kernelLimit !== false) {
      const refused = await limitDataSize(pid, memory.dataBytes + queryProcessBudgetBytes);
      if (refused) {
        warnOnce(
          this.logger,
          'prlimit',
          { reason: refused },
          'RLIMIT_DATA not set on query processes (prlimit): the resident-set watchdog alone enforces their ceiling',
        );
      }
    }
    this.logger.info(
      { baseRssBytes: memory.rssBytes, ceilingBytes: memory.rssBytes + queryProcessBudgetBytes },
      'query process ready',
    );
  }

  /** Milliseconds of grace after the interrupt. */
  get graceMs(): number {
    return this.options.graceMs ?? 500;
  }
}

function openFailed(reason: string): PlatformError {
  return new PlatformError('query_failed', `The query engine could not open the project's data: ${reason}`, {
    status: 500,
  });
}
