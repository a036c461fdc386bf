/**
 * How a worker's end becomes its outcome and the reason of its `[worker] ended …` line.
 * Reasons logged: the spec's `refused to start`, `exceeded a limit`, `lost its channel`, `signalled`, and
 * for a worker that answered, `finished` (a result) or `failed` (its task failed).
 *
 * Source: spec/platform-service.md § Operational log lines ([worker] ended <worker> for <turn or
 * call> with the reason); § Errors (worker exceeds memory or wall-time limit); § Rules 7.
 */
import type { WorkerKind, WorkerLimitName, WorkerLimits, WorkerOutcome, WorkerRunOptions } from '../../ports/worker.ts';
import { constants } from 'node:os';
import { REFUSED_TO_START_EXIT_CODE, type WireError } from './protocol.ts';

/** A failed outcome decided by the launcher (it killed the worker for it). */
type KilledFor = Extract<WorkerOutcome, { ended: 'failed' }>;

/**
 * What is known once a worker has ended.
 *
 * Source: spec/platform-service.md § Operational log lines ([worker])
 */
export interface EndFacts {
  /** Why the launcher ended it, when it did (the first cause). */
  killedFor?: KilledFor;
  /** The worker's answer, when it gave one. */
  answer?: { result: unknown } | { error: WireError };
  /** The code of a start failure (e.g. ENOENT). */
  spawnError?: string;
  /** The last 4 KiB of its standard error (never logged; read for the refusal line and heap exhaustion). */
  stderr: string;
  code?: number | null;
  signal?: NodeJS.Signals | null;
  /** Whether it ran under bubblewrap (which exits 128 + n when its worker was killed by signal n). */
  sandboxed?: boolean;
}

/** Node's words when a heap or allocation limit ended the process. */
const OUT_OF_MEMORY = /JavaScript heap out of memory|Reached heap limit|Fatal process out of memory|Allocation failed/;

/**
 * The failed outcome for a limit, naming it with its variable and value, e.g. "the turn worker exceeded
 * its memory limit (PLATFORM_WORKER_TURN_MEMORY_MB = 128 MiB)". `value` is the hook's or turn's limit in
 * seconds (`hook time`, `turn time`) or the line limit in characters (`channel line`).
 *
 * Source: spec/platform-service.md § Errors; § Deployment settings (PLATFORM_WORKER_*); docs/decisions.md D17 § 3
 */
export function limitMessage(
  kind: WorkerKind,
  limit: WorkerLimitName,
  limits: WorkerLimits,
  value?: number,
): KilledFor {
  const prefix = `PLATFORM_WORKER_${kind.toUpperCase()}`;
  const named: Record<WorkerLimitName, string> = {
    memory: `memory limit (${prefix}_MEMORY_MB = ${limits.memoryMb} MiB)`,
    'wall time': `wall-time limit (${prefix}_SECONDS = ${limits.wallTimeSeconds} s)`,
    'hook time': `hook time limit (a hook runs at most ${value} s; it was stopped from outside the worker)`,
    'turn time': `turn time limit (the workflow's turn_seconds = ${value} s; it was stopped from outside the worker)`,
    'channel line': `channel line limit (${Math.round((value ?? 0) / 1024 / 1024)} MiB per message)`,
  };
  const message = `the ${kind} worker exceeded its ${named[limit]}`;
  return { ended: 'failed', reason: 'exceeded a limit', limit, message };
}

/**
 * The outcome of an ended worker.
 *
 * Source: spec/platform-service.md § Operational log lines ([worker]); § Errors
 */
export function classifyEnd(options: Pick<WorkerRunOptions, 'kind' | 'limits'>, facts: EndFacts): WorkerOutcome {
  const { kind } = options;
  if (facts.killedFor) return facts.killedFor;
  if (facts.answer && 'result' in facts.answer) return { ended: 'finished', result: facts.answer.result };
  if (facts.answer) {
    return { ended: 'failed', reason: 'error', code: facts.answer.error.code, message: facts.answer.error.message };
  }
  if (facts.spawnError) {
    return {
      ended: 'failed',
      reason: 'refused to start',
      message: `the ${kind} worker could not start (${facts.spawnError})`,
    };
  }
  if (facts.code === REFUSED_TO_START_EXIT_CODE) {
    const said = /^worker refused to start: ([^\n]{1,600})/m.exec(facts.stderr)?.[1] ?? 'its start-up check failed';
    return { ended: 'failed', reason: 'refused to start', message: `the ${kind} worker refused to start: ${said}` };
  }
  if (OUT_OF_MEMORY.test(facts.stderr)) return limitMessage(kind, 'memory', options.limits);
  const signal = facts.signal ?? signalOfSandboxExit(facts);
  if (signal) return { ended: 'failed', reason: 'signalled', message: `the ${kind} worker was ended by ${signal}` };
  return {
    ended: 'failed',
    reason: 'lost its channel',
    message: `the ${kind} worker ended (exit code ${facts.code ?? 'unknown'}) without answering`,
  };
}

/** A sandboxed worker's signal as bubblewrap reports it: exit code 128 + the signal's number. */
function signalOfSandboxExit(facts: EndFacts): string | undefined {
  if (!facts.sandboxed || typeof facts.code !== 'number') return undefined;
  if (facts.code <= 128 || facts.code >= 128 + 65) return undefined;
  const number = facts.code - 128;
  return Object.entries(constants.signals).find(([, n]) => n === number)?.[0];
}

/**
 * The reason printed in `[worker] ended …`.
 *
 * Source: spec/platform-service.md § Operational log lines ([worker])
 */
export function endedReason(outcome: WorkerOutcome): string {
  if (outcome.ended === 'finished') return 'finished';
  return outcome.reason === 'error' ? 'failed' : outcome.reason;
}
