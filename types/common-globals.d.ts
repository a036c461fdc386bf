/**
 * The few web-platform globals that Node, Bun and Deno all provide (a subset of the WinterTC Minimum
 * Common Web Platform API), declared for the runtime-neutral domain check (`tsconfig.core.json`, which
 * loads neither Node's types nor the DOM library). Domain code may use what is declared here and nothing
 * else from its host; add a declaration only for a global all three runtimes provide.
 *
 * Source: docs/architecture.md § Layout (domain code runs on Deno too).
 */

/** WHATWG URL: parse and read parts (all three runtimes). */
declare class URL {
  constructor(url: string, base?: string | URL);
  readonly origin: string;
  href: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
  toString(): string;
}

/** UTF-8 encoder (all three runtimes). */
declare class TextEncoder {
  encode(input?: string): Uint8Array;
}

/** Text decoder; `fatal: true` throws on invalid input (all three runtimes). */
declare class TextDecoder {
  constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
  decode(input?: ArrayBufferView | ArrayBuffer, options?: { stream?: boolean }): string;
}

/** Base64 decode to a binary string; throws on invalid input. */
declare function atob(data: string): string;
/** Base64 encode of a binary string. */
declare function btoa(data: string): string;
/** Deep copy by the structured clone algorithm. */
declare function structuredClone<T>(value: T): T;

/** Cancellation signal of an AbortController (all three runtimes); read-only use in ports and domain code. */
declare interface AbortSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  throwIfAborted(): void;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}
/** AbortSignal's static constructors (all three runtimes). */
declare var AbortSignal: {
  /** A signal aborted when any of `signals` is. */
  any(signals: AbortSignal[]): AbortSignal;
  /** A signal aborted after `ms` milliseconds. */
  timeout(ms: number): AbortSignal;
};
/** Makes an AbortSignal and aborts it (all three runtimes). */
declare class AbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

/** A timer handle: a number on Deno, an object on Node and Bun; only passed back to clear it. */
declare type TimerHandle = { readonly __timer: unique symbol } | number;
/** Calls `fn` once after `ms` milliseconds (HTML timers, all three runtimes). */
declare function setTimeout(fn: () => void, ms?: number): TimerHandle;
/** Calls `fn` every `ms` milliseconds. */
declare function setInterval(fn: () => void, ms?: number): TimerHandle;
/** Cancels a timer of setTimeout. */
declare function clearTimeout(handle: TimerHandle | undefined): void;
/** Cancels a timer of setInterval. */
declare function clearInterval(handle: TimerHandle | undefined): void;
