/**
 * Semantic service benchmark. Prints, side by side from one run (every candidate and its baseline
 * interleaved, call by call):
 * 1. per-call overhead through the front proxy: a plain proxied GET /api/health (baseline) against a
 *    trivial tools/call and execute_query of SELECT 1; the small aggregate stored and with new SQL text;
 *    1,000 rows with and without the proxy's gzip;
 * 2. median and p95 execute_query latency of realistic queries (the flights model, 3,000,000 rows, and
 *    a 10-row GROUP BY over the 30,000-row `orders` model) against raw DuckDB on the same rows (ratio),
 *    and the validator's time per query;
 * 3. where each millisecond of those calls went: the proxy hop (through Caddy − straight to
 *    semantic-mcp), HTTP and JSON between semantic-mcp and the client, and the Server-Timing phases,
 *    including the query process's own (prepare, run, convert) and the pipe and pool around them;
 * 4. the figures docs/decisions.md D18 ("Done when") asks for (heavy-query and small-aggregate ratios, the orders
 *    case, every realistic query against 1.5x);
 * 5. the query path's targets (docs/decisions.md D18, fixed costs) as same-run ratios with their targets beside
 *    them (execute_query of SELECT 1 over the proxied health check ≤ 3; each small realistic query over raw DuckDB
 *    ≤ 1.5; the heavy ones kept where they are; the starvation figure), for this checkout and the baseline revision;
 * 6. digest vs YAML tokens per model (o200k_base).
 * Baseline: the product of an earlier revision (`--baseline REV`, default SEMANTIC_BASELINE_REVISION in
 * scripts/lib/bench-semantic-products.ts, main when this round of targets started), extracted from git and started
 * from its own sources beside this checkout's; the SELECT 1 figures and parts 2, 3 and 5 measure both interleaved,
 * call by call. `--no-baseline` skips it.
 * Options: --runs N (default 30).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDuckDbParser } from '../core/adapters/duckdb/index.ts';
import { validateQuery } from '../core/semantic/query-validation/index.ts';
import { printDigestTokens } from './lib/bench-digest.ts';
import {
  type BenchProduct, type ModelCallers, SEMANTIC_BASELINE_REVISION, startBaselineProduct, startBenchProduct,
} from './lib/bench-semantic-products.ts';
import { datasetsOf, queries, smallAggregate, type BenchQuery } from './lib/bench-semantic-queries.ts';
import { openRawDuckDb, type RawDuckDb } from './lib/bench-semantic-setup.ts';
import { measureSelectOne, printTargets, type TargetFigures } from './lib/bench-semantic-targets.ts';
import { measureStarvation } from './lib/bench-starvation.ts';
import { fmt, PhaseTimes, ratio, stats, time } from './lib/bench-stats.ts';

const root = resolve(import.meta.dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30;
/** `--baseline REV` (default {@link SEMANTIC_BASELINE_REVISION}), `--no-baseline`: the revision measured beside now. */
const baselineArg = process.argv.includes('--baseline')
  ? process.argv[process.argv.indexOf('--baseline') + 1] ?? ''
  : undefined;
const baselineRevision = process.argv.includes('--no-baseline') ? undefined : baselineArg ?? SEMANTIC_BASELINE_REVISION;

/** Right-aligned cells of widths `widths` after a left-aligned label of `labelWidth`. */
const row = (label: string, labelWidth: number, cells: string[], widths: number[]): string => (
  `${label.padEnd(labelWidth)} ${cells.map((cell, i) => cell.padStart(widths[i] ?? 8)).join(' ')}`
);

