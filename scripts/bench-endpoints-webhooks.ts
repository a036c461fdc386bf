/**
 * Part 1 of scripts/bench-endpoints: webhook acknowledgements per second and p50/p99 acknowledgement latency through
 * the front proxy against a plain proxied `GET /api/health` measured the same way; profile rows (the same POST
 * refused at the address look-up, stopped at the claim, with the dispatcher stopped), the CPU of each run, and the
 * dispatcher's pace afterwards. Each run posts to its own connection (`HookUrls`).
 *
 * Source: spec/platform-service.md § Endpoints, § Limits; docs/decisions.md D8 (endpoints), D24.
 */
import type { RunningProduct } from '../test/helpers/product.ts';
import { fixed, type WebhookFigures } from './bench-endpoints-baseline.ts';
import { processIdsNamed, runLoad, type LoadResult } from './bench-endpoints-load.ts';
import { countSessions, waitForSessions } from './bench-endpoints-sessions.ts';

/**
 * The webhook addresses of the load runs: warm-up and duplicates, the dispatcher-stopped run, the headline run, the
 * run with fewer in flight.
 */
export interface HookUrls { warm: string; paused: string; live: string; few: string }

/** How part 1 loads the product: its connections' URLs, senders in flight, seconds per run, the second run's few. */
export interface WebhookLoad {
  urls: HookUrls;
  /** Requests in flight in each run (`--concurrency`). */
  concurrency: number;
  /** Seconds of each load run (`--seconds`). */
  seconds: number;
  /** Requests in flight in the second webhook run with the dispatcher working (`--few`). */
  few: number;
}

/** Longest the bench watches the dispatcher work through the measured deliveries after the runs (seconds). */
const drainSeconds = 30;

/** What part 1 measured: each load run, the dispatchers stopped, and the dispatcher's pace after the runs. */
interface WebhookRuns {
  base: LoadResult;
  unknown: LoadResult;
  duplicate: LoadResult;
  paused: LoadResult;
  hooks: LoadResult;
  fewer: LoadResult;
  /** The dispatcher processes stopped for the `paused` run (none found: the row says so). */
  dispatchers: number[];
  /** Sessions of `intake` before the last three runs, and their deliveries. */
  before: number;
  total: number;
  /** Sessions opened and ended, before and after the bounded wait, and its length (s). */
  drain: { opened0: number; ended0: number; opened1: number; ended1: number; wallSeconds: number };
}

/** Runs part 1 on `product` and prints it through `print`. @returns its figures for the baseline comparison */
export async function webhookThroughput(
  product: RunningProduct, load: WebhookLoad, print: (line: string) => void,
): Promise<WebhookFigures> {
  const runs = await measureWebhooks(product, load);
  printWebhooks(load, runs, print);
  const { base, hooks, duplicate, paused, fewer, drain } = runs;
  return { base, hooks, duplicate, paused, fewer, endedPerSecond: (drain.ended1 - drain.ended0) / drain.wallSeconds };
}

