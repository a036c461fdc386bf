/**
 * The baseline of scripts/bench-endpoints: an earlier revision of the repository, extracted from git into a
 * temporary directory (sharing this checkout's node_modules), whose product the bench starts and measures the same
 * way in the same run, so its figures print beside the current ones with their ratio.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AguiFigures } from './bench-endpoints-agui.ts';
import type { FairnessFigures } from './bench-endpoints-fairness.ts';
import type { LoadResult } from './bench-endpoints-load.ts';

/**
 * The default baseline: main when the work of docs/decisions.md D24 (performance and fairness) started, before its cuts of the endpoints'
 * fixed costs (the bench itself as today).
 */
export const BASELINE_REVISION = 'a50ed37aa14b309961930e23967ce9ff077e024b';

/**
 * The figures of part 1 compared with the baseline: the health run, the webhook run with the dispatcher working
 * (the headline), and the profile rows of the claimed-already (duplicate) and dispatcher-stopped runs.
 */
export interface WebhookFigures {
  base: LoadResult; hooks: LoadResult; duplicate?: LoadResult; paused?: LoadResult;
  /** The same run as `hooks` with fewer in flight (`--few`). */
  fewer?: LoadResult;
  /** The dispatcher's pace after the runs: sessions ended per second (a turn each, no model call). */
  endedPerSecond?: number;
}

/**
 * What one product's runs printed, by part, part 1's headline figures (undefined when part 1 failed) and part 3's
 * (undefined when it failed or did not run).
 */
export interface ProductRun { parts: string[][]; webhook?: WebhookFigures; agui?: AguiFigures; fairness?: FairnessFigures }

/** One target of docs/decisions.md D24: a same-run ratio, its bound and whether it is a floor (≥) or a ceiling (≤). */
interface Target { label: string; ratio(run: ProductRun): number; bound: number; floor: boolean }

const targets: Target[] = [
  {
    label: 'webhook 202 rate / health rate', bound: 0.4, floor: true,
    ratio: (r) => (r.webhook ? r.webhook.hooks.perSecond / r.webhook.base.perSecond : Number.NaN),
  },
  {
    label: 'webhook 202 p99 / health p99', bound: 2, floor: false,
    ratio: (r) => (r.webhook ? r.webhook.hooks.p99 / r.webhook.base.p99 : Number.NaN),
  },
  {
    label: 'AG-UI RUN_STARTED / health first byte', bound: 4, floor: false,
    ratio: (r) => (r.agui ? r.agui.startedP50 / r.agui.healthP50 : Number.NaN),
  },
  {
    label: "B's chat after A's burst / alone", bound: 2, floor: false,
    ratio: (r) => (r.fairness ? r.fairness.burstP50 / r.fairness.aloneP50 : Number.NaN),
  },
];

/**
 * The targets of docs/decisions.md D24 as same-run ratios (each run's figure over its own health run's), now beside the
 * baseline revision's (`old`: its run, the reason it failed, or undefined without a baseline), with the target and
 * whether now meets it. Printed, never asserted.
 */
export function targetLines(
  revision: string | undefined, current: ProductRun, old: ProductRun | string | undefined,
): string[] {
  const was = typeof old === 'object' ? old : undefined;
  const head = `${'target (docs/decisions.md D24), same-run ratio'.padEnd(40)} ${'target'.padStart(8)} ${'now'.padStart(8)} `
    + `${(revision ? `${revision.slice(0, 12)}` : 'baseline').padStart(14)}`;
  const lines = targets.map((t) => {
    const now = t.ratio(current);
    const meets = t.floor ? now >= t.bound : now <= t.bound;
    const met = !Number.isFinite(now) ? 'not measured' : meets ? 'met' : 'NOT met';
    return `${t.label.padEnd(40)} ${`${t.floor ? '≥' : '≤'} ${t.bound}`.padStart(8)} ${fixed(now, 2, 8)} `
      + `${fixed(was ? t.ratio(was) : Number.NaN, 2, 14)}  ${met}`;
  });
  const note = typeof old === 'string' ? [`baseline FAILED: ${old}`] : old === undefined ? ['(no baseline run)'] : [];
  const [pace, paceWas] = [current.webhook?.endedPerSecond ?? Number.NaN, was?.webhook?.endedPerSecond ?? Number.NaN];
  const paceRatio = pace / paceWas;
  const paceMet = !Number.isFinite(paceRatio) ? 'not measured' : paceRatio >= 3 ? 'met' : 'NOT met';
  const paceLine = `${'dispatcher pace, now / baseline'.padEnd(40)} ${'≥ 3'.padStart(8)} ${fixed(paceRatio, 2, 8)} `
    + `${'1.00'.padStart(14)}  ${paceMet} (${fixed(pace, 1, 0)} against ${fixed(paceWas, 1, 0)} sessions ended per s)`;
  // The webhook workflow enters a terminal state: since D24 § 2 such a turn runs in the dispatcher without a worker.
  const paceNote = '  (the webhook workflow enters a terminal state without instructions: now a turn with nothing to '
    + 'sandbox, run without a worker; the baseline started one per turn. scripts/bench-runtime shows both costs)';
  return ['', head, ...lines, paceLine, paceNote, ...note];
}

