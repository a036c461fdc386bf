/**
 * Where a turn's time goes, for scripts/bench-runtime part 2: wrappers around the ports a turn runner is given (the
 * worker launcher, the document store, the model provider), so nothing of the product pays for the timing and the
 * same wrappers measure the baseline revision's code. One {@link TurnTrace} per turn holds timestamps
 * (performance.now(), ms) and sums; {@link turnPhases} turns it into named phases.
 *
 * Source: docs/architecture.md § Life of a turn (the phases: claim, worker start, broker round trips, settle).
 */

/** The timestamps and sums of one turn (ms). */
export interface TurnTrace {
  start: number;
  runCalled?: number;
  spawned?: number;
  runResolved?: number;
  end?: number;
  /** Each broker request: op, when it arrived, when its reply was handed back, model and store ms inside it. */
  requests: { op: string; at: number; done: number }[];
  modelMs: number;
  /** Store time (ms) and operations, reads and writes, inside broker requests and outside them. */
  store: { brokerMs: number; outsideMs: number; writes: number; reads: number };
}

/** A new trace starting now. */
export const newTrace = (): TurnTrace => ({
  start: performance.now(),
  requests: [],
  modelMs: 0,
  store: { brokerMs: 0, outsideMs: 0, writes: 0, reads: 0 },
});

/** The trace being recorded (turns run one at a time in the bench). */
let current: TurnTrace | undefined;
let inBroker = 0;

/** Records into `trace` until the next call (undefined stops recording). */
export function recordInto(trace: TurnTrace | undefined): void {
  current = trace;
  inBroker = 0;
}

const writeMethods = new Set(['insertOne', 'updateOne', 'deleteOne', 'deleteMany', 'createIndex']);

type AnyFn = (...args: unknown[]) => unknown;

/** The document store `docs` with every collection operation timed into the current trace. */
export function tracedDocs<D extends { collection(name: string): unknown }>(docs: D): D {
  const wrapCollection = (collection: Record<string, unknown>) =>
    new Proxy(collection, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const trace = current;
          const t0 = performance.now();
          const result = (value as AnyFn).apply(target, args);
          if (!trace || !(result instanceof Promise)) return result;
          const write = writeMethods.has(String(key));
          const broker = inBroker > 0;
          return result.finally(() => {
            const ms = performance.now() - t0;
            if (broker) trace.store.brokerMs += ms;
            else trace.store.outsideMs += ms;
            if (write) trace.store.writes += 1;
            else trace.store.reads += 1;
          });
        };
      },
    });
  return new Proxy(docs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (key !== 'collection') return value;
      return (name: string) => wrapCollection((value as AnyFn).call(target, name) as Record<string, unknown>);
    },
  });
}

/** A model provider whose calls' time (first request to last event) is added to the current trace. */
export function tracedModels<M extends { stream(request: never): AsyncIterable<unknown> }>(models: M): M {
  return {
    stream(request: never) {
      return (async function* () {
        const trace = current;
        const t0 = performance.now();
        try {
          yield* models.stream(request);
        } finally {
          if (trace) trace.modelMs += performance.now() - t0;
        }
      })();
    },
  } as unknown as M;
}

type Broker = (op: string, args: unknown) => Promise<unknown>;
interface RunOptions { broker: Broker; onStarted?(pid: number): void }
interface Launcher { run(options: never): Promise<unknown>; reserve(kind: never, signal?: AbortSignal): Promise<unknown> }

/** The launcher with its run's start, spawn, broker requests and end recorded into the current trace. */
export function tracedLauncher<L extends Launcher>(launcher: L): L {
  return {
    ...launcher,
    reserve: (kind: never, signal?: AbortSignal) => launcher.reserve(kind, signal),
    async run(options: RunOptions) {
      const trace = current;
      if (trace) trace.runCalled = performance.now();
      const broker: Broker = async (op, args) => {
        const at = performance.now();
        inBroker += 1;
        try {
          return await options.broker(op, args);
        } finally {
          inBroker -= 1;
          trace?.requests.push({ op, at, done: performance.now() });
        }
      };
      const onStarted = (pid: number) => {
        if (trace) trace.spawned = performance.now();
        options.onStarted?.(pid);
      };
      try {
        return await launcher.run({ ...options, broker, onStarted } as never);
      } finally {
        if (trace) trace.runResolved = performance.now();
      }
    },
  } as unknown as L;
}

/** The phases of one turn, in order (ms), and its counts. */
export interface TurnPhases {
  phases: [string, number][];
  requests: number;
  writes: number;
  reads: number;
}

/** Names and milliseconds of the phases of `trace` (a finished turn). */
export function turnPhases(trace: TurnTrace): TurnPhases {
  const { start, runCalled = start, spawned = runCalled, runResolved = spawned, end = runResolved } = trace;
  const requests = [...trace.requests].sort((a, b) => a.at - b.at);
  const brokerMs = requests.reduce((sum, r) => sum + (r.done - r.at), 0);
  let gaps = 0;
  for (let i = 1; i < requests.length; i += 1) gaps += Math.max(0, requests[i].at - requests[i - 1].done);
  const first = requests[0]?.at ?? runResolved;
  const last = requests.at(-1)?.done ?? first;
  return {
    phases: [
      ['before the worker: slot, claim, cancel watch, workflow read', runCalled - start],
      ['  of which store operations', trace.store.outsideMs],
      ['launcher: sandbox plan, working directory, command, spawn', spawned - runCalled],
      ['worker start: exec, sandbox, Node, bundle, channel → first request', first - spawned],
      [`broker round trips without the model call (${requests.length})`, brokerMs - trace.modelMs],
      ['  of which store operations', trace.store.brokerMs],
      ['worker between requests: channel and turn engine', gaps],
      ['worker end: last reply → outcome (at the answer; before D24 § 2 after exit, rm)', runResolved - last],
      ['after the worker: failure settle, after-turn, change notices', end - runResolved],
      ['model call (inside the broker)', trace.modelMs],
    ],
    requests: requests.length,
    writes: trace.store.writes,
    reads: trace.store.reads,
  };
}
