/**
 * The run folder of a machine's workers: each running worker has a record `<pid>.json` there (its process id and
 * start time, its owner's — the process that started it — and its working directory). A launcher starting in
 * a process ends what a dead owner left behind: a worker still running whose owner is gone (a dispatcher killed
 * with SIGKILL) is killed with its process group and its working directory removed. Start times (from
 * /proc/<pid>/stat) keep a reused process id from being taken for a leftover. A second layer under the
 * parent-death signal every worker gets (bubblewrap's --die-with-parent, or setpriv --pdeathsig).
 *
 * Source: spec/platform-service.md § Rules 6–7; docs/decisions.md D17 § 3 (a worker dies with its
 * dispatcher).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * One running worker as its record holds it.
 *
 * Source: docs/decisions.md D17 § 3
 */
export interface WorkerRecord {
  pid: number;
  /** The worker's start time in clock ticks since boot (field 22 of /proc/<pid>/stat). */
  started: string;
  owner: number;
  ownerStarted: string;
  workDir: string;
}

/**
 * The start time of `pid` in clock ticks since boot, or undefined when it is not running (or /proc is absent).
 *
 * Source: docs/decisions.md D17 § 3
 */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** Whether `pid` runs and is the process that started at `started`. */
function isRunning(pid: number, started: string): boolean {
  return processStartTime(pid) === started;
}

/**
 * Writes the record of worker `pid` (started by this process) into `runDir`.
 * @returns a function removing the record (call it once the worker has ended)
 *
 * Source: docs/decisions.md D17 § 3
 */
export function recordWorker(runDir: string, pid: number, workDir: string): () => void {
  const started = processStartTime(pid);
  ownStart ??= processStartTime(process.pid);
  const ownerStarted = ownStart;
  if (started === undefined || ownerStarted === undefined) return () => undefined;
  const file = join(runDir, `${pid}.json`);
  const record: WorkerRecord = { pid, started, owner: process.pid, ownerStarted, workDir };
  try {
    writeRecord(runDir, file, JSON.stringify(record));
  } catch {
    return () => undefined; // an unwritable run folder loses only this second layer
  }
  return () => rmSync(file, { force: true });
}

/** This process's own start time (it never changes), read on its first worker. */
let ownStart: string | undefined;
/** Run folders this process made (each made once, again only when it was removed meanwhile). */
const madeRunDirs = new Set<string>();

/** Writes a record into `runDir`, making the folder on the first write (or when it is gone). */
function writeRecord(runDir: string, file: string, text: string): void {
  if (!madeRunDirs.has(runDir)) {
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    madeRunDirs.add(runDir);
  }
  try {
    writeFileSync(file, text, { mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    madeRunDirs.delete(runDir);
    mkdirSync(runDir, { recursive: true, mode: 0o700 });
    madeRunDirs.add(runDir);
    writeFileSync(file, text, { mode: 0o600 });
  }
}

/**
 * Ends the workers in `runDir` whose owner is gone: each still running is killed (SIGKILL to its process group
 * and to itself), its working directory removed and its record deleted. Records of live owners are left alone.
 * @returns one line per worker ended, e.g. `[worker] ended leftover worker 1234 of a stopped process (pid 1200)`
 *
 * Source: docs/decisions.md D17 § 3 (a restarted dispatcher ends what the previous one left)
 */
export function endLeftoverWorkers(runDir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(runDir).filter((name) => /^\d+\.json$/.test(name));
  } catch {
    return [];
  }
  const lines: string[] = [];
  for (const name of names) {
    const file = join(runDir, name);
    let record: WorkerRecord;
    try {
      record = JSON.parse(readFileSync(file, 'utf8')) as WorkerRecord;
    } catch {
      continue;
    }
    if (!Number.isInteger(record.pid) || !Number.isInteger(record.owner)) continue;
    if (isRunning(record.owner, record.ownerStarted)) continue;
    if (isRunning(record.pid, record.started)) {
      for (const target of [-record.pid, record.pid]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // the group or the process is already gone
        }
      }
      lines.push(`[worker] ended leftover worker ${record.pid} of a stopped process (pid ${record.owner})`);
    }
    const ownDirectory = typeof record.workDir === 'string' && /\/cairn-worker-[^/]+$/.test(record.workDir);
    if (ownDirectory) rmSync(record.workDir, { recursive: true, force: true });
    try {
      unlinkSync(file);
    } catch {
      // another launcher removed it first
    }
  }
  return lines;
}
