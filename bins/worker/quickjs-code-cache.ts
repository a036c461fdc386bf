/**
 * Makes V8's code cache of the bundled QuickJS library at build time: run by the Node that the worker executable is
 * made of, bundled into the directory that holds `quickjs.cjs` and `quickjs.wasm` (so the loader finds them beside
 * it), it runs one trivial hook through the worker's own hook task (so the cache holds the functions a hook
 * compiles, not only the top level) and writes `quickjs.cache` there. scripts/lib/build-worker-executable.ts runs
 * it and embeds the cache as an asset; a worker whose Node or V8 flags differ ignores it (V8 rejects it).
 *
 *   node <directory>/quickjs-code-cache.cjs
 *
 * Source: docs/decisions.md D24 § 2 (a trivial hook's cost).
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { QUICKJS_CACHE_NAME } from '../../core/adapters/worker/protocol.ts';
import { runHook } from './hook.ts';
import { evaluatedQuickJsScript } from './quickjs-loader.ts';

const hook = { source: 'export default async (input) => ({ input, answer: await platform.call("ping") })', input: 1 };

async function main(): Promise<void> {
  const result = await runHook(hook, { request: async () => 'pong' });
  const script = evaluatedQuickJsScript();
  if (JSON.stringify(result) !== '{"input":1,"answer":"pong"}' || script === undefined) {
    throw new Error(`the trivial hook did not run from the bundled library: ${JSON.stringify(result)}`);
  }
  writeFileSync(join(dirname(process.argv[1]), QUICKJS_CACHE_NAME), script.createCachedData());
}

main().catch((error: unknown) => {
  process.stderr.write(`could not make the QuickJS code cache: ${String(error)}\n`);
  process.exitCode = 1;
});
