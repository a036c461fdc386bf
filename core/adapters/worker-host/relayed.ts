/**
 * What a dispatching process accepts from its worker host beyond the handshake: `[worker] …` lines (one
 * printable line each) and the outcome (the port's shape). Anything else is dropped, or, for an outcome,
 * counts as a lost channel.
 *
 * Source: spec/platform-service.md § Rules 10; § Operational log lines ([worker]).
 */
import type { WorkerFailureReason, WorkerLimitName, WorkerOutcome } from '../../ports/worker.ts';

const REASONS: readonly WorkerFailureReason[] = [
  'refused to start',
  'exceeded a limit',
  'lost its channel',
  'signalled',
  'error',
];
const LIMITS: readonly WorkerLimitName[] = ['memory', 'wall time', 'hook time', 'turn time', 'channel line'];

/**
 * `line` when it is one `[worker] …` line of printable characters (at most 1000), else undefined.
 *
 * Source: spec/platform-service.md § Operational log lines ([worker])
 */
export function relayedLine(line: unknown): string | undefined {
  return typeof line === 'string' && /^\[worker\] [^\x00-\x1f\x7f]{1,990}$/.test(line) ? line : undefined;
}

/**
 * `value` as a {@link WorkerOutcome} when it has that shape, else undefined.
 *
 * Source: spec/platform-service.md § Rules 6–7
 */
export function checkOutcome(value: unknown): WorkerOutcome | undefined {
  const outcome = value as Record<string, unknown> | undefined;
  if (outcome?.ended === 'finished' && 'result' in outcome) return { ended: 'finished', result: outcome.result };
  if (outcome?.ended !== 'failed' || typeof outcome.message !== 'string') return undefined;
  if (!REASONS.includes(outcome.reason as WorkerFailureReason)) return undefined;
  const failed: WorkerOutcome = {
    ended: 'failed',
    reason: outcome.reason as WorkerFailureReason,
    message: outcome.message.slice(0, 4000),
  };
  if (LIMITS.includes(outcome.limit as WorkerLimitName)) failed.limit = outcome.limit as WorkerLimitName;
  if (typeof outcome.code === 'string') failed.code = outcome.code;
  return failed;
}
