/**
 * The baseline of scripts/bench-endpoints: an earlier revision of the repository, extracted from git into a
 * temporary directory (sharing this checkout's node_modules), whose product the bench starts and measures the same
 * way in the same run, so its figures print beside the current ones with their ratio.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult } from './bench-endpoints-load.ts';

/**
 * The default baseline: the endpoint path before its claim stopped blocking the API's event loop on the SQLite write
 * lock and before both rate counters were counted in one round trip (the bench itself as today).
 */
export const BASELINE_REVISION = '83abf23c699888c2ec9ab87b474a703a7a575182';

/**
 * The figures of part 1 compared with the baseline: the health run, the webhook run with the dispatcher working
 * (the headline), and the profile rows of the claimed-already (duplicate) and dispatcher-stopped runs.
 */
export interface WebhookFigures {
  base: LoadResult; hooks: LoadResult; duplicate?: LoadResult; paused?: LoadResult;
  /** The same run as `hooks` with fewer in flight (`--few`). */
  fewer?: LoadResult;
}

/** What one product's runs printed, by part, and part 1's headline figures (undefined when part 1 failed). */
export interface ProductRun { parts: string[][]; webhook?: WebhookFigures }

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
