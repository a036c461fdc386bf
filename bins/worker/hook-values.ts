/**
 * Values across the QuickJS boundary of the `hook` task: JSON only in both directions, errors reduced to
 * the script's own name, message and line (never a host stack).
 *
 * Source: spec/platform-service.md § Rules 6 (author scripts and hooks run in a second sandbox).
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { PlatformError } from '../../core/ports/platform-error.ts';

/**
 * A host value as a new QuickJS value, through JSON (undefined becomes null); the caller disposes it.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export function toVm(vm: QuickJSContext, value: unknown): QuickJSHandle {
  const text = vm.newString(JSON.stringify(value ?? null));
  const json = vm.getProp(vm.global, 'JSON');
  const parse = vm.getProp(json, 'parse');
  try {
    return vm.unwrapResult(vm.callFunction(parse, json, text));
  } finally {
    parse.dispose();
    json.dispose();
    text.dispose();
  }
}

/**
 * A QuickJS value as a host JSON value, through the script's own JSON.stringify (functions and undefined
 * members dropped as JSON does; undefined stays undefined). Does not dispose `handle`.
 * @throws PlatformError `hook_failed` when the value cannot be written as JSON (a cycle, a BigInt)
 *
 * Source: spec/platform-service.md § Rules 6
 */
export function toHost(vm: QuickJSContext, handle: QuickJSHandle): unknown {
  const json = vm.getProp(vm.global, 'JSON');
  const stringify = vm.getProp(json, 'stringify');
  const result = vm.callFunction(stringify, json, handle);
  stringify.dispose();
  json.dispose();
  if (result.error) {
    result.error.dispose();
    throw new PlatformError('hook_failed', 'the hook failed: its value cannot be written as JSON (a cycle or a BigInt?)');
  }
  const text = vm.typeof(result.value) === 'string' ? vm.getString(result.value) : undefined;
  result.value.dispose();
  return text === undefined ? undefined : JSON.parse(text);
}

/**
 * The PlatformError `hook_failed` for a script error (disposes `errorHandle`): "the hook failed:
 * <Name>: <message> (hook.js:<line>)", or "the hook ran past its time limit" when it was interrupted.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export function hookError(vm: QuickJSContext, errorHandle: QuickJSHandle): PlatformError {
  const dumped = vm.dump(errorHandle) as { name?: unknown; message?: unknown; stack?: unknown } | unknown;
  errorHandle.dispose();
  if (typeof dumped !== 'object' || dumped === null) return new PlatformError('hook_failed', `the hook failed: it threw ${describe(dumped)}`);
  const { name, message, stack } = dumped as { name?: unknown; message?: unknown; stack?: unknown };
  if (name === 'InternalError' && message === 'interrupted') return new PlatformError('hook_failed', 'the hook ran past its time limit');
  const where = typeof stack === 'string' ? /\((hook\.js:\d+(?::\d+)?)\)/.exec(stack)?.[1] : undefined;
  return new PlatformError('hook_failed', `the hook failed: ${String(name ?? 'Error')}: ${String(message ?? '')}${where ? ` (${where})` : ''}`);
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * Runs QuickJS's pending jobs (promise reactions) after the host settled something; a job's error is
 * disposed (it reaches the script through its own promise).
 *
 * Source: spec/platform-service.md § Rules 6
 */
export function pump(runtime: QuickJSRuntime): void {
  const result = runtime.executePendingJobs();
  if (result.error) result.error.dispose();
}
