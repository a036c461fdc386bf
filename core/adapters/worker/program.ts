/**
 * How a worker process is started: always on Node (≥ 22) under its permission model, since Bun has none.
 * - Compiled product: `dist/worker` (beside the other executables, `/app/bin/worker` in the image), a Node
 *   single executable application whose start arguments (the SEA config's execArgv, written by
 *   scripts/lib/build-worker.ts from {@link SEA_PERMISSION_FLAGS}) hold the permission flags; its working
 *   directory is the worker's own, so `.` is that directory and it reads nothing else (its code is inside it).
 * - Sources: bins/worker/main.ts bundled on first use with Bun into one CommonJS file (the same bundle the
 *   executable embeds) in a temp directory, run by node_modules/.bin/node with the same flags, allowed to
 *   read that file and the QuickJS library bundled beside it (`quickjs.cjs` and its WebAssembly `quickjs.wasm`,
 *   assets of the executable).
 * Both add `--max-old-space-size` from the worker's memory limit.
 *
 * Source: spec/platform-service.md § Rules 6, 8 (workers running compiled code under the runtime's
 * permission model: reads the application packages and its own working directory, writes only that
 * directory, starts no process, thread or native addon).
 */
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { copyFile, mkdtemp } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { PlatformError } from '../../ports/platform-error.ts';
import { QUICKJS_BUNDLE_NAME, QUICKJS_WASM_NAME } from './protocol.ts';

/**
 * The permission flags baked into the worker executable: the permission model on, reads and writes only
 * in the working directory (the worker's own). No child process, worker thread, addon or WASI allowance, and
 * no inspector started by SIGUSR1 (`--disable-sigusr1`).
 *
 * Source: spec/platform-service.md § Rules 8
 */
export const SEA_PERMISSION_FLAGS: readonly string[] = [
  '--permission',
  '--allow-fs-read=.',
  '--allow-fs-write=.',
  '--disable-sigusr1',
];

/** The QuickJS library's entry, bundled apart from the worker's main file as {@link QUICKJS_BUNDLE_NAME}. */
export const QUICKJS_LIBRARY_ENTRY = 'bins/worker/quickjs-library.ts';
export { QUICKJS_BUNDLE_NAME, QUICKJS_WASM_NAME };

/**
 * Bun's build flags for the QuickJS library: CommonJS for Node, with the `iife` condition, which resolves the
 * QuickJS variant's Emscripten module to its CommonJS build (the ES one imports `node:module` dynamically, which
 * the loader's `node:vm` function cannot).
 *
 * Source: docs/decisions.md D24 § 2 (a trivial hook's cost)
 */
export const QUICKJS_BUILD_FLAGS: readonly string[] = ['--target=node', '--format=cjs', '--conditions=iife'];

/**
 * Path of QuickJS's WebAssembly in the application's packages under `appDir` (copied beside the bundles as
 * {@link QUICKJS_WASM_NAME}).
 * @throws Error when the QuickJS variant package is not installed
 *
 * Source: docs/decisions.md D24 § 2
 */
export function quickJsWasmSource(appDir: string): string {
  return createRequire(join(appDir, 'package.json')).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
}

/**
 * A command that starts one worker; `reads` names the files it reads besides its working directory (the
 * program's bundle and QuickJS library): the sandbox binds them, and `command` itself, read-only.
 */
export interface WorkerCommand {
  command: string;
  args: string[];
  reads?: string[];
}

/**
 * Starts workers: the command for one worker with its working directory and memory limit (MiB).
 * `entryFile` (tests and benchmarks only) runs another entry file, bundled the same way, with the same flags.
 * `inspect` (PLATFORM_WORKER_INSPECT=on, never in production) starts it with an inspector on a free
 * loopback port (`--inspect=127.0.0.1:0`) and without the permission flags.
 *
 * Source: spec/platform-service.md § Rules 8; § Deployment settings (PLATFORM_WORKER_INSPECT)
 */
export interface WorkerProgram {
  command(
    options: { workDir: string; memoryMb: number; entryFile?: string; inspect?: boolean },
  ): Promise<WorkerCommand>;
}

/**
 * The flag that starts a worker's inspector on a free loopback port.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_WORKER_INSPECT)
 */
export const INSPECT_FLAG = '--inspect=127.0.0.1:0';

/**
 * The compiled worker: a Node single executable application with {@link SEA_PERMISSION_FLAGS} inside; the
 * heap limit is passed with `--node-options` (the SEA allows extending its start arguments that way only).
 * @throws PlatformError `invalid_request` when asked for an `entryFile`; `worker_unavailable` when asked to
 * inspect (its permission flags are part of the executable: inspect workers run from sources)
 *
 * Source: spec/platform-service.md § Rules 8; § Deployment settings (PLATFORM_WORKER_INSPECT)
 */
