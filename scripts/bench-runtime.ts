/**
 * Runtime benchmark. Prints, side by side from one run:
 * 1. worker start-up: a trivial task (`echo`) through the worker launcher, from `run` to its outcome
 *    (working directory, spawn, channel, answer, exit, clean-up), and the same worker started by hand to
 *    its first channel message and to its answer; against a bare `node -e 0` (spawn to exit) in the same
 *    run. Both worker programs: the compiled one (dist/worker, a Node single executable application) and
 *    the sources bundle run by Node. Median, p90 and the ratio to bare Node (target ≤ 1.5×; printed,
 *    not asserted). Also a trivial hook through the launcher (QuickJS loaded, one broker round trip).
 * 2. a full scripted-model turn (through the worker launcher, the broker over in-memory stores) against the
 *    model call alone, and a trivial hook, each against a bare node start, with where a turn's time goes, this
 *    checkout beside the baseline revision in the same run (scripts/bench-runtime-turn.ts).
 * Each worker row runs in the namespace sandbox (bubblewrap, ../core/adapters/worker/sandbox.ts) and, for
 * comparison, under the permission model alone; the closing lines print the sandboxed start-up (spawn → exit)
 * against bare node with the ratio (docs/decisions.md D17 § 3: within 1.5×).
 * Options: --runs N (default 20); --part 1|2 (default both); --baseline REV (default a50ed37, the round's
 * baseline; `none` measures this checkout only); --tracing (part 2 also runs this checkout with its spans exported
 * to a receiver on loopback, a column of its own: scripts/bench-runtime-tracing.ts).
 *
 * Source: spec/platform-service.md § Rules 6 (start-up adds 0.3 to 0.65 s on a fast machine).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { workerEnvironment } from '../core/config/worker-environment.ts';
import { bundledWorkerProgram, createWorkerLauncher, executableWorkerProgram, type WorkerProgram } from '../core/adapters/worker/index.ts';
import { probeNamespaces, sandboxCommand, type WorkerIsolation } from '../core/adapters/worker/sandbox.ts';
import { readMessages, writeLine, type WorkerMessage } from '../core/adapters/worker/protocol.ts';
import { fmt } from './lib/bench-stats.ts';
import { benchTurn } from './bench-runtime-turn.ts';
import { tracingSwitch } from './bench-runtime-tracing.ts';
import { baselineRuntime, currentRuntime, RUNTIME_BASELINE_REVISION, type RuntimeRevision } from './bench-runtime-revisions.ts';

const root = resolve(import.meta.dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 20;
const node = join(root, 'node_modules/.bin/node');
const settings = { nodeEnv: 'production', appVersion: 'bench', promptCache: false, promptCacheTtl: '5m', allowPrivateUrls: false } as const;
const env = (kind: 'turn' | 'call', memoryMb: number) => workerEnvironment(settings, { kind, memoryLimitMb: memoryMb });
const limits = { memoryMb: 512, wallTimeSeconds: 60 };

/** Median and 90th percentile of `ms`. */
function summary(ms: number[]): { median: number; p90: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], p90: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)] };
}

/** Spawn to exit of `command`, in milliseconds. */
function exitTime(command: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  return new Promise((done, fail) => {
    const child = spawn(command, args, { stdio: 'ignore', env: {} });
    child.on('error', fail);
    child.on('close', () => done(performance.now() - t0));
  });
}

/** Milliseconds of a worker started by hand. */
type HandTimes = { first: number; answer: number; exit: number };

/**
 * A worker started by hand with `program` (under bubblewrap at `bwrap` when given): milliseconds to its first
 * channel message, to its answer, and to its exit.
 */
async function handTimes(program: WorkerProgram, bwrap?: string): Promise<HandTimes> {
  const workDir = await mkdtemp(join(tmpdir(), 'cairn-bench-worker-'));
  const plain = await program.command({ workDir, memoryMb: limits.memoryMb });
  const { command, args } = bwrap ? sandboxCommand(bwrap, plain, { workDir }) : plain;
  const t0 = performance.now();
  const times = { first: 0, answer: 0, exit: 0 };
  await new Promise<void>((done, fail) => {
    const child = spawn(command, args, { cwd: workDir, env: env('call', limits.memoryMb), stdio: ['pipe', 'pipe', 'inherit'] });
    child.on('error', fail);
    child.on('close', () => ((times.exit = performance.now() - t0), done()));
    readMessages<WorkerMessage>(child.stdout!, (message) => {
      if (message.type === 'started') times.first = performance.now() - t0;
      if (message.type === 'result') ((times.answer = performance.now() - t0), child.stdin!.end());
    }, () => undefined);
    writeLine(child.stdin!, { type: 'start', token: 'bench', task: 'echo', payload: { ok: true } });
  });
  await rm(workDir, { recursive: true, force: true });
  return times;
}

/** A trivial hook: QuickJS loaded, one broker round trip. */
const trivialHook = { task: 'hook', payload: { source: 'export default async (input) => ({ input, answer: await platform.call("bench.ping") })', input: 1 } };

/** The default job: the echo task. */
const echoJob = { task: 'echo', payload: { ok: true } };

