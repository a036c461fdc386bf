/**
 * The start-up every platform process role repeats (api, dispatcher, semantic-mcp), written once:
 * read and validate the environment and the config document before connecting to anything (a bad
 * one exits 2 with a first line naming the variable), print the boot lines, open the stores and run
 * the data updates at boot (a failure exits 1 with its line), and stop cleanly on SIGTERM or SIGINT.
 *
 * Source: spec/platform-service.md § Deployment settings, § Rules 11–14, § Data update at boot;
 * docs/architecture.md § Processes.
 */
import type { EnvRecord } from '../config/env-values.ts';
import type { DispatchingEnv, ServiceEnv } from '../config/platform-env-model.ts';
import { type BootedStores, type BootSettings, openBootStores, readBootSettings } from './boot-process.ts';

/** How a role ends its process: the host's `process.exit`, passed in by the bin. */
export type Exit = (code: number) => never;

/**
 * What {@link startRole} needs from the bin (the only place that touches `process`).
 *
 * Source: docs/architecture.md § Layout (only a bin's main.ts reads the environment)
 */
export interface RoleStart<E extends ServiceEnv, S> {
  /** The process's environment, as read by its main.ts. */
  env: EnvRecord;
  /** Application directory (config.yaml) and temporary directory. */
  dirs: { appDir: string; tmpDir: string };
  /** This instance's name for lease owners: PLATFORM_INSTANCE_ID or `<host>-<pid>`. */
  instanceId: string;
  /** Writes one exact-text line to stdout. */
  print(line: string): void;
  /** Writes one line to stderr (a boot refusal). */
  printError(line: string): void;
  exit: Exit;
  /** Role settings read from the booted environment; a throw exits 2 like a bad variable. */
  settings?(boot: BootSettings<E>): S;
  /** The environment the stores are opened with (e.g. semantic-mcp without the embedded queue store). */
  storesEnv?(env: ServiceEnv): ServiceEnv;
}

/**
 * A started role: its boot settings, role settings, open stores and lease owner name.
 *
 * Source: spec/platform-service.md § Deployment settings
 */
export interface StartedRole<E extends ServiceEnv, S> {
  boot: BootSettings<E>;
  settings: S;
  stores: BootedStores;
  /** `<role>@<instanceId>`. */
  owner: string;
}

/**
 * Boots `role`: settings (exit 2 on a bad variable), boot lines, stores and data updates (exit 1 on failure).
 * @returns the started role; never returns after a refusal (calls `start.exit`)
 *
 * Source: spec/platform-service.md § Deployment settings, § Data update at boot
 */
export async function startRole<S = undefined>(
  role: 'api' | 'dispatcher',
  start: RoleStart<DispatchingEnv, S>,
): Promise<StartedRole<DispatchingEnv, S>>;
export async function startRole<S = undefined>(
  role: 'semantic-mcp',
  start: RoleStart<ServiceEnv, S>,
): Promise<StartedRole<ServiceEnv, S>>;
export async function startRole<S>(
  role: 'api' | 'dispatcher' | 'semantic-mcp',
  start: RoleStart<ServiceEnv, S>,
): Promise<StartedRole<ServiceEnv, S>> {
  let boot: BootSettings<ServiceEnv>;
  let settings: S;
  try {
    boot = role === 'semantic-mcp'
      ? readBootSettings(role, start.env, start.dirs)
      : readBootSettings(role, start.env, start.dirs);
    settings = start.settings ? start.settings(boot) : (undefined as S);
  } catch (error) {
    start.printError((error as Error).message);
    return start.exit(2);
  }
  boot.lines.forEach((line) => start.print(line));
  const owner = `${role}@${start.instanceId}`;
  try {
    const stores = await openBootStores(start.storesEnv ? start.storesEnv(boot.env) : boot.env, {
      owner,
      print: start.print,
    });
    return { boot, settings, stores, owner };
  } catch (error) {
    start.printError((error as Error).message);
    return start.exit(1);
  }
}

/**
 * Runs `stop` once on the first SIGTERM or SIGINT of `signals` (the bin's `process`), then exits 0.
 *
 * Source: spec/platform-service.md § Processes
 */
export function stopOnSignals(
  signals: { on(signal: 'SIGTERM' | 'SIGINT', listener: () => void): unknown },
  stop: () => Promise<void>,
  exit: Exit,
): void {
  let stopping = false;
  const once = () => {
    if (stopping) return;
    stopping = true;
    void stop().then(() => exit(0), () => exit(1));
  };
  signals.on('SIGTERM', once);
  signals.on('SIGINT', once);
}
