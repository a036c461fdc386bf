/**
 * Builds dist/worker: a Node single executable application (SEA) of bins/worker/main.ts, whose start
 * arguments (execArgv in the SEA config) hold the worker's permission flags, so the worker is one file
 * that always runs under Node's permission model. Steps: Bun bundles the worker for Node into one
 * CommonJS file, and QuickJS (bins/worker/quickjs-library.ts) into an asset loaded on a first hook only, beside
 * its WebAssembly (a second asset, compiled by the worker with WebAssembly.compile) and V8's code cache of
 * it (a third, made by a trivial hook run on this Node: bins/worker/quickjs-code-cache.ts; docs/decisions.md
 * D24 § 2);
 * `node --experimental-sea-config` makes the blob (with a code cache); postject injects
 * it into a copy of the Node binary of node_modules/node.
 *
 *   bun scripts/lib/build-worker-executable.ts <output file>
 *
 * Called by scripts/build for the `worker` executable.
 * Source: spec/platform-service.md § Rules 6, 8 (as a Node single executable application with the
 * permission flags in its start arguments).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  QUICKJS_BUILD_FLAGS, QUICKJS_BUNDLE_NAME, QUICKJS_LIBRARY_ENTRY, QUICKJS_WASM_NAME, quickJsWasmSource,
  SEA_PERMISSION_FLAGS,
} from '../../core/adapters/worker/program.ts';
import { QUICKJS_CACHE_NAME } from '../../core/adapters/worker/protocol.ts';

const root = resolve(import.meta.dirname, '../..');
const output = resolve(process.argv[2] ?? join(root, 'dist/worker'));
const work = `${output}.sea`;
const bin = (name: string) => join(root, 'node_modules/.bin', name);

function run(command: string, args: string[], cwd = work): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    throw new Error(`${command} ${args[0]} failed (exit ${result.status})`);
  }
}

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
try {
  run(bin('bun'), ['build', join(root, 'bins/worker/main.ts'), '--target=node', '--format=cjs', '--outfile', join(work, 'worker.cjs')], root);
  const quickJs = join(root, QUICKJS_LIBRARY_ENTRY);
  run(bin('bun'), ['build', quickJs, ...QUICKJS_BUILD_FLAGS, '--outfile', join(work, QUICKJS_BUNDLE_NAME)], root);
  copyFileSync(quickJsWasmSource(root), join(work, QUICKJS_WASM_NAME));
  const node = realpathSync(bin('node'));
  // V8's code cache of quickjs.cjs, made by this Node (the worker's) beside the library it loads
  const cacheMaker = join(work, 'quickjs-code-cache.cjs');
  const cacheEntry = join(root, 'bins/worker/quickjs-code-cache.ts');
  run(bin('bun'), ['build', cacheEntry, '--target=node', '--format=cjs', '--outfile', cacheMaker], root);
  run(node, [cacheMaker]);
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify({
    main: 'worker.cjs',
    output: 'worker.blob',
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    // loaded on a worker's first hook only
    assets: Object.fromEntries([QUICKJS_BUNDLE_NAME, QUICKJS_WASM_NAME, QUICKJS_CACHE_NAME].map((n) => [n, n])),
    execArgv: SEA_PERMISSION_FLAGS,
    // Only `--node-options=…` on the command line extends them (the launcher's --max-old-space-size);
    // NODE_OPTIONS from the environment is not read.
    execArgvExtension: 'cli',
  }));
  run(node, ['--experimental-sea-config', 'sea-config.json']);
  copyFileSync(node, join(work, 'worker'));
  chmodSync(join(work, 'worker'), 0o755);
  run(node, [bin('postject'), 'worker', 'NODE_SEA_BLOB', 'worker.blob', '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2']);
  mkdirSync(dirname(output), { recursive: true });
  renameSync(join(work, 'worker'), output);
} finally {
  rmSync(work, { recursive: true, force: true });
}
