/**
 * The query path's targets (docs/decisions.md D18, fixed costs) in scripts/bench-semantic.ts: each as a same-run
 * ratio with its target beside it, for this checkout's product and the baseline revision's, measured interleaved in
 * the same run (a machine whose pace changes moves both alike).
 */
import type { BenchProduct } from './bench-semantic-products.ts';
import { stats, time } from './bench-stats.ts';

/** The medians (ms) behind one product's targets. */
export interface TargetFigures {
  /** `execute_query` of `SELECT 1` through the front proxy, and the proxied `GET /api/health` timed beside it. */
  selectOne: number;
  health: number;
  /** Each realistic query through the front proxy, and the same SQL on raw DuckDB in the same run. */
  queries: { name: string; heavy: boolean; mcp: number; raw: number }[];
  /** Seconds another project's `SELECT 1` took while one project's runaway queries were stopped; a string: failed. */
  starvation?: number | string;
}

/** `execute_query` of `SELECT 1` on the flights model, not stored. */
const selectOne = { modelName: 'flights', sql: 'SELECT 1', store: false };

/**
 * `SELECT 1` and the proxied health check of every product, interleaved call by call, `runs` times after 3
 * warm-ups.
 * @returns per product name, the medians (ms) of `SELECT 1` and of the health check
 */
export async function measureSelectOne(
  products: BenchProduct[],
  runs: number,
): Promise<Map<string, { selectOne: number; health: number }>> {
  const one = (p: BenchProduct) => p.callers.flights.proxy('execute_query', selectOne);
  for (let i = 0; i < 3; i += 1) for (const p of products) { await one(p); await p.health(); }
  const times = new Map(products.map((p) => [p.name, { selectOne: [] as number[], health: [] as number[] }]));
  for (let i = 0; i < runs; i += 1) {
    for (const p of products) {
      times.get(p.name)!.health.push(await time(() => p.health()));
      times.get(p.name)!.selectOne.push(await time(() => one(p)));
    }
  }
  return new Map([...times].map(([name, t]) => [name, {
    selectOne: stats(t.selectOne).median, health: stats(t.health).median,
  }]));
}

/** `a / b` as `1.23x`, or a dash. */
const times = (a: number, b: number) => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}x` : '—');

/** One target row: its label, the ratio now and at the baseline, the target, whether now meets it. */
function targetRow(label: string, target: number, now: [number, number], base?: [number, number]): string {
  const ratio = now[0] / now[1];
  const met = ratio <= target ? 'met' : 'NOT met';
  const detail = `${now[0].toFixed(2)} / ${now[1].toFixed(2)} ms`;
  const baseline = base ? times(base[0], base[1]) : '—';
  return `${label.padEnd(50)} ${`≤ ${target.toFixed(2)}x`.padStart(8)} ${times(...now).padStart(7)} `
    + `${met.padEnd(7)} ${baseline.padStart(9)}   ${detail}`;
}

/**
 * Prints the query path's targets for `now`, with the baseline's same figures beside them (`baseline`: its name and
 * figures, or why it did not run; undefined with --no-baseline).
 */
export function printTargets(
  now: TargetFigures, baseline?: { name: string; figures?: TargetFigures; failed?: string },
): void {
  const base = baseline?.figures;
  const against = baseline
    ? `baseline = ${baseline.name}, its product measured interleaved with this one`
    : 'no baseline (--no-baseline)';
  console.log(`\nthe query path's targets (docs/decisions.md D18), same-run ratios (medians; ${against})`);
  if (baseline?.failed) console.log(`baseline FAILED: ${baseline.failed}`);
  console.log(`${'figure'.padEnd(50)} ${'target'.padStart(8)} ${'now'.padStart(7)} ${''.padEnd(7)} `
    + `${'baseline'.padStart(9)}   now (ms)`);
  const health = (f: TargetFigures): [number, number] => [f.selectOne, f.health];
  console.log(targetRow('execute_query SELECT 1 / GET /api/health', 3, health(now), base && health(base)));
  for (const heavy of [false, true]) {
    if (heavy) console.log('heavy flights queries: kept where they are (baseline beside), within 1.5x of raw DuckDB');
    for (const q of now.queries.filter((x) => x.heavy === heavy)) {
      const old = base?.queries.find((b) => b.name === q.name);
      console.log(targetRow(`${q.name} / raw DuckDB`, 1.5, [q.mcp, q.raw], old && [old.mcp, old.raw]));
    }
  }
  const seconds = (s?: number | string) => (typeof s === 'number' ? `${s.toFixed(2)} s` : s ? `FAILED (${s})` : '—');
  console.log(`${'starvation: a quiet project\'s SELECT 1 beside 12'.padEnd(50)} ${'≤ 5 s'.padStart(8)} `
    + `${seconds(now.starvation).padStart(7)} ${''.padEnd(7)} ${seconds(base?.starvation).padStart(9)}   `
    + 'another project\'s runaway queries being stopped');
}