/** `n` with `digits` decimals, right-aligned in `width`; a dash for NaN (a run with no answer). */
export const fixed = (n: number, digits: number, width: number) =>
  (Number.isFinite(n) ? n.toFixed(digits) : '—').padStart(width);

/** An extracted revision: its directory, removed by `remove()`. */
export interface ExtractedRevision { dir: string; remove(): void }

/**
 * Extracts `revision` of the repository at `root` (git archive) into a new temporary directory and links `root`'s
 * node_modules into it.
 * @throws Error naming the revision and git's answer when it is not a commit of this repository or git fails
 */
export function extractRevision(root: string, revision: string): ExtractedRevision {
  if (!/^[\w./-]{1,200}$/.test(revision) || revision.startsWith('-')) {
    throw new Error(`"${revision.slice(0, 80)}" is not a revision name; give a commit hash, tag or branch`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-baseline-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    const archive = join(dir, 'source.tar');
    const args = ['-C', root, 'archive', '--format=tar', '-o', archive, revision];
    const made = spawnSync('git', args, { encoding: 'utf8' });
    if (made.status !== 0) {
      throw new Error(`git could not extract ${revision}: ${(made.stderr || made.error?.message || '').trim()}`);
    }
    const unpacked = spawnSync('tar', ['-xf', archive, '-C', dir], { encoding: 'utf8' });
    if (unpacked.status !== 0) throw new Error(`unpacking ${revision} failed: ${(unpacked.stderr ?? '').trim()}`);
    rmSync(archive);
    if (!existsSync(join(dir, 'test/helpers/product.ts'))) {
      throw new Error(`${revision} has no test/helpers/product.ts, so its product cannot be started by this bench`);
    }
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    return { dir, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/** Part 1's headline figures now beside the baseline's (`revision`), with their ratios (now / baseline). */
export function compareWithBaseline(
  revision: string, current: WebhookFigures | undefined, old: ProductRun | string,
): string[] {
  const title = `\nthe webhook path against the baseline ${revision.slice(0, 12)} (its product, the same runs, `
    + 'measured first in this run; ratio = now / baseline; per health = the ratio over the health runs\' ratio, '
    + 'for a machine whose pace changed between the two)';
  if (typeof old === 'string') return [title, `baseline FAILED: ${old}`];
  if (!current || !old.webhook) {
    return [title, `no figures to compare: part 1 failed ${current ? 'on the baseline' : 'now'}`];
  }
  const ratio = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '—');
  type Run = 'hooks' | 'duplicate' | 'paused' | 'fewer';
  const pace = current.base.perSecond / old.webhook.base.perSecond;
  const line = (label: string, key: 'perSecond' | 'p50' | 'p99', digits: number, run: Run = 'hooks') => {
    const [was, now] = [old.webhook![run]?.[key] ?? Number.NaN, current[run]?.[key] ?? Number.NaN];
    // A rate scales with the machine's pace, a latency with its inverse.
    const paced = key === 'perSecond' ? ratio(now / pace, was) : ratio(now * pace, was);
    return `${label.padEnd(34)} ${fixed(was, digits, 10)} ${fixed(now, digits, 10)} ${ratio(now, was).padStart(8)}`
      + ` ${paced.padStart(10)}`;
  };
  const [oldHealth, health] = [fixed(old.webhook.base.perSecond, 0, 0), fixed(current.base.perSecond, 0, 0)];
  return [
    title,
    `${'POST /api/webhooks/<address> 202'.padEnd(34)} ${'baseline'.padStart(10)} ${'now'.padStart(10)} `
      + `${'ratio'.padStart(8)} ${'per health'.padStart(10)}`,
    line('… per s', 'perSecond', 0), line('… p50 ms', 'p50', 2), line('… p99 ms', 'p99', 2),
    line('… fewer in flight, per s', 'perSecond', 0, 'fewer'),
    line('… fewer in flight, p99 ms', 'p99', 2, 'fewer'),
    line('… claimed already, per s', 'perSecond', 0, 'duplicate'),
    line('… claimed already, p99 ms', 'p99', 2, 'duplicate'),
    line('… dispatcher stopped, per s', 'perSecond', 0, 'paused'),
    line('… dispatcher stopped, p99 ms', 'p99', 2, 'paused'),
    `GET /api/health in each run (the machine's pace then): ${oldHealth} and ${health} per s`,
  ];
}
