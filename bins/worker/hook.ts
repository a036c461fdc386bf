/**
 * The `hook` task: runs an author hook script inside QuickJS (WebAssembly, quickjs-emscripten), a second
 * sandbox inside the worker. The script is an ES module; its default export is the hook's value, or a
 * function called with the input (`export default async (input) => …`) whose (awaited) return value is.
 * The only way out of the sandbox is `platform.call(op, args)`, which returns a promise settled by the
 * broker (await it); no module can be imported, no host object is reachable.
 *
 * Source: spec/platform-service.md § Rules 6 (author scripts and hooks run in a second sandbox),
 * § Rules 8.
 */
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { WorkerBroker } from '../../core/ports/worker.ts';
import { hookError, pump, toHost, toVm } from './hook-values.ts';
import { loadQuickJs } from './quickjs-loader.ts';

/** Milliseconds a hook may run (code and waits together) when its payload names no `timeoutMs`. */
export const DEFAULT_HOOK_TIMEOUT_MS = 30_000;

/**
 * Input of the `hook` task.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export interface HookPayload {
  /** The hook script: an ES module whose default export is the value or a function of the input. */
  source: string;
  /** JSON value given to the default export. */
  input?: unknown;
  /** Milliseconds the hook may run in total (default 30,000). */
  timeoutMs?: number;
}

/** A running hook: false once it has ended; the platform.call promises not settled yet. */
interface HookSession {
  alive: boolean;
  open: Set<QuickJSDeferredPromise>;
}

let quickJs: Promise<QuickJSWASMModule> | undefined;

/** QuickJS, loaded once per worker on first use (the other tasks never pay for it). */
function quickJsModule(): Promise<QuickJSWASMModule> {
  quickJs ??= loadQuickJs();
  return quickJs;
}

function parsePayload(payload: unknown): Required<Omit<HookPayload, 'input'>> & { input: unknown } {
  const { source, input, timeoutMs } = (payload ?? {}) as Partial<HookPayload>;
  if (typeof source !== 'string') throw new PlatformError('invalid_request', 'the hook task needs { source: string, input?, timeoutMs? }');
  if (timeoutMs !== undefined && !(Number.isInteger(timeoutMs) && timeoutMs > 0)) {
    throw new PlatformError('invalid_request', 'the hook timeoutMs must be a positive integer (milliseconds)');
  }
  return { source, input, timeoutMs: timeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS };
}

/**
 * Runs one hook.
 * @returns the hook's value as JSON (undefined becomes null)
 * @throws PlatformError `hook_failed` naming the hook's error (its name, message and script line; never a
 *   host stack), or saying it ran past its time; `invalid_request` for a malformed payload
 *
 * Source: spec/platform-service.md § Rules 6
 */
export async function runHook(payload: unknown, broker: WorkerBroker): Promise<unknown> {
  const { source, input, timeoutMs } = parsePayload(payload);
  const runtime = (await quickJsModule()).newRuntime();
  const deadline = Date.now() + timeoutMs;
  runtime.setInterruptHandler(() => Date.now() > deadline);
  const vm = runtime.newContext();
  const session: HookSession = { alive: true, open: new Set() };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const overtime = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PlatformError('hook_failed', `the hook ran past its time limit (${timeoutMs} ms)`)), timeoutMs);
  });
  // The launcher ends the worker at this deadline too: a hook caught in native code never yields to the timers here.
  const withdraw = broker.hookDeadline?.(timeoutMs);
  try {
    installPlatform(vm, runtime, broker, session);
    return await Promise.race([evaluate(vm, runtime, source, input), overtime]);
  } finally {
    withdraw?.();
    clearTimeout(timer);
    session.alive = false;
    for (const deferred of session.open) deferred.dispose();
    release(vm, runtime);
  }
}

/**
 * Frees the hook's context and runtime. QuickJS refuses (an assertion aborts its WebAssembly instance) to
 * free a runtime still holding an async function that waits forever; that instance is then dropped and
 * the next hook of this worker loads a fresh one.
 */
