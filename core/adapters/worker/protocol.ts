/**
 * The channel between a worker and the process that started it: newline-delimited JSON over the
 * worker's stdin (launcher → worker) and stdout (worker → launcher); stderr carries diagnostics only.
 *
 * Launcher → worker: `start` first (the per-worker token and the job), then `reply` per request.
 * Worker → launcher, each carrying the token: `started` once the job is read, `request` (an operation on
 * platform data), `denied` (the permission model refused something), `deadline` (before and after a hook: the
 * launcher ends the worker itself when a hook outlives its time, since a hook caught in native code never
 * yields to the worker's own timer), and one `result` or `failed`. The launcher reads lines of at most
 * {@link WORKER_CHANNEL_LINE_LIMIT} characters.
 *
 * Source: spec/platform-service.md § Rules 6 (reaches platform data only through the process
 * that started it), § Rules 8; § Operational log lines ([worker]).
 */
import { readMessages } from '../runtime/json-lines.ts';

export { readMessages };

/** An error as it crosses the channel: a PlatformError's code and message. */
export interface WireError {
  code: string;
  message: string;
}

/** The first line a worker reads: its token (never in its environment) and its job. */
export interface StartMessage {
  type: 'start';
  token: string;
  task: string;
  payload: unknown;
}

/** The answer to request `id`: a JSON result or an error. */
export type ReplyMessage = { type: 'reply'; id: number; result: unknown } | {
  type: 'reply';
  id: number;
  error: WireError;
};

/** A message to a worker. */
export type LauncherMessage = StartMessage | ReplyMessage;

/** A message from a worker; every one carries the worker's token. */
export type WorkerMessage =
  | { type: 'started'; token: string }
  | { type: 'request'; token: string; id: number; op: string; args: unknown }
  | { type: 'denied'; token: string; permission: string }
  /** Hook `id` starts and may run `ms` milliseconds (the launcher ends the worker past it); `ms: null`: it ended. */
  | { type: 'deadline'; token: string; id: number; ms: number | null }
  | { type: 'result'; token: string; result: unknown }
  | { type: 'failed'; token: string; error: WireError };

/**
 * Longest channel line the launcher reads from a worker, in characters (32 MiB of text): a longer line ends
 * the worker (its reading would otherwise grow the starting process's heap without bound).
 *
 * Source: spec/platform-service.md § Rules 6; docs/decisions.md D17 § 3
 */
export const WORKER_CHANNEL_LINE_LIMIT = 32 * 1024 * 1024;

/**
 * File name of the QuickJS library bundled apart from the worker's main file: an asset of the worker
 * executable, or a file beside the sources bundle. Loaded on a worker's first hook only.
 */
export const QUICKJS_BUNDLE_NAME = 'quickjs.cjs';

/**
 * File name of QuickJS's WebAssembly beside {@link QUICKJS_BUNDLE_NAME} (an asset of the worker executable, or a
 * file beside the sources bundle), compiled by `WebAssembly.compile` on a worker's first hook.
 *
 * Source: docs/decisions.md D24 § 2 (a trivial hook's cost)
 */
export const QUICKJS_WASM_NAME = 'quickjs.wasm';

/**
 * File name of V8's code cache of {@link QUICKJS_BUNDLE_NAME} (an asset of the worker executable, made when it is
 * built by running a trivial hook on the same Node); the sources bundle has none.
 *
 * Source: docs/decisions.md D24 § 2 (a trivial hook's cost)
 */
export const QUICKJS_CACHE_NAME = 'quickjs.cache';

/** Exit code of a worker that refused to start (EX_CONFIG); its stderr says why, naming variables only. */
export const REFUSED_TO_START_EXIT_CODE = 78;

/**
 * Writes `message` as one line.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export function writeLine(output: { write(chunk: string): unknown }, message: LauncherMessage | WorkerMessage): void {
  output.write(`${JSON.stringify(message)}\n`);
}

/**
 * The permission a refused operation needed, as Node's permission model names it (FileSystemRead,
 * FileSystemWrite, ChildProcess, WorkerThreads, WASI, …; Addon for a native addon refused with
 * ERR_DLOPEN_DISABLED), or undefined when `error` is no permission refusal. Only a plain name is
 * returned: never a path or a value.
 *
 * Source: spec/platform-service.md § Rules 8; § Operational log lines ([worker] refused <operation>)
 */
export function refusedPermission(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, permission } = error as { code?: unknown; permission?: unknown };
  if (code === 'ERR_DLOPEN_DISABLED') return 'Addon';
  if (code !== 'ERR_ACCESS_DENIED') return undefined;
  return typeof permission === 'string' && /^[A-Za-z]{1,40}$/.test(permission) ? permission : 'an operation';
}