/** Times `candidate` and `baseline` alternately, `runs` times after 3 warm-ups; prints one row. */
async function compare(
  label: string, candidate: () => Promise<unknown>, baseline: () => Promise<unknown>, baselineName: string,
): Promise<void> {
  for (let i = 0; i < 3; i += 1) { await candidate(); await baseline(); }
  const a: number[] = []; const b: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    a.push(await time(candidate));
    b.push(await time(baseline));
  }
  const x = stats(a); const y = stats(b);
  const base = `  ${baselineName.padEnd(22)}`;
  const cells = [fmt(x.median), fmt(x.p95), base, fmt(y.median), fmt(y.p95), ratio(x.median, y.median)];
  console.log(row(label, 40, cells, [8, 8, 24, 8, 8, 7]));
}

async function overhead(url: string, flights: ModelCallers, raw: RawDuckDb): Promise<void> {
  console.log(`\nper-call overhead through the front proxy, ${runs} runs each after 3 warm-ups (ms)`);
  const header = ['median', 'p95', `  ${'baseline'.padEnd(22)}`, 'median', 'p95', 'ratio'];
  console.log(row('call', 40, header, [8, 8, 24, 8, 8, 7]));
  const health = async () => { const r = await fetch(`${url}/api/health`); await r.text(); };
  const query = (sql: string, extra: Record<string, unknown> = {}) => (
    { modelName: 'flights', sql, store: false, ...extra }
  );
  const rawFlights = raw.model('flights');
  const rawSmall = () => rawFlights.run(smallAggregate);
  const list = () => flights.proxy('list_semantic_models', {});
  await compare('tools/call list_semantic_models', list, health, 'GET /api/health');
  const one = () => flights.proxy('execute_query', query('SELECT 1'));
  await compare('execute_query SELECT 1', one, health, 'GET /api/health');
  const stored = () => flights.proxy('execute_query', query(smallAggregate, { store: true }));
  await compare('small aggregate, stored (store: true)', stored, rawSmall, 'raw DuckDB');
  // A text the parser has not seen (a new comment each call): no remembered parse.
  let fresh = 0;
  const novel = () => `${smallAggregate} /* ${(fresh += 1)} */`;
  const novelCall = () => flights.proxy('execute_query', query(novel()));
  await compare('small aggregate, new SQL text each call', novelCall, () => rawFlights.run(novel()), 'raw DuckDB');
  const rows = queries.find((q) => q.name === '1,000 rows')!.sql;
  const identity = () => flights.identity('execute_query', query(rows));
  const gzip = () => flights.proxy('execute_query', query(rows));
  await compare('1,000 rows without gzip (identity)', identity, gzip, 'with the proxy\'s gzip');
}

/** One realistic query's client times through the proxy and straight, raw times, validator times and phases. */
interface Measured {
  query: BenchQuery;
  proxy: number[];
  direct: number[];
  raw: number[];
  validate: number[];
  phases: PhaseTimes;
  directPhases: PhaseTimes;
}

/**
 * Every realistic query on every product, interleaved call by call (each product through the proxy and straight,
 * then raw DuckDB and the validator), `runs` times after 3 warm-ups; prints the table of the first product, with the
 * others' medians and ratios beside.
 * @returns the measurements of each product, by product name, in query order
 */