/** The load runs of part 1, in order (warm-up, health, profile rows, headline, fewer), then the dispatcher's pace. */
async function measureWebhooks(product: RunningProduct, load: WebhookLoad): Promise<WebhookRuns> {
  const { urls: hookUrls, concurrency, seconds, few } = load;
  const pid = product.child.pid;
  const body = JSON.stringify({ action: 'opened', number: 7, repository: { full_name: 'cairn/bench' } });
  const send = async (url: string, init?: RequestInit) => {
    try { const r = await fetch(url, init); await r.arrayBuffer(); return r.status; } catch { return 'error' as const; }
  };
  const post = (url: string, deliveryId: string) =>
    send(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-delivery-id': deliveryId }, body });
  const health = () => send(`${product.url}/api/health`);
  let run = 0;
  // Each run posts to its own connection, so no run meets the calls-per-minute window the runs before it used.
  let hookUrl = hookUrls.warm;
  const deliver = (n: number) => post(hookUrl, `bench-${run}-${n}`);
  const measure = (fn: (n: number) => Promise<number | 'error'>, expected: number) =>
    runLoad(fn, { concurrency, seconds, expected, productPid: pid });
  // Warm-up: connections opened, code paths compiled on both sides; the dispatcher ends the warm-up's sessions first.
  await runLoad(health, { concurrency, seconds: 1, expected: 200 });
  // The webhook path warmed by one delivery retried for a second (one session) and 64 distinct ones.
  run = 1;
  await runLoad(() => deliver(0), { concurrency, seconds: 1, expected: 202 });
  await Promise.all(Array.from({ length: 64 }, (_, n) => deliver(n + 1)));
  await waitForSessions(product.dataDir, 'intake', 65, 60, { settled: true });
  const base = await measure(health, 200);
  // Where the time goes, with the dispatcher idle: the same request refused at the address look-up (404), and taken
  // up to the claim, which finds the delivery claimed already (202 duplicate: no queue write, no session to open).
  const unknown = await measure(() => post(`${product.url}/api/webhooks/no-such-address`, 'x'), 404);
  run = 2;
  const duplicate = await measure(() => deliver(0), 202);
  const before = (await countSessions(product.dataDir, 'intake')) ?? 0;
  // The same deliveries with the dispatcher stopped (SIGSTOP; the trigger queue keeps the firings): the endpoint's
  // own cost. The dispatcher then resumes and works through them beside the headline run.
  run = 3;
  hookUrl = hookUrls.paused;
  const dispatchers = processIdsNamed(pid!, 'dispatcher');
  for (const id of dispatchers) process.kill(id, 'SIGSTOP');
  let paused: LoadResult;
  try {
    paused = await measure(deliver, 202);
  } finally {
    for (const id of dispatchers) process.kill(id, 'SIGCONT');
  }
  run = 4;
  hookUrl = hookUrls.live;
  const hooks = await measure(deliver, 202);
  // The same with fewer senders in flight (the dispatcher still working): by Little's law the mean latency is the
  // number in flight over the rate, so 32 in flight at 2,000/s cannot average under 16 ms whatever the endpoint does.
  run = 5;
  hookUrl = hookUrls.few;
  const fewer = await runLoad(deliver, { concurrency: few, seconds, expected: 202, productPid: pid });
  const total = paused.answers + hooks.answers + fewer.answers;
  const drain = await dispatcherPace(product, before + total);
  return { base, unknown, duplicate, paused, hooks, fewer, dispatchers, before, total, drain };
}

/** The dispatcher's pace: sessions opened and turns ended over a bounded wait (the rest is left as it is). */
async function dispatcherPace(product: RunningProduct, expected: number): Promise<WebhookRuns['drain']> {
  const loadEnd = performance.now();
  const [opened0, ended0] = [
    await countSessions(product.dataDir, 'intake') ?? 0, await countSessions(product.dataDir, 'intake', true) ?? 0,
  ];
  const ended = await waitForSessions(product.dataDir, 'intake', expected, drainSeconds, { settled: true });
  const [opened1, ended1] = [
    await countSessions(product.dataDir, 'intake') ?? 0, await countSessions(product.dataDir, 'intake', true) ?? 0,
  ];
  return { opened0, ended0, opened1, ended1, wallSeconds: (ended.at - loadEnd) / 1000 };
}

/** One row of figures, or, for a run with no answer of its expected status, the row saying what came back instead. */
const row = (label: string, r: LoadResult, expected: number) => {
  if (r.answers === 0) {
    const seen = Object.entries(r.statuses).map(([s, n]) => `${n}× ${s}`).join(', ') || 'nothing answered';
    return `${label.padEnd(34)} FAILED: no ${expected} answer in the run (${seen})`;
  }
  return `${label.padEnd(34)} ${fixed(r.perSecond, 0, 8)} ${fixed(r.p50, 2, 8)} ${fixed(r.p99, 2, 8)} `
    + `${String(r.answers).padStart(8)} ${fixed(r.clientCpu, 2, 7)}`;
};

/** The machine's CPU in a run (cores), what this bench did not use, and each product process's share. */
const cpuLine = (r: LoadResult) => {
  const notThisBench = r.machineCpu - r.clientCpu - Object.values(r.serverCpu).reduce((a, b) => a + b, 0);
  const processes = Object.entries(r.serverCpu).filter(([, c]) => c >= 0.01).sort((a, b) => b[1] - a[1])
    .map(([n, c]) => `${n} ${c.toFixed(2)}`).join('  ');
  return `machine ${r.machineCpu.toFixed(2)} of ${navigator.hardwareConcurrency} (not this bench `
    + `${notThisBench.toFixed(2)}) | ${processes}`;
};

/** The answers of a run other than `expected`, by status. */
const others = (r: LoadResult, expected: number) =>
  Object.entries(r.statuses).filter(([s]) => s !== String(expected)).map(([s, n]) => `${n}× ${s}`).join(', ');

/** Prints part 1: the table, Little's law, the ratio and targets, the profile rows, CPU and the dispatcher's pace. */
function printWebhooks(load: WebhookLoad, runs: WebhookRuns, print: (line: string) => void): void {
  const { concurrency, seconds, few } = load;
  const { base, hooks, fewer } = runs;
  print(`\n1. webhook acknowledgements through the front proxy: ${concurrency} in flight, ${seconds} s each, `
    + 'keep-alive (latency ms)');
  print(`${'request'.padEnd(34)} ${'per s'.padStart(8)} ${'p50'.padStart(8)} ${'p99'.padStart(8)} `
    + `${'answers'.padStart(8)} ${'client'.padStart(7)}`);
  print(row('GET /api/health (baseline)', base, 200));
  print(row('POST /api/webhooks/<address> 202', hooks, 202));
  print(row(`… the same, ${few} in flight`, fewer, 202));
  print(`Little's law (mean latency = in flight / rate): ${concurrency} in flight at ${hooks.perSecond.toFixed(0)}/s `
    + `averages ${(concurrency / hooks.perSecond * 1000).toFixed(1)} ms at least; ${few} in flight at `
    + `${fewer.perSecond.toFixed(0)}/s, ${(few / fewer.perSecond * 1000).toFixed(1)} ms`);
  print(`ratio webhook / health: ${(hooks.perSecond / base.perSecond).toFixed(2)}× the rate, `
    + `${(hooks.p50 / base.p50).toFixed(2)}× the p50, ${(hooks.p99 / base.p99).toFixed(2)}× the p99`);
  const [rate, p99] = [hooks.perSecond / base.perSecond, hooks.p99 / base.p99];
  print(`targets (docs/decisions.md D24, not asserted): rate ≥ 0.4 of health → ${rate >= 0.4 ? 'met' : 'NOT met'}, `
    + `p99 ≤ 2 times health → ${p99 <= 2 ? 'met' : 'NOT met'}`);
  printProfileRows(runs, print);
  const { drain, before, total } = runs;
  print(`dispatcher, in the ${drain.wallSeconds.toFixed(0)} s after the runs: `
    + `${((drain.opened1 - drain.opened0) / drain.wallSeconds).toFixed(0)} sessions opened and `
    + `${((drain.ended1 - drain.ended0) / drain.wallSeconds).toFixed(0)} ended per second (a turn each into a terminal `
    + `state, no model call: run without a worker since D24 § 2); ${before + total - drain.ended1} of the ${total} `
    + 'deliveries of the last three runs were still to end when the bench went on');
}

/** Prints where the time goes (the same POST refused, a duplicate, the dispatcher stopped), other answers and CPU. */
function printProfileRows(runs: WebhookRuns, print: (line: string) => void): void {
  const { base, hooks, fewer, unknown, duplicate, paused, dispatchers } = runs;
  print('where the time goes (the same POST; dispatcher idle, then stopped):');
  print(row('… unknown address (404)', unknown, 404));
  print(row('… claimed already (202 duplicate)', duplicate, 202));
  print(row(`… dispatcher stopped${dispatchers.length === 0 ? ' (not found!)' : ''}`, paused, 202));
  const labelled = [
    ['health', base, 200], ['webhook', hooks, 202], ['webhook, fewer', fewer, 202],
    ['unknown address', unknown, 404], ['claimed already', duplicate, 202], ['dispatcher stopped', paused, 202],
  ] as const;
  for (const [label, r, expected] of labelled) {
    if (others(r, expected)) print(`other answers, ${label}: ${others(r, expected)}`);
  }
  print('CPU during each run (cores; client = this process; a process\'s ended children count under its name):');
  for (const [label, r] of labelled) print(`  ${label.padEnd(16)} ${cpuLine(r)}`);
}
