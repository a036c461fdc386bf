/**
 * Loads QuickJS ({@link ./quickjs-library.ts}) on a worker's first hook: from the single executable's
 * `quickjs.cjs` asset, else from `quickjs.cjs` beside the running bundle (the sources program puts it there
 * and allows reading it), else, running unbundled sources, by importing the library module itself.
 * The bundled library is evaluated as CommonJS with a `require` that serves Node's built-in modules only.
 *
 * Source: spec/platform-service.md § Rules 6.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { compileFunction } from 'node:vm';
import { QUICKJS_BUNDLE_NAME } from '../../core/adapters/worker/protocol.ts';

/** What ./quickjs-library.ts exports. */
export type QuickJsLibrary = typeof import('./quickjs-library.ts');

/**
 * The QuickJS library.
 *
 * Source: spec/platform-service.md § Rules 6
 */
export async function loadQuickJsLibrary(): Promise<QuickJsLibrary> {
  const code = bundledCode();
  if (code === undefined) {
    const unbundled = './quickjs-library.ts'; // not a literal import: a bundler must leave it out of the main file
    return (await import(unbundled)) as QuickJsLibrary;
  }
  const module = { exports: {} as QuickJsLibrary };
  const builtin = (id: string): unknown => process.getBuiltinModule(id);
  compileFunction(code, ['module', 'exports', 'require'], { filename: QUICKJS_BUNDLE_NAME })(module, module.exports, builtin);
  return module.exports;
}

function bundledCode(): string | undefined {
  const sea = process.getBuiltinModule('node:sea') as typeof import('node:sea') | undefined;
  if (sea?.isSea()) return sea.getAsset(QUICKJS_BUNDLE_NAME, 'utf8');
  const beside = process.argv[1] ? join(dirname(process.argv[1]), QUICKJS_BUNDLE_NAME) : undefined;
  return beside && existsSync(beside) ? readFileSync(beside, 'utf8') : undefined;
}
