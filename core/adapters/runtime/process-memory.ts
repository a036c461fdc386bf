/**
 * A child process's memory as Linux reports it (/proc/<pid>/status) and its kernel data-size limit
 * (RLIMIT_DATA through `prlimit --pid`, util-linux). Shared by the semantic query processes
 * (core/adapters/duckdb/memory-ceiling.ts) and the worker launcher (core/adapters/worker).
 *
 * Source: spec/semantic-query-service.md § Limits; spec/platform-service.md § Rules 7.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Resident set and data size of a process in bytes, from /proc/<pid>/status. */
export interface ProcessMemory {
  rssBytes: number;
  dataBytes: number;
}

/**
 * Reads `pid`'s VmRSS and VmData.
 * @returns undefined where /proc is unavailable (not Linux) or the process is gone
 *
 * Source: spec/semantic-query-service.md § Limits; spec/platform-service.md § Rules 7
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
 * Source: spec/semantic-query-service.md § Limits; spec/platform-service.md § Rules 7
 */
export function limitDataSize(pid: number, bytes: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'prlimit',
      ['--pid', String(pid), `--data=${bytes}:${bytes}`],
      { timeout: 5000 },
      (error, _stdout, stderr) => {
        if (!error) return resolve(undefined);
        resolve(`${error.message.split('\n')[0]}${stderr ? `: ${String(stderr).trim().slice(0, 200)}` : ''}`);
      },
    );
  });
}

/**
 * The process ids of `pid`'s children (/proc/<pid>/task/<tid>/children of each of its threads); none where /proc
 * is unavailable or `pid` is gone.
 *
 * Source: spec/platform-service.md § Rules 7
 */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return children;
  }
  for (const task of tasks) {
    try {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ');
      for (const child of listed) if (child.trim()) children.push(Number(child));
    } catch {
      // the thread ended meanwhile
    }
  }
  return children;
}

/**
 * The memory of `pid` and all its descendants, summed (a sandboxed worker runs under bubblewrap's two small
 * processes: the runtime is a grandchild of the process the launcher started).
 * @returns undefined where /proc is unavailable or `pid` is gone
 *
 * Source: spec/platform-service.md § Rules 7
 */
export async function readProcessTreeMemory(pid: number): Promise<ProcessMemory | undefined> {
  const root = await readProcessMemory(pid);
  if (!root) return undefined;
  const total = { ...root };
  const seen = new Set([pid]);
  const queue = childrenOf(pid);
  while (queue.length > 0 && seen.size < 64) {
    const next = queue.shift()!;
    if (seen.has(next)) continue;
    seen.add(next);
    const memory = await readProcessMemory(next);
    if (memory) {
      total.rssBytes += memory.rssBytes;
      total.dataBytes += memory.dataBytes;
    }
    queue.push(...childrenOf(next));
  }
  return total;
}
