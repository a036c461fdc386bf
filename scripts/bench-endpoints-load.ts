/**
 * The load loop of scripts/bench-endpoints: `concurrency` callers in flight for `seconds`, each sending its next
 * request as soon as the last one answered (keep-alive connections: Bun's fetch pools them per origin), with the
 * latency of every answer, the answers by status, the client's own CPU and the CPU of the product's processes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** This machine's cores (Node 20, which runs the tests, has no `navigator`). */
const cores = cpus().length;

/** What one load run measured. `perSecond` counts answers with `expected` status only; latencies are milliseconds. */
export interface LoadResult {
  answers: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** Answers by HTTP status (or `error` for a failed request). */
  statuses: Record<string, number>;
  /** The client's CPU time over the run's wall time (1.00 = one core busy). */
  clientCpu: number;
  /** CPU of the product's processes over the run's wall time, by process name (cores). */
  serverCpu: Record<string, number>;
  /** The whole machine's busy CPU over the run (cores, every process of anyone; /proc/stat), or NaN. */
  machineCpu: number;
}

/** The `q` quantile (0..1) of `values`, nearest rank; NaN for no values (a run with no answer of its status). */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(sorted.length * q) - 1))];
}

const ticksPerSecond = 100;

/**
 * CPU seconds so far of `rootPid` and its descendants, summed per process name (Linux /proc; empty elsewhere). A
 * process's reaped children (the dispatcher's workers, one per turn) count under its name.
 */
export function processTreeCpu(rootPid: number): Map<string, number> {
  const byPid = new Map<number, { ppid: number; name: string; seconds: number }>();
  let entries: string[] = [];
  try { entries = readdirSync('/proc'); } catch { return new Map(); }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const fields = stat.slice(close + 2).split(' ');
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      // bun bins/<name>/main.ts → <name>; caddy, redis-server, dist/<name> → their base name
      const script = cmdline.find((a) => /bins\/[\w-]+\/main\.ts$/.test(a));
      const name = script ? script.split('/').at(-2)! : (cmdline[0] || stat.slice(stat.indexOf('(') + 1, close)).split(' ')[0].split('/').at(-1)!;
      byPid.set(Number(entry), { ppid: Number(fields[1]), name, seconds: (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / ticksPerSecond });
    } catch { /* exited meanwhile */ }
  }
  const inTree = (pid: number): boolean => {
    for (let p = pid, hops = 0; p > 1 && hops < 32; hops += 1) {
      if (p === rootPid) return true;
      p = byPid.get(p)?.ppid ?? 0;
    }
    return false;
  };
  const totals = new Map<string, number>();
  for (const [pid, info] of byPid) if (inTree(pid)) totals.set(info.name, (totals.get(info.name) ?? 0) + info.seconds);
  return totals;
}

/** Busy and total jiffies of the machine so far (/proc/stat: user nice system idle iowait irq softirq steal). */
function machineJiffies(): { busy: number; total: number } {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const n = fields.slice(0, 8).map(Number);
    const total = n.reduce((a, b) => a + b, 0);
    return { busy: total - n[3] - n[4], total };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/** The ids of `rootPid`'s descendants started as `bun bins/<name>/main.ts` (or dist/<name>). */
export function processIdsNamed(rootPid: number, name: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (!cmdline.some((a) => a.endsWith(`bins/${name}/main.ts`) || a.endsWith(`dist/${name}`))) continue;
      let p = Number(entry);
      for (let hops = 0; p > 1 && p !== rootPid && hops < 32; hops += 1) p = Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      if (p === rootPid) found.push(Number(entry));
    } catch { /* exited meanwhile */ }
  }
  return found;
}

/** CPU seconds so far of this process, every thread (Bun's fetch runs its sockets on a thread of its own). */
function ownCpuSeconds(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
  } catch {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  }
}

/**
 * Runs `send` from `concurrency` loops for `seconds`; `send(n)` makes request number n and resolves to its status.
 * Answers with a status other than `expected` are counted apart (and not in the rate).
 */
export async function runLoad(send: (n: number) => Promise<number | 'error'>, options: { concurrency: number; seconds: number; expected: number; productPid?: number }): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const cpu0 = ownCpuSeconds();
  const machine0 = machineJiffies();
  const server0 = options.productPid ? processTreeCpu(options.productPid) : new Map<string, number>();
  const t0 = performance.now();
  const end = t0 + options.seconds * 1000;
  const loop = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const status = await send((next += 1));
      const took = performance.now() - started;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === options.expected) latencies.push(took);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, loop));
  const wall = (performance.now() - t0) / 1000;
  const cpu = ownCpuSeconds() - cpu0;
  const machine1 = machineJiffies();
  const machineCpu = ((machine1.busy - machine0.busy) / (machine1.total - machine0.total)) * cores;
  const serverCpu: Record<string, number> = {};
  if (options.productPid) for (const [name, seconds] of processTreeCpu(options.productPid)) serverCpu[name] = (seconds - (server0.get(name) ?? 0)) / wall;
  return {
    answers: latencies.length, perSecond: latencies.length / wall, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), statuses,
    clientCpu: cpu / wall, serverCpu, machineCpu,
  };
}