async function realistic(products: BenchProduct[], raw: RawDuckDb): Promise<Map<string, Measured[]>> {
  const parser = createDuckDbParser();
  const measured = new Map<string, Measured[]>(products.map((p) => [p.name, []]));
  const others = products.slice(1);
  console.log('\nexecute_query through the front proxy against raw DuckDB on the same rows, '
    + `${runs} runs each after 3 warm-ups (ms)${others.map((p) => `; ${p.name} beside, interleaved`).join('')}`);
  const widths = [8, 8, 8, 8, 7, 9, ...others.flatMap(() => [10, 7])];
  const extra = others.flatMap((p) => [`${p.name.split(' ')[0]} med`, 'ratio']);
  console.log(row('query', 40, ['MCP med', 'MCP p95', 'raw med', 'raw p95', 'ratio', 'validate', ...extra], widths));
  for (const query of queries) {
    const args = { modelName: query.model, sql: query.sql, params: query.params ?? [], store: false };
    const rawModel = raw.model(query.model);
    const runs_ = products.map((product) => ({ product, m: newMeasured(query) }));
    const rawTimes: number[] = []; const validateTimes: number[] = [];
    const datasetNames = datasetsOf[query.model];
    const validate = () => validateQuery({ sql: query.sql, parse: (s) => parser.parse(s), datasetNames });
    for (let i = 0; i < 3; i += 1) {
      for (const { product } of runs_) {
        await product.callers[query.model].proxy('execute_query', args);
        await product.callers[query.model].direct('execute_query', args);
      }
      await rawModel.run(query.sql, query.params);
    }
    for (let i = 0; i < runs; i += 1) {
      for (const { product, m } of runs_) {
        const { proxy, direct } = product.callers[query.model];
        m.proxy.push(await time(() => proxy('execute_query', args, m.phases)));
        m.direct.push(await time(() => direct('execute_query', args, m.directPhases)));
      }
      rawTimes.push(await time(() => rawModel.run(query.sql, query.params)));
      validateTimes.push(await time(validate));
    }
    for (const { product, m } of runs_) {
      m.raw = rawTimes; m.validate = validateTimes;
      measured.get(product.name)!.push(m);
    }
    const [first, ...rest] = runs_.map(({ m }) => m);
    const p = stats(first.proxy); const r = stats(rawTimes);
    const cells = [fmt(p.median), fmt(p.p95), fmt(r.median), fmt(r.p95), ratio(p.median, r.median)];
    const beside = rest.flatMap((m) => [fmt(stats(m.proxy).median), ratio(stats(m.proxy).median, r.median)]);
    console.log(row(query.name, 40, [...cells, fmt(stats(validateTimes).median), ...beside], widths));
  }
  parser.close();
  return measured;
}

function newMeasured(query: BenchQuery): Measured {
  const phases = new PhaseTimes(); const directPhases = new PhaseTimes();
  return { query, proxy: [], direct: [], raw: [], validate: [], phases, directPhases };
}

/**
 * Where the milliseconds of each realistic call went (medians; server phases from Server-Timing), for each product
 * (`measured` by product name; the first is this checkout's).
 */
function breakdown(measured: Map<string, Measured[]>): void {
  console.log([
    '\nwhere the milliseconds went (medians, ms): client = through the proxy; proxy = that − straight to',
    'semantic-mcp; http = straight − server total (HTTP, JSON parse in the client); auth = rate + auth + plane;',
    'tool = validation walk, scope name, output text; pipe = engine − prepare − run − convert (pool, pipe both',
    'ways, scope file lookup); answer = server total − auth − tool phases (JSON-RPC response); raw = raw DuckDB',
  ].join('\n'));
  const columns = [
    'client', 'proxy', 'http', 'server', 'auth', 'parse', 'tool', 'pipe', 'prepare', 'run', 'convert', 'answer', 'raw',
  ];
  for (const [name, list] of measured) {
    console.log(row(name === 'now' ? 'query (now)' : `query (${name})`, 40, columns, []));
    breakdownRows(list);
  }
}

function breakdownRows(measured: Measured[]): void {
  for (const m of measured) {
    const client = stats(m.proxy).median;
    const direct = stats(m.direct).median;
    const ph = m.phases;
    const own = (p: (name: string) => number) => p('prepare') + p('run') + p('convert');
    const values = [
      client, client - direct, direct - m.directPhases.median((p) => p('total')), ph.median((p) => p('total')),
      ph.median((p) => p('rate') + p('auth') + p('plane')), ph.median((p) => p('parse')),
      ph.median((p) => p('tool') - p('engine') - p('parse')), ph.median((p) => p('engine') - own(p)),
      ph.median((p) => p('prepare')), ph.median((p) => p('run')), ph.median((p) => p('convert')),
      ph.median((p) => p('total') - p('rate') - p('auth') - p('plane') - p('tool')), stats(m.raw).median,
    ];
    console.log(row(m.query.name, 40, values.map((v) => fmt(v).trim()), []));
  }
}

