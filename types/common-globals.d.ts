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
}
