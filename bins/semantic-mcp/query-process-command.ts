/**
 * semantic-mcp as its own query process: the flag that makes the executable one, and the command
 * the parent spawns. The same executable serves both roles, from sources (`bun bins/semantic-mcp/
 * main.ts`: the runtime plus the script) and compiled (`dist/semantic-mcp`: `process.execPath` is the
 * executable itself and `argv[1]` a `/$bunfs/…` path inside it, which must not be passed on).
 * No heavy imports here: main.ts reads this before anything else boots.
 *
 * Source: spec/semantic-query-service.md § Limits; docs/architecture.md § Processes.
 */
import type { QueryProcessCommand } from '../../core/adapters/duckdb/query-process.ts';

/** The argument that makes semantic-mcp a query process (stdio protocol, no server, no stores). */
export const queryProcessFlag = '--query-process';

/**
 * Environment variables a query process receives: what the runtime and the DuckDB library preload
 * need (paths and locale), never a credential or a store URL.
 */
export const queryProcessEnvironment = ['PATH', 'TMPDIR', 'BUN_TMPDIR', 'CAIRN_NATIVE_CACHE_DIR', 'CAIRN_DATA_DIR', 'LANG', 'LC_ALL', 'TZ'] as const;

/**
 * True when `argv` asks for a query process.
 *
 * Source: docs/architecture.md § Processes
 */
export function isQueryProcess(argv: readonly string[]): boolean {
  return argv.slice(1).includes(queryProcessFlag);
}

/**
 * The command that starts a query process of this executable.
 * @param execPath - `process.execPath` (the runtime from sources, the executable when compiled)
 * @param argv - `process.argv`; `argv[1]` is the script from sources
 * @param execArgv - `process.execArgv` (runtime flags, kept from sources)
 * @param env - semantic-mcp's environment; only {@link queryProcessEnvironment} is passed on
 *
 * Source: docs/architecture.md § Processes
 */
export function queryProcessCommand(execPath: string, argv: readonly string[], execArgv: readonly string[], env: Record<string, string | undefined>): QueryProcessCommand {
  const script = argv[1];
  const compiled = script === undefined || script.startsWith('/$bunfs/') || /^[A-Za-z]:[\\/]~BUN[\\/]/.test(script);
  const childEnv: Record<string, string> = {};
  for (const name of queryProcessEnvironment) {
    const value = env[name];
    if (value !== undefined) childEnv[name] = value;
  }
  return { command: execPath, args: compiled ? [queryProcessFlag] : [...execArgv, script, queryProcessFlag], env: childEnv };
}
