/**
 * The memory ceiling of a query process. DuckDB's memory_limit (512 MiB) bounds only its buffer
 * manager: values built outside it (`list_sort(range(100000000))`, `repeat('x', 1000000000)`) grew
 * semantic-mcp to 9 GB. Each query process therefore gets a ceiling over its measured base:
 *
 *   ceiling = base + engineMemoryLimitMiB (512) + queryProcessHeadroomMiB (256)
 *
 * The headroom covers what a legitimate query holds outside the buffer manager: allocator slack and
 * operator state (a 30 M-group aggregate spilling at the limit measured ~576 MiB over base) and the
 * JavaScript values of one result (at most the 4 MiB byte cap, plus the row that passes it).
 * Two mechanisms enforce it, on Linux:
 * - a kernel limit, RLIMIT_DATA = the child's data size once open + the same budget, set with
 *   `prlimit --pid` (util-linux) after start: Bun/JSC size their reservations from RLIMIT_DATA at
 *   launch (a limit given before exec leaves an unpredictable budget), so it is applied afterwards.
 *   An allocation beyond it fails inside DuckDB ("Out of Memory Error"), which the child reports.
 * - a watchdog reading the child's resident set (/proc/<pid>/status) every 50 ms while a query runs,
 *   killing it past the ceiling: it holds where prlimit is missing and for memory that is not data.
 * The allocator keeps much of what a heavy query used (a 20 M-row string_agg left the next spilling
 * sort without room under RLIMIT_DATA), so a child whose resident set or data size stays more than
 * {@link retireAfterGrowthBytes} above its base after a query is retired and replaced on demand:
 * every query starts with the whole budget.
 *
 * Source: ../shared/spec/semantic-query-service.md § Limits (engine memory 512MB).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { engineMemoryLimitMiB } from './query-instance.ts';

/** MiB a query process may hold beyond its base and DuckDB's memory_limit (see the file comment). */
export const queryProcessHeadroomMiB = 256;

/** Bytes a query process may grow beyond its base: (512 + 256) MiB. */
export const queryProcessBudgetBytes = (engineMemoryLimitMiB + queryProcessHeadroomMiB) * 1024 * 1024;

/** Growth over base (resident set or data size) after a query that retires the child: half the budget, 384 MiB. */
export const retireAfterGrowthBytes = queryProcessBudgetBytes / 2;

/** Interval of the resident-set watchdog while a query runs, in milliseconds. */
export const memoryWatchdogIntervalMs = 50;

/** Resident set and data size of a process in bytes, from /proc/<pid>/status. */
export interface ProcessMemory {
  rssBytes: number;
  dataBytes: number;
}

/**
 * Reads `pid`'s VmRSS and VmData.
 * @returns undefined where /proc is unavailable (not Linux) or the process is gone
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export async function readProcessMemory(pid: number): Promise<ProcessMemory | undefined> {
  let status: string;
  try {
    // Synchronous on purpose: /proc is served from memory (no disk wait), and an async read costs a
    // trip through the runtime's thread pool on every query and every watchdog tick.
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string): number | undefined => {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  };
  const rssBytes = kib('VmRSS');
  const dataBytes = kib('VmData');
  return rssBytes === undefined || dataBytes === undefined ? undefined : { rssBytes, dataBytes };
}

/**
 * Sets RLIMIT_DATA (soft and hard) of `pid` to `bytes` with `prlimit --pid`.
 * @returns undefined when set, else the reason (prlimit missing or refused)
 *
 * Source: spec/semantic-query-service.md § Limits
 */
export function limitDataSize(pid: number, bytes: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('prlimit', ['--pid', String(pid), `--data=${bytes}:${bytes}`], { timeout: 5000 }, (error, _stdout, stderr) => {
      if (!error) return resolve(undefined);
      resolve(`${error.message.split('\n')[0]}${stderr ? `: ${String(stderr).trim().slice(0, 200)}` : ''}`);
    });
  });
}
