/**
 * Loads QuickJS ({@link ./quickjs-library.ts}) on a worker's first hook: from the single executable's
 * `quickjs.cjs`, `quickjs.wasm` and `quickjs.cache` assets, else from the first two beside the running bundle (the
 * sources program puts them there and allows reading them: no code cache, the worker may read no other file),
 * else, running unbundled sources, by importing the library module itself (its variant then reads its WebAssembly
 * from its package). The WebAssembly compile starts first: V8 compiles on background threads (lazily, function by
 * function, Node's default) while the bundled library is evaluated as CommonJS with a `require` that serves Node's
 * built-in modules only, from V8's code cache made when the executable was built (./quickjs-code-cache.ts).
 *
 * Source: spec/platform-service.md § Rules 6; docs/decisions.md D24 § 2 (a trivial hook's cost).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { QUICKJS_BUNDLE_NAME, QUICKJS_CACHE_NAME, QUICKJS_WASM_NAME } from '../../core/adapters/worker/protocol.ts';

/** What ./quickjs-library.ts exports. */
export type QuickJsLibrary = typeof import('./quickjs-library.ts');

/** The bundled library's files: its JavaScript, its WebAssembly bytes and V8's code cache of the JavaScript. */
interface BundledQuickJs {
  code(): string;
  wasm: BufferSource;
  cache?(): Uint8Array;
}

let evaluated: Script | undefined;

/**
 * The script of the bundled library this worker last evaluated (./quickjs-code-cache.ts makes V8's code cache of
 * it once a hook has run), or undefined.
 *
 * Source: docs/decisions.md D24 § 2
 */
export function evaluatedQuickJsScript(): Script | undefined {
  return evaluated;
}

/**
 * QuickJS's WebAssembly module, ready to make runtimes: a new one on each call (./hook.ts keeps one per worker).
 * @throws Error when the library or its WebAssembly cannot be read or compiled (a worker without its files)
 *
 * Source: spec/platform-service.md § Rules 6; docs/decisions.md D24 § 2
 */
export async function loadQuickJs(): Promise<QuickJSWASMModule> {
  const bundled = bundledQuickJs();
  if (bundled === undefined) {
    const unbundled = './quickjs-library.ts'; // not a literal import: a bundler must leave it out of the main file
    const library = (await import(unbundled)) as QuickJsLibrary;
    return library.newQuickJSWASMModuleFromVariant(library.variant);
  }
  const compiled = WebAssembly.compile(bundled.wasm);
  void compiled.catch(() => undefined); // awaited below; an early throw must not leave it unhandled
  const { library, script } = evaluateQuickJsLibrary(bundled.code(), bundled.cache?.());
  evaluated = script;
  const { newQuickJSWASMModuleFromVariant, newVariant, variant } = library;
  return newQuickJSWASMModuleFromVariant(newVariant(variant, { wasmModule: () => compiled }));
}

/**
 * Evaluates the bundled library `code` (CommonJS; its `require` serves Node's built-in modules only) with V8's
 * code cache `cachedData` when given (one V8 rejects, made by another Node or with other flags, is ignored).
 */
function evaluateQuickJsLibrary(code: string, cachedData?: Uint8Array): { library: QuickJsLibrary; script: Script } {
  const wrapped = `(function (module, exports, require) {${code}\n})`;
  const script = new Script(wrapped, { filename: QUICKJS_BUNDLE_NAME, cachedData });
  const module = { exports: {} as QuickJsLibrary };
  const builtin = (id: string): unknown => process.getBuiltinModule(id);
  const run = script.runInThisContext() as (m: typeof module, e: QuickJsLibrary, r: typeof builtin) => void;
  run(module, module.exports, builtin);
  return { library: module.exports, script };
}

/** The bundled files, from the single executable's assets or beside the running bundle; undefined when unbundled. */
function bundledQuickJs(): BundledQuickJs | undefined {
  const sea = process.getBuiltinModule('node:sea') as typeof import('node:sea') | undefined;
  if (sea?.isSea()) {
    return {
      wasm: sea.getAsset(QUICKJS_WASM_NAME),
      code: () => sea.getAsset(QUICKJS_BUNDLE_NAME, 'utf8'),
      cache: () => new Uint8Array(sea.getAsset(QUICKJS_CACHE_NAME)),
    };
  }
  const beside = process.argv[1] ? dirname(process.argv[1]) : undefined;
  if (beside === undefined || !existsSync(join(beside, QUICKJS_BUNDLE_NAME))) return undefined;
  return {
    wasm: readFileSync(join(beside, QUICKJS_WASM_NAME)) as Uint8Array<ArrayBuffer>, // a file's bytes: never shared
    code: () => readFileSync(join(beside, QUICKJS_BUNDLE_NAME), 'utf8'),
  };
}