/** The figures of docs/decisions.md D18 ("Done when"), from the measurements above. */
function doneWhen(measured: Measured[]): void {
  const of = (m: Measured) => ({ mcp: stats(m.proxy).median, raw: stats(m.raw).median });
  const times = (m: Measured) => of(m).mcp / of(m).raw;
  const line = (m: Measured) => {
    const { mcp, raw } = of(m);
    return `${m.query.name}: ${mcp.toFixed(2)} ms against ${raw.toFixed(2)} ms raw (${(mcp / raw).toFixed(2)}x)`;
  };
  const worstOf = (list: Measured[]) => list.reduce((a, b) => (times(a) >= times(b) ? a : b));
  console.log('\ndocs/decisions.md D18 "Done when" figures (this run)');
  const heavy = measured.filter((m) => m.query.heavy);
  const worstHeavy = worstOf(heavy);
  console.log(`heavy-query ratio (3 M-row flights aggregates, worst; target ≤ 1.5x): ${line(worstHeavy)}`);
  for (const m of heavy.filter((h) => h !== worstHeavy)) console.log(`  also ${line(m)}`);
  console.log(`small-aggregate ratio: ${line(measured.find((m) => m.query.name === 'small aggregate')!)}`);
  console.log(`another model's 10-row GROUP BY: ${line(measured.find((m) => m.query.model === 'orders')!)}`);
  const within = measured.filter((m) => times(m) <= 1.5).length;
  const worst = line(worstOf(measured));
  console.log(`realistic queries within 1.5x of raw DuckDB: ${within} of ${measured.length}; worst ${worst}`);
}

/** The seconds another project's SELECT 1 took on `product` while one project's 12 runaway queries were stopped. */
async function starvation(product: BenchProduct): Promise<number | string> {
  try {
    return (await measureStarvation({ url: product.url })) / 1000;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** One product's target figures from the interleaved measurements. */
function targetFigures(selectOne: { selectOne: number; health: number }, measured: Measured[]): TargetFigures {
  const queryFigures = measured.map((m) => ({
    name: m.query.name, heavy: m.query.heavy === true, mcp: stats(m.proxy).median, raw: stats(m.raw).median,
  }));
  return { ...selectOne, queries: queryFigures };
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(join(tmpdir(), 'cairn-bench-semantic-'));
  const products: BenchProduct[] = [];
  let baselineFailed: string | undefined;
  try {
    if (baselineRevision) {
      const started = await startBaselineProduct(root, baselineRevision, workDir);
      if (typeof started === 'string') baselineFailed = started;
      else products.push(started);
    }
    const now = await startBenchProduct(root, 'now', workDir);
    products.unshift(now);
    const raw = await openRawDuckDb(root, workDir);
    await overhead(now.url, now.callers.flights, raw);
    const selectOne = await measureSelectOne(products, runs);
    const measured = await realistic(products, raw);
    breakdown(measured);
    raw.close();
    doneWhen(measured.get('now')!);
    // Last: the busy project's 12 runaway queries are abandoned and stopped, but would disturb latencies measured
    // after.
    const figures = new Map<string, TargetFigures>();
    for (const p of products) {
      const figured = targetFigures(selectOne.get(p.name)!, measured.get(p.name)!);
      figures.set(p.name, { ...figured, starvation: await starvation(p) });
    }
    const base = products[1];
    const baseline = baselineRevision
      ? {
        name: base?.name ?? `baseline ${baselineRevision.slice(0, 7)}`,
        figures: base && figures.get(base.name),
        failed: baselineFailed,
      }
      : undefined;
    printTargets(figures.get('now')!, baseline);
  } finally {
    for (const p of products) await p.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  printDigestTokens(root);
}

await main();
process.exit(0);