/** Launcher `run` to outcome for `job` (default the echo task) with `isolation`, in ms (the sandbox probe excluded). */
async function launcherTime(
  program: WorkerProgram, isolation: WorkerIsolation, job: { task: string; payload: unknown } = echoJob,
): Promise<number> {
  const slots = { turn: 1, call: 1 };
  const launcher = createWorkerLauncher({ program, environment: env, slots, log: () => undefined, isolation });
  await launcher.sandbox();
  const t0 = performance.now();
  const outcome = await launcher.run({ kind: 'call', subject: 'call bench', ...job, limits, broker: async () => 'pong' });
  if (outcome.ended !== 'finished') throw new Error(`the worker did not finish: ${JSON.stringify(outcome)}`);
  return performance.now() - t0;
}

async function partOne(): Promise<void> {
  const programs: [string, WorkerProgram][] = [];
  const executable = join(root, 'dist/worker');
  if (existsSync(executable)) programs.push(['dist/worker (single executable)', executableWorkerProgram(executable)]);
  else console.log('dist/worker is missing (scripts/build worker makes it): measuring the sources bundle only');
  programs.push(['sources bundle on node', bundledWorkerProgram({ appDir: root })]);
  const probe = await probeNamespaces();
  if (!probe.ok) console.log(`no namespace sandbox here (${probe.reason}): sandboxed rows are left out`);
  const isolations: [WorkerIsolation, string | undefined][] = [['permission-only', undefined]];
  if (probe.ok) isolations.unshift(['namespaces', probe.bwrap]);
  for (const [, program] of programs) await launcherTime(program, 'permission-only'); // warm-up: bundling, page cache
  await exitTime(node, ['-e', '0']);
  const bare: number[] = [];
  const rows = new Map<string, number[]>();
  const add = (name: string, ms: number) => rows.set(name, [...(rows.get(name) ?? []), ms]);
  for (let i = 0; i < runs; i += 1) {
    bare.push(await exitTime(node, ['-e', '0']));
    for (const [name, program] of programs) {
      for (const [isolation, bwrap] of isolations) {
        const label = `${name} [${isolation}]`;
        add(`${label}: launcher run → outcome`, await launcherTime(program, isolation));
        const hand = await handTimes(program, bwrap);
        add(`${label}: spawn → first message`, hand.first);
        add(`${label}: spawn → answer`, hand.answer);
        add(`${label}: spawn → exit`, hand.exit);
        add(`${label}: launcher run → outcome, trivial hook`, await launcherTime(program, isolation, trivialHook));
      }
    }
  }
  const base = summary(bare);
  console.log(`\n1. worker start-up, ${runs} runs each (ms; ratio = median / bare node median; target ≤ 1.5×)`);
  console.log(`${'what'.padEnd(72)}  median       p90   ratio`);
  console.log(`${'bare node -e 0: spawn → exit'.padEnd(72)}${fmt(base.median)}  ${fmt(base.p90)}    1.00`);
  for (const [name, ms] of rows) {
    const s = summary(ms);
    console.log(`${name.padEnd(72)}${fmt(s.median)}  ${fmt(s.p90)}  ${(s.median / base.median).toFixed(2).padStart(6)}`);
  }
  for (const [name] of programs) {
    const sandboxed = rows.get(`${name} [namespaces]: spawn → first message`);
    if (!sandboxed) continue;
    const s = summary(sandboxed);
    const verdict = s.median <= base.median * 1.5 ? 'within' : 'over';
    const ratio = (s.median / base.median).toFixed(2);
    console.log(`\nsandboxed start-up, ${name} (spawn → first channel message): ${s.median.toFixed(1)} ms; `
      + `bare node -e 0: ${base.median.toFixed(1)} ms; ratio ${ratio} (${verdict} the 1.5× target)`);
  }
}

const parts = process.argv.includes('--part') ? process.argv[process.argv.indexOf('--part') + 1] : '12';
if (parts.includes('1')) await partOne();

// ── Part 2: a full scripted-model turn and a trivial hook, beside the baseline revision (scripts/bench-runtime-turn.ts)
if (parts.includes('2')) {
  const baselineArg = process.argv.includes('--baseline') ? process.argv[process.argv.indexOf('--baseline') + 1] : RUNTIME_BASELINE_REVISION;
  const revisions: RuntimeRevision[] = [await currentRuntime(root)];
  // `--tracing`: this checkout again with its spans exported to a receiver on loopback (./bench-runtime-tracing.ts).
  const traced = process.argv.includes('--tracing') ? await tracingSwitch() : undefined;
  if (traced) revisions.push({ ...revisions[0], label: `${revisions[0].label}, traced`, traced, remove: () => {} });
  if (baselineArg !== 'none') {
    try {
      revisions.push(await baselineRuntime(root, baselineArg, existsSync(join(root, 'dist/worker'))));
    } catch (error) {
      console.log(`\nthe baseline ${baselineArg} could not be measured: ${(error as Error).message}`);
    }
  }
  try {
    await benchTurn(revisions, runs, node);
  } finally {
    if (traced) console.log(`  tracing on: ${await traced.close()}`);
    for (const revision of revisions) revision.remove();
  }
}
