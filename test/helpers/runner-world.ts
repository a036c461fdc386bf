/**
 * The turn runner's tests' world (core/session/turn-*.test.ts, cancel-watch.test.ts): the in-memory stores with
 * counting ids and the system clock, a dispatcher's TurnRunnerDeps over them with a launcher (a port fake) and more,
 * and `queuedTurn`, which inserts a session (organization `o1`, agent `a1`, build `b1`, environment `main`) and its
 * queued turn. `inProcessLauncher` is a launcher whose worker runs the real engine in-process over the run's broker,
 * each host method a request to it, as bins/worker/turn.ts does.
 */
import { systemClock } from '../../core/adapters/runtime/system-clock.ts';
import { WorkerSlots } from '../../core/adapters/worker/slots.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { WorkerLauncher, WorkerRunOptions } from '../../core/ports/worker.ts';
import { runTurn } from '../../core/session/run-turn.ts';
import type { TurnKind } from '../../core/session/model.ts';
import { insertSession, insertTurn } from '../../core/session/session-store.ts';
import { type TurnContext, type TurnHost, turnHostMethods } from '../../core/session/turn-host.ts';
import type { TurnRunnerDeps } from '../../core/session/turn-runner.ts';
import type { WorkflowView } from '../../core/session/workflow-view.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';

/** A deps member no test of this world calls: it throws when called. */
const unused = () => {
  throw new Error('unused');
};

/**
 * What a world is made of: its launcher, the deployed workflow (default: none, `workflowOf` throws), more deps, and
 * a document store (default: a new in-memory one).
 */
export interface RunnerWorldOptions {
  launcher: WorkerLauncher;
  workflow?: WorkflowView;
  more?: Record<string, unknown>;
  docs?: DocumentStore;
}

/** The stores, the runner's deps and a way to queue a turn (`state` of the workflow, a `prompt` turn by default). */
export function runnerWorld({ launcher, workflow, more = {}, docs }: RunnerWorldOptions) {
  let n = 0;
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '0',
  };
  const store = {
    docs: docs ?? createMemoryDocumentStore(),
    objects: createMemoryObjectStore(),
    clock: systemClock,
    ids,
  };
  const deps = {
    ...store,
    launcher,
    models: { stream: unused },
    costOf: () => 0,
    catalog: { tools: async () => [], call: async () => ({ output: '', isError: true }) },
    promptCache: { enabled: false, ttl: '5m' },
    limits: { memoryMb: 256, wallTimeSeconds: 60 },
    instanceId: 'dispatcher-1',
    workflowOf: workflow ? async () => workflow : async () => unused(),
    ...more,
  } as unknown as TurnRunnerDeps;
  const queuedTurn = async (state: string, turn: { kind?: TurnKind; message?: string } = {}) => {
    const session = await insertSession(store, {
      orgId: 'o1',
      agentId: 'a1',
      environment: 'main',
      workflow: workflow?.slug ?? 'chat',
      buildId: 'b1',
      commitId: 'c1',
      state,
      variables: {},
      lockedVariables: [],
      trigger: 'manual',
      depth: 0,
      inheritedForbid: [],
    });
    const queued = await insertTurn(store, session, {
      kind: turn.kind ?? 'prompt',
      input: { message: turn.message ?? 'Hello?' },
    });
    return { session, turn: queued };
  };
  return { store, deps, queuedTurn };
}

/**
 * A launcher (port fake) with one slot of each kind whose worker runs the engine in-process over the run's broker:
 * `ops` lists the broker requests in order, `runs` the subjects of the runs it started, and `reads` the store reads
 * each request made (`counted`: the store's read count; none without it).
 */
export function inProcessLauncher(counted?: () => number) {
  const slots = new WorkerSlots({ turn: 1, call: 1 });
  const ops: string[] = [];
  const runs: string[] = [];
  const reads: number[] = [];
  const launcher: WorkerLauncher = {
    reserve: (kind, signal) => slots.reserve(kind, signal),
    run: (options: WorkerRunOptions) =>
      slots.runInSlot(options, async () => {
        runs.push(options.subject);
        const host = {} as Record<string, unknown>;
        for (const method of turnHostMethods) {
          host[method] = async (...args: unknown[]) => {
            ops.push(`turn.${method}`);
            const before = counted?.() ?? 0;
            try {
              return await options.broker(`turn.${method}`, args);
            } finally {
              if (counted) reads.push(counted() - before);
            }
          };
        }
        const { turnId, context } = options.payload as { turnId: string; context?: TurnContext };
        const engine = { host: host as unknown as TurnHost, hooks: { run: async () => null }, now: () => Date.now() };
        return { ended: 'finished', result: await runTurn(engine, turnId, context) };
      }),
  };
  return { launcher, ops, runs, reads };
}
