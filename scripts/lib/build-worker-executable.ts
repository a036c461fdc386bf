/**
 * Builds dist/worker: a Node single executable application (SEA) of bins/worker/main.ts, whose start
 * arguments (execArgv in the SEA config) hold the worker's permission flags, so the worker is one file
 * that always runs under Node's permission model. Steps: Bun bundles the worker for Node into one
 * CommonJS file, and QuickJS (bins/worker/quickjs-library.ts) into an asset loaded on a first hook only;
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
import { QUICKJS_BUNDLE_NAME, QUICKJS_LIBRARY_ENTRY, SEA_PERMISSION_FLAGS } from '../../core/adapters/worker/program.ts';

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
  run(bin('bun'), ['build', join(root, QUICKJS_LIBRARY_ENTRY), '--target=node', '--format=cjs', '--outfile', join(work, QUICKJS_BUNDLE_NAME)], root);
  writeFileSync(join(work, 'sea-config.json'), JSON.stringify({
    main: 'worker.cjs',
    output: 'worker.blob',
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: { [QUICKJS_BUNDLE_NAME]: QUICKJS_BUNDLE_NAME }, // loaded on a worker's first hook only
    execArgv: SEA_PERMISSION_FLAGS,
    // Only `--node-options=…` on the command line extends them (the launcher's --max-old-space-size);
    // NODE_OPTIONS from the environment is not read.
    execArgvExtension: 'cli',
  }));
  const node = realpathSync(bin('node'));
  run(node, ['--experimental-sea-config', 'sea-config.json']);
  copyFileSync(node, join(work, 'worker'));
  chmodSync(join(work, 'worker'), 0o755);
  run(node, [bin('postject'), 'worker', 'NODE_SEA_BLOB', 'worker.blob', '--sentinel-fuse', 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2']);
  mkdirSync(dirname(output), { recursive: true });
  renameSync(join(work, 'worker'), output);
} finally {
  rmSync(work, { recursive: true, force: true });
}
