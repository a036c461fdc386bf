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
 * Source: spec/semantic-query-service.md § Limits (engine memory 512MB).
 */
import { engineMemoryLimitMiB } from './query-instance.ts';

// The generic /proc reader and prlimit helper live in core/adapters/runtime (shared with the worker launcher).
export { limitDataSize, type ProcessMemory, readProcessMemory } from '../runtime/process-memory.ts';

/** MiB a query process may hold beyond its base and DuckDB's memory_limit (see the file comment). */
export const queryProcessHeadroomMiB = 256;

/** Bytes a query process may grow beyond its base: (512 + 256) MiB. */
export const queryProcessBudgetBytes = (engineMemoryLimitMiB + queryProcessHeadroomMiB) * 1024 * 1024;

/** Growth over base (resident set or data size) after a query that retires the child: half the budget, 384 MiB. */
export const retireAfterGrowthBytes = queryProcessBudgetBytes / 2;

/** Interval of the resident-set watchdog while a query runs, in milliseconds. */
export const memoryWatchdogIntervalMs = 50;
