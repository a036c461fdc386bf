/**
 * One service call of a polling or callback trigger, run in a call worker: the worker task (`poll`, `subscribe`,
 * `callback` in bins/worker/service-tasks.ts) asks this process's broker for exactly the call it was started for
 * (`service.call` with `{collection, tool, input}`); the broker makes it through the tool catalog (which holds the
 * service's token: the worker holds none) and refuses any other operation or call with a `[worker] refused` line.
 *
 * Source: spec/platform-service.md § Rules 4, 6–7 (call workers run a poll, a callback run, a trigger lifecycle
 * step; at most PLATFORM_WORKER_CALL_SLOTS at once), § Operational log lines ([worker] refused …); docs/decisions.md
 * D8.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { ToolCatalog } from '../ports/tool-catalog.ts';
import type { WorkerLauncher, WorkerLimits } from '../ports/worker.ts';

/** The one call a service task may make. */
export interface ServiceCall {
  collection: string;
  tool: string;
  input: Record<string, unknown>;
}

/** What running a service task needs. */
export interface ServiceCallDeps {
  launcher: WorkerLauncher;
  catalog: ToolCatalog;
  /** Call worker limits (PLATFORM_WORKER_CALL_MEMORY_MB, PLATFORM_WORKER_CALL_SECONDS). */
  callLimits: WorkerLimits;
  /** Receives `[worker] refused …` lines. */
  log(line: string): void;
}

const sameCall = (a: unknown, b: ServiceCall) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The organization and agent a service call is made for (from the trigger's records, never the worker): the call
 * carries that organization's credential for the collection (core/collection; docs/decisions.md D22 § 4).
 */
export interface ServiceCaller {
  orgId: string;
  agentId: string;
}

/**
 * The broker of a service task: answers `service.call` for `call` only.
 * @throws PlatformError `operation_refused` for any other operation or call (logged once per refusal)
 */
export function serviceCallBroker(
  deps: Pick<ServiceCallDeps, 'catalog' | 'log'>,
  call: ServiceCall,
  run: { subject: string; caller?: ServiceCaller },
): (op: string, args: unknown) => Promise<unknown> {
  const { subject, caller } = run;
  return async (op, args) => {
    if (op !== 'service.call' || !sameCall(args, call)) {
      deps.log(`[worker] refused ${/^[A-Za-z.]{1,40}$/.test(op) ? op : 'an operation'} for ${subject}`);
      throw new PlatformError(
        'operation_refused',
        'The broker makes only the service call this worker was started for.',
      );
    }
    return deps.catalog.call(call.collection, call.tool, call.input, caller ?? {});
  };
}

/**
 * Runs `task` in a call worker for `call` and resolves with the task's result.
 * @param subject - how log lines name the run, e.g. `call poll <trigger>`; never a value
 * @throws PlatformError with the task's code (`poll_failed`, `callback_failed`, … carrying the service's reason), or
 *   `worker_limit` / `worker_failed` naming how the worker ended
 */
export async function runServiceCall(
  deps: ServiceCallDeps,
  run: { task: 'poll' | 'subscribe' | 'callback'; subject: string; call: ServiceCall; caller?: ServiceCaller },
): Promise<unknown> {
  const outcome = await deps.launcher.run({
    kind: 'call',
    subject: run.subject,
    task: run.task,
    payload: run.call,
    limits: deps.callLimits,
    broker: serviceCallBroker(deps, run.call, run),
  });
  if (outcome.ended === 'finished') return outcome.result;
  throw new PlatformError(outcome.code ?? (outcome.limit ? 'worker_limit' : 'worker_failed'), outcome.message);
}