function release(vm: QuickJSContext, runtime: QuickJSRuntime): void {
  try {
    vm.dispose();
    runtime.dispose();
  } catch {
    quickJs = undefined;
  }
}

/** Defines the global `platform` object whose `call(op, args)` goes through the broker. */
function installPlatform(vm: QuickJSContext, runtime: QuickJSRuntime, broker: WorkerBroker, session: HookSession): void {
  const call = vm.newFunction('call', (opHandle, argsHandle) => {
    const op = vm.typeof(opHandle) === 'string' ? vm.getString(opHandle) : '';
    const args = argsHandle === undefined ? undefined : toHost(vm, argsHandle);
    const deferred = vm.newPromise();
    session.open.add(deferred);
    void deferred.settled.then(() => session.open.delete(deferred));
    broker.request(op, args).then(
      (value) => settle(session, () => toVm(vm, value), (handle) => deferred.resolve(handle)),
      (error: unknown) => settle(session, () => brokerError(vm, error), (handle) => deferred.reject(handle)),
    ).finally(() => {
      if (session.alive) pump(runtime);
    });
    return deferred.handle;
  });
  const platform = vm.newObject();
  vm.setProp(platform, 'call', call);
  vm.setProp(vm.global, 'platform', platform);
  call.dispose();
  platform.dispose();
}

/** Makes a handle and hands it over, unless the hook has ended meanwhile; disposes it afterwards. */
function settle(session: HookSession, make: () => QuickJSHandle, use: (handle: QuickJSHandle) => void): void {
  if (!session.alive) return;
  const handle = make();
  use(handle);
  handle.dispose();
}

/** A broker error as the script sees it: an Error named PlatformError with the reply's `code`. */
function brokerError(vm: QuickJSContext, error: unknown): QuickJSHandle {
  const code = error instanceof PlatformError ? error.code : 'worker_request_failed';
  const message = error instanceof PlatformError ? error.message : 'the platform could not answer this call';
  const handle = vm.newError({ name: 'PlatformError', message });
  const codeHandle = vm.newString(code);
  vm.setProp(handle, 'code', codeHandle);
  codeHandle.dispose();
  return handle;
}

/** Evaluates the module, then its default export (awaited; called with the input when it is a function). */
async function evaluate(vm: QuickJSContext, runtime: QuickJSRuntime, source: string, input: unknown): Promise<unknown> {
  const exportsHandle = await settled(vm, runtime, unwrap(vm, vm.evalCode(source, 'hook.js', { type: 'module', strict: true })));
  let value: QuickJSHandle | undefined;
  try {
    value = vm.getProp(exportsHandle, 'default');
    if (vm.typeof(value) !== 'function') return finish(vm, await settled(vm, runtime, value.dup()));
    const inputHandle = toVm(vm, input);
    const called = vm.callFunction(value, vm.undefined, inputHandle);
    inputHandle.dispose();
    return finish(vm, await settled(vm, runtime, unwrap(vm, called)));
  } finally {
    value?.dispose();
    exportsHandle.dispose();
  }
}

function finish(vm: QuickJSContext, handle: QuickJSHandle): unknown {
  try {
    return toHost(vm, handle) ?? null;
  } finally {
    handle.dispose();
  }
}

/** The value of an evaluation or call, or throws hook_failed naming the script's error. */
function unwrap(vm: QuickJSContext, result: ReturnType<QuickJSContext['evalCode']>): QuickJSHandle {
  if (result.error) throw hookError(vm, result.error);
  return result.value;
}

/** The settled value of `handle` (awaited when it is a promise; consumes `handle`), or throws hook_failed. */
async function settled(vm: QuickJSContext, runtime: QuickJSRuntime, handle: QuickJSHandle): Promise<QuickJSHandle> {
  const state = vm.getPromiseState(handle);
  if (state.type === 'fulfilled' && state.notAPromise) return handle;
  const pending = vm.resolvePromise(handle);
  handle.dispose();
  if (state.type === 'fulfilled') state.value.dispose();
  if (state.type === 'rejected') state.error.dispose();
  pump(runtime);
  const outcome = await pending;
  if (outcome.error) throw hookError(vm, outcome.error);
  return outcome.value;
}
