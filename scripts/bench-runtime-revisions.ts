/**
 * The runtime code scripts/bench-runtime part 2 measures, from this checkout or from a baseline revision extracted
 * from git (scripts/bench-endpoints-baseline.ts `extractRevision`), each with its own worker program (its compiled
 * worker, built for the baseline in its temporary directory, or its sources bundle), so both run in the same run.
 *
 * Source: spec/platform-service.md § Rules 6 (start-up cost of a worker).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { extractRevision } from './bench-endpoints-baseline.ts';

/** The default baseline revision: main before the turn path's round trips were cut. */
export const RUNTIME_BASELINE_REVISION = 'a50ed37aa14b309961930e23967ce9ff077e024b';

/* eslint-disable @typescript-eslint/no-explicit-any -- the modules of another revision are typed loosely */
/** The runtime modules of one revision (what the turn bench calls), typed loosely: the revision may differ. */
export interface RuntimeModules {
  runQueuedTurn(deps: any, turnId: string): Promise<void>;
  createWorkerLauncher(deps: any): any;
  executableWorkerProgram(path: string): any;
  bundledWorkerProgram(options: { appDir: string }): any;
  turnCost(models: any): any;
  workerEnvironment(settings: any, options: any): Record<string, string>;
  insertSession(deps: any, fields: any): Promise<any>;
  insertTurn(deps: any, session: any, fields: any): Promise<any>;
  turnsOf(deps: any): any;
  createMemoryDocumentStore(): any;
  createMemoryObjectStore(): any;
}
/* eslint-enable @typescript-eslint/no-explicit-any */

/** One revision's code and worker program, and what removes its temporary copy (none for this checkout). */
export interface RuntimeRevision {
  label: string;
  modules: RuntimeModules;
  program: unknown;
  programName: string;
  remove(): void;
  /** Set on the traced column of `--tracing`: tracing is switched on around its turns (./bench-runtime-tracing.ts). */
  traced?: { on(): void; off(): void };
}

/** Imports the runtime modules under `root`. */
async function loadModules(root: string): Promise<RuntimeModules> {
  const from = (path: string) => import(join(root, path));
  const [turnRunner, worker, cost, env, store, docs, objects] = await Promise.all([
    from('core/session/turn-runner.ts'),
    from('core/adapters/worker/index.ts'),
    from('core/boot/turn-cost.ts'),
    from('core/config/worker-environment.ts'),
    from('core/session/session-store.ts'),
    from('core/testing/memory-document-store.ts'),
    from('core/testing/memory-object-store.ts'),
  ]);
  return { ...turnRunner, ...worker, ...cost, ...env, ...store, ...docs, ...objects } as RuntimeModules;
}

/** The worker program of `root`: its compiled worker at dist/worker when present, else its sources bundle. */
function programOf(modules: RuntimeModules, root: string): { program: unknown; programName: string } {
  const executable = join(root, 'dist/worker');
  if (existsSync(executable)) return { program: modules.executableWorkerProgram(executable), programName: 'dist/worker' };
  return { program: modules.bundledWorkerProgram({ appDir: root }), programName: 'sources bundle on node' };
}

/** This checkout's runtime. */
export async function currentRuntime(root: string): Promise<RuntimeRevision> {
  const modules = await loadModules(root);
  return { label: 'now', modules, ...programOf(modules, root), remove: () => undefined };
}

/**
 * The runtime of `revision`, extracted into a temporary directory; its compiled worker is built there with its own
 * build script when this checkout's is compiled too (so both sides run the same kind of program).
 * @throws Error naming the revision when it cannot be extracted or imported
 */
export async function baselineRuntime(root: string, revision: string, compiled: boolean): Promise<RuntimeRevision> {
  const extracted = extractRevision(root, revision);
  try {
    if (compiled) {
      const script = join(extracted.dir, 'scripts/lib/build-worker-executable.ts');
      const built = spawnSync(join(root, 'node_modules/.bin/bun'), [script, join(extracted.dir, 'dist/worker')], {
        cwd: extracted.dir,
        encoding: 'utf8',
      });
      if (built.status !== 0) {
        console.log(`the baseline's worker executable did not build (${built.stderr.trim().slice(0, 200)}): `
          + 'measuring its sources bundle');
      }
    }
    const modules = await loadModules(extracted.dir);
    return { label: `baseline ${revision.slice(0, 7)}`, modules, ...programOf(modules, extracted.dir), ...extracted };
  } catch (error) {
    extracted.remove();
    throw error;
  }
}