export function executableWorkerProgram(path: string): WorkerProgram {
  return {
    async command({ memoryMb, entryFile, inspect }) {
      if (entryFile) {
        throw new PlatformError('invalid_request', 'an entry file runs only with the worker program from sources');
      }
      if (inspect) {
        throw new PlatformError(
          'worker_unavailable',
          'PLATFORM_WORKER_INSPECT=on needs the worker from sources (the compiled worker keeps its permission ' +
            'flags): run the platform from sources, or set PLATFORM_WORKER_INSPECT=off',
        );
      }
      return { command: path, args: [`--node-options=--max-old-space-size=${memoryMb}`] };
    },
  };
}

/**
 * The worker from sources: `node` with the permission flags on a Bun bundle of the entry (default
 * bins/worker/main.ts under `appDir`), bundled once per entry per process (removed when it exits).
 *
 * Source: spec/platform-service.md § Rules 8
 */
export function bundledWorkerProgram(options: { appDir: string; node?: string; bun?: string }): WorkerProgram {
  const node = options.node ?? join(options.appDir, 'node_modules/.bin/node');
  const bun = options.bun ?? join(options.appDir, 'node_modules/.bin/bun');
  return {
    async command({ workDir, memoryMb, entryFile, inspect }) {
      const entry = resolve(entryFile ?? join(options.appDir, 'bins/worker/main.ts'));
      const key = `${bun}\n${entry}`;
      if (!bundles.has(key)) bundles.set(key, bundle(bun, entry, options.appDir));
      const file = await bundles.get(key)!;
      const quickJs = join(dirname(file), QUICKJS_BUNDLE_NAME);
      const quickJsWasm = join(dirname(file), QUICKJS_WASM_NAME);
      const permission = [
        '--permission',
        `--allow-fs-read=${file}`,
        `--allow-fs-read=${quickJs}`,
        `--allow-fs-read=${quickJsWasm}`,
        `--allow-fs-read=${workDir}`,
        `--allow-fs-write=${workDir}`,
        '--disable-sigusr1',
      ];
      const args = [...(inspect ? [INSPECT_FLAG] : permission), `--max-old-space-size=${memoryMb}`, file];
      return { command: node, args, reads: [file, quickJs, quickJsWasm] };
    },
  };
}

/** Bundles made by this process, by Bun and entry: each made once, all removed when the process exits. */
const bundles = new Map<string, Promise<string>>();
const bundleDirectories: string[] = [];
let removeAtExit = false;

/**
 * Removes the bundles this process made (also done when it exits normally; test runners that end their
 * workers otherwise call it after their tests). Later runs bundle again.
 *
 * Source: spec/platform-service.md § Rules 8
 */
export function removeWorkerBundles(): void {
  for (const directory of bundleDirectories.splice(0)) rmSync(directory, { recursive: true, force: true });
  bundles.clear();
}

/** Bundles `entry` and the QuickJS library (bins/worker/quickjs-library.ts, read on a first hook, its WebAssembly
 * copied beside it) with Bun for Node into a new temp directory. */
async function bundle(bun: string, entry: string, appDir: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-worker-bundle-'));
  bundleDirectories.push(dir);
  if (!removeAtExit) {
    removeAtExit = true;
    process.once('exit', removeWorkerBundles);
  }
  const out = join(dir, `${basename(entry).replace(/\.[cm]?[jt]s$/, '')}.cjs`);
  await Promise.all([
    bunBuild(bun, [entry, '--target=node', '--format=cjs'], out),
    bunBuild(bun, [join(appDir, QUICKJS_LIBRARY_ENTRY), ...QUICKJS_BUILD_FLAGS], join(dir, QUICKJS_BUNDLE_NAME)),
    copyFile(quickJsWasmSource(appDir), join(dir, QUICKJS_WASM_NAME)),
  ]);
  return out;
}

/** Runs `bun build` with `entryAndFlags` (the entry file first) into `out`. */
function bunBuild(bun: string, entryAndFlags: string[], out: string): Promise<void> {
  const entry = entryAndFlags[0];
  return new Promise<void>((done, fail) => {
    execFile(
      bun,
      ['build', ...entryAndFlags, '--outfile', out],
      { timeout: 60_000 },
      (error, _stdout, stderr) => {
        if (!error) return done();
        fail(
          new PlatformError(
            'worker_unavailable',
            `could not bundle the worker ${entry} with ${bun}: ${String(stderr).trim().slice(0, 500) || error.message}`,
          ),
        );
      },
    );
  });
}

/**
 * The worker program of this process: `worker` beside a compiled executable (`execPath`), else the sources
 * under `appDir`.
 * @throws PlatformError `worker_unavailable` when the compiled worker is missing (run scripts/build)
 *
 * Source: spec/platform-service.md § Rules 6, 8
 */
export function workerProgramFor(options: { execPath: string; compiled: boolean; appDir: string }): WorkerProgram {
  if (!options.compiled) return bundledWorkerProgram({ appDir: options.appDir });
  const path = join(dirname(options.execPath), 'worker');
  if (!existsSync(path)) {
    throw new PlatformError(
      'worker_unavailable',
      `the worker executable ${path} is missing: build it with scripts/build (it sits beside the other executables)`,
    );
  }
  return executableWorkerProgram(path);
}
