/**
 * Semantic service benchmark. Prints, side by side from one run (every candidate and its baseline
 * interleaved, call by call):
 * 1. per-call overhead through the front proxy: a plain proxied GET /api/health (baseline) against a
 *    trivial tools/call and execute_query of SELECT 1; the small aggregate stored and with new SQL text;
 *    1,000 rows with and without the proxy's gzip;
 * 2. median and p95 execute_query latency of realistic queries (the flights model, 3,000,000 rows, and
 *    a 10-row GROUP BY over the 30,000-row `orders` model) against raw DuckDB on the same rows (ratio);
 * 3. where each millisecond of those calls went: the proxy hop (through Caddy − straight to
 *    semantic-mcp), HTTP and JSON between semantic-mcp and the client, and the Server-Timing phases,
 *    including the query process's own (prepare, run, convert) and the pipe and pool around them;
 * 4. the figures issue 18's "Done when" asks for (heavy-query and small-aggregate ratios, the orders
 *    case, the starvation figure);
 * 5. validator time per query; digest vs YAML tokens per model (o200k_base).
 * Options: --runs N (default 30).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createDuckDbParser } from '../core/adapters/duckdb/index.ts';
import { measureDigest } from '../core/semantic/digest/measure-digest.ts';
import { validateQuery } from '../core/semantic/query-validation/index.ts';
import { freePort } from '../test/helpers/ports.ts';
import { startProduct } from '../test/helpers/product.ts';
import { fmt, PhaseTimes, ratio, stats, time } from './lib/bench-stats.ts';
import { openRawDuckDb, orderRows, seedOrdersProject, type RawDuckDb } from './lib/bench-semantic-setup.ts';
import { measureStarvation } from './lib/bench-starvation.ts';
import { seedDemo } from './seed-demo.ts';

const root = resolve(import.meta.dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30;
const smallAggregate = 'SELECT state, COUNT(*) AS airports FROM origin_airports GROUP BY state ORDER BY airports DESC LIMIT 5';

interface BenchQuery { name: string; model: 'flights' | 'orders'; sql: string; params?: string[]; heavy?: boolean }
const queries: BenchQuery[] = [
  { name: 'state with most delayed departures', model: 'flights', heavy: true, sql: 'SELECT o.state, COUNT(*) AS delayed FROM flights f JOIN origin_airports o ON f.origin = o.iata WHERE f.delay > 0 GROUP BY o.state ORDER BY delayed DESC LIMIT 5' },
  { name: 'average delay per month', model: 'flights', heavy: true, sql: 'SELECT departure_month, AVG(delay) AS avg_delay FROM flights GROUP BY 1 ORDER BY 1' },
  { name: 'top routes', model: 'flights', heavy: true, sql: 'SELECT route, COUNT(*) AS n FROM flights GROUP BY route ORDER BY n DESC LIMIT 10' },
  { name: 'point lookup with params', model: 'flights', sql: 'SELECT COUNT(*) FROM flights WHERE origin = $1 AND delay > $2', params: ['SFO', '15'] },
  { name: '1,000 rows', model: 'flights', sql: 'SELECT date, delay, origin, destination FROM flights LIMIT 1000' },
  { name: 'small aggregate', model: 'flights', sql: smallAggregate },
  { name: `orders: 10-row GROUP BY over ${orderRows.toLocaleString('en-US')}`, model: 'orders', sql: 'SELECT region, COUNT(*) AS orders, SUM(amount) AS revenue FROM orders GROUP BY region ORDER BY region' },
];
const datasetsOf = { flights: ['flights', 'origin_airports', 'destination_airports'], orders: ['orders'] };

type Caller = (name: string, args: Record<string, unknown>, phases?: PhaseTimes) => Promise<unknown>;

/** A JSON-RPC tools/call over plain fetch (no SDK client in the timed path), keeping Server-Timing. */
function mcpCaller(endpoint: string, token: string, headers: Record<string, string> = {}): Caller {
  let id = 0;
  return async (name, args, phases) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: (id += 1), method: 'tools/call', params: { name, arguments: args } }),
    });
    const body = (await response.json()) as { result?: { isError?: boolean } };
    if (!response.ok || body.result?.isError) throw new Error(`${name} failed: ${JSON.stringify(body).slice(0, 300)}`);
    phases?.add(response.headers.get('server-timing'));
    return body;
  };
}

/** Calls of one model: through the front proxy (gzip as the client asks), without gzip, and straight to semantic-mcp. */
interface ModelCallers { proxy: Caller; identity: Caller; direct: Caller }

/** Times `candidate` and `baseline` alternately, `runs` times after 3 warm-ups; prints one row. */
async function compare(label: string, candidate: () => Promise<unknown>, baseline: () => Promise<unknown>, baselineName: string): Promise<void> {
  for (let i = 0; i < 3; i += 1) { await candidate(); await baseline(); }
  const a: number[] = []; const b: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    a.push(await time(candidate));
    b.push(await time(baseline));
  }
  const x = stats(a); const y = stats(b);
  console.log(`${label.padEnd(40)} ${fmt(x.median)} ${fmt(x.p95)}   ${baselineName.padEnd(22)} ${fmt(y.median)} ${fmt(y.p95)} ${ratio(x.median, y.median)}`);
}

async function overhead(url: string, flights: ModelCallers, raw: RawDuckDb) {
  console.log(`\nper-call overhead through the front proxy, ${runs} runs each after 3 warm-ups (ms)`);
  console.log(`${'call'.padEnd(40)} ${'median'.padStart(8)} ${'p95'.padStart(8)}   ${'baseline'.padEnd(22)} ${'median'.padStart(8)} ${'p95'.padStart(8)} ${'ratio'.padStart(7)}`);
  const health = async () => { const r = await fetch(`${url}/api/health`); await r.text(); };
  const query = (sql: string, extra: Record<string, unknown> = {}) => ({ modelName: 'flights', sql, store: false, ...extra });
  const rawFlights = raw.model('flights');
  await compare('tools/call list_semantic_models', () => flights.proxy('list_semantic_models', {}), health, 'GET /api/health');
  await compare('execute_query SELECT 1', () => flights.proxy('execute_query', query('SELECT 1')), health, 'GET /api/health');
  await compare('small aggregate, stored (store: true)', () => flights.proxy('execute_query', query(smallAggregate, { store: true })), () => rawFlights.run(smallAggregate), 'raw DuckDB');
  // A text the parser has not seen (a new comment each call): no remembered parse.
  let fresh = 0;
  const novel = () => `${smallAggregate} /* ${(fresh += 1)} */`;
  await compare('small aggregate, new SQL text each call', () => flights.proxy('execute_query', query(novel())), () => rawFlights.run(novel()), 'raw DuckDB');
  const rows = queries.find((q) => q.name === '1,000 rows')!.sql;
  await compare('1,000 rows without gzip (identity)', () => flights.identity('execute_query', query(rows)), () => flights.proxy('execute_query', query(rows)), 'with the proxy\'s gzip');
}

/** One realistic query's measurements: client times through the proxy and straight, raw times, and phases. */
interface Measured { query: BenchQuery; proxy: number[]; direct: number[]; raw: number[]; validate: number[]; phases: PhaseTimes; directPhases: PhaseTimes }

async function realistic(callers: Record<BenchQuery['model'], ModelCallers>, raw: RawDuckDb): Promise<Measured[]> {
  const parser = createDuckDbParser();
  const measured: Measured[] = [];
  console.log(`\nexecute_query latency through the front proxy against raw DuckDB on the same rows, ${runs} runs each after 3 warm-ups (ms)`);
  console.log(`${'query'.padEnd(40)} ${'MCP med'.padStart(8)} ${'MCP p95'.padStart(8)} ${'raw med'.padStart(8)} ${'raw p95'.padStart(8)} ${'ratio'.padStart(7)} ${'validate'.padStart(9)}`);
  for (const query of queries) {
    const args = { modelName: query.model, sql: query.sql, params: query.params ?? [], store: false };
    const { proxy, direct } = callers[query.model];
    const rawModel = raw.model(query.model);
    const m: Measured = { query, proxy: [], direct: [], raw: [], validate: [], phases: new PhaseTimes(), directPhases: new PhaseTimes() };
    for (let i = 0; i < 3; i += 1) { await proxy('execute_query', args); await direct('execute_query', args); await rawModel.run(query.sql, query.params); }
    for (let i = 0; i < runs; i += 1) {
      m.proxy.push(await time(() => proxy('execute_query', args, m.phases)));
      m.direct.push(await time(() => direct('execute_query', args, m.directPhases)));
      m.raw.push(await time(() => rawModel.run(query.sql, query.params)));
      m.validate.push(await time(() => validateQuery({ sql: query.sql, parse: (s) => parser.parse(s), datasetNames: datasetsOf[query.model] })));
    }
    const p = stats(m.proxy); const r = stats(m.raw);
    console.log(`${query.name.padEnd(40)} ${fmt(p.median)} ${fmt(p.p95)} ${fmt(r.median)} ${fmt(r.p95)} ${ratio(p.median, r.median)} ${fmt(stats(m.validate).median)} `);
    measured.push(m);
  }
  parser.close();
  return measured;
}

/** Where the milliseconds of each realistic call went (medians; server phases from Server-Timing). */
function breakdown(measured: Measured[]): void {
  console.log('\nwhere the milliseconds went (medians, ms): client = through the proxy; proxy = that − straight to semantic-mcp;');
  console.log('http = straight − server total (HTTP, JSON parse in the client); auth = rate + auth + plane; tool = validation walk,');
  console.log('scope name, output text; pipe = engine − prepare − run − convert (pool, pipe both ways, scope file lookup);');
  console.log('answer = server total − auth − tool phases (JSON-RPC response); raw = raw DuckDB');
  const columns = ['client', 'proxy', 'http', 'server', 'auth', 'parse', 'tool', 'pipe', 'prepare', 'run', 'convert', 'answer', 'raw'];
  console.log(`${'query'.padEnd(40)}${columns.map((c) => c.padStart(8)).join('')}`);
  for (const m of measured) {
    const client = stats(m.proxy).median;
    const direct = stats(m.direct).median;
    const http = direct - m.directPhases.median((p) => p('total'));
    const ph = m.phases;
    const engineOwn = (p: (name: string) => number) => p('prepare') + p('run') + p('convert');
    const values = [
      client, client - direct, http, ph.median((p) => p('total')),
      ph.median((p) => p('rate') + p('auth') + p('plane')), ph.median((p) => p('parse')),
      ph.median((p) => p('tool') - p('engine') - p('parse')), ph.median((p) => p('engine') - engineOwn(p)),
      ph.median((p) => p('prepare')), ph.median((p) => p('run')), ph.median((p) => p('convert')),
      ph.median((p) => p('total') - p('rate') - p('auth') - p('plane') - p('tool')), stats(m.raw).median,
    ];
    console.log(`${m.query.name.padEnd(40)}${values.map(fmt).join('')}`);
  }
}

/** The figures of issue 18's "Done when", from the measurements above. */
async function doneWhen(measured: Measured[], url: string): Promise<void> {
  const median = (m: Measured) => ({ mcp: stats(m.proxy).median, raw: stats(m.raw).median });
  const line = (m: Measured) => { const { mcp, raw } = median(m); return `${m.query.name}: ${mcp.toFixed(2)} ms against ${raw.toFixed(2)} ms raw (${(mcp / raw).toFixed(2)}x)`; };
  console.log('\nissue 18 "Done when" figures (this run)');
  const heavy = measured.filter((m) => m.query.heavy);
  const worstHeavy = heavy.reduce((a, b) => (median(a).mcp / median(a).raw >= median(b).mcp / median(b).raw ? a : b));
  console.log(`heavy-query ratio (3 M-row flights aggregates, worst; target ≤ 1.5x): ${line(worstHeavy)}`);
  for (const m of heavy.filter((h) => h !== worstHeavy)) console.log(`  also ${line(m)}`);
  console.log(`small-aggregate ratio: ${line(measured.find((m) => m.query.name === 'small aggregate')!)}`);
  console.log(`another model's 10-row GROUP BY: ${line(measured.find((m) => m.query.model === 'orders')!)}`);
  const worst = measured.reduce((a, b) => (median(a).mcp / median(a).raw >= median(b).mcp / median(b).raw ? a : b));
  const within = measured.filter((m) => median(m).mcp / median(m).raw <= 1.5).length;
  console.log(`realistic queries within 1.5x of raw DuckDB: ${within} of ${measured.length}; worst ${line(worst)}`);
  // Last: the busy project's 12 runaway queries are abandoned and stopped, but would disturb latencies measured after.
  const quietMs = await measureStarvation({ url });
  console.log(`starvation: another project's SELECT 1 answered in ${(quietMs / 1000).toFixed(2)} s while one project's 12 `
    + 'abandoned runaway queries were being stopped (target ≤ 5 s)');
}

function digestTokens() {
  console.log('\ndigest vs YAML tokens (o200k_base; digest = every page an agent must read to see the whole model)');
  console.log(`${'model file'.padEnd(44)} ${'YAML'.padStart(7)} ${'digest'.padStart(7)} ${'ratio'.padStart(7)} ${'ratio w/o comments'.padStart(19)} ${'calls'.padStart(6)}`);
  const files = [
    join(root, 'scripts/demo/flights/models/flights.yaml'),
    join(root, 'scripts/demo/tpcds/models/tpcds_retail_model.yaml'),
    ...readdirSync(join(root, 'core/semantic/osi/testdata/valid'), { recursive: true, encoding: 'utf8' })
      .filter((p) => p.endsWith('.yaml')).sort().map((p) => join(root, 'core/semantic/osi/testdata/valid', p)),
  ];
  for (const path of files) {
    let text: string;
    try { text = readFileSync(path, 'utf8'); } catch { continue; }
    const [m] = measureDigest([{ fileName: path.split('/').pop()!, text }]);
    console.log(`${path.replace(`${root}/`, '').replace('core/semantic/osi/testdata/valid/', 'osi/').slice(-44).padEnd(44)} ${String(m.yamlTokens).padStart(7)} ${String(m.digestTokens).padStart(7)} ${m.ratio.toFixed(2).padStart(6)}x ${m.ratioWithoutComments.toFixed(2).padStart(18)}x ${String(m.calls).padStart(6)}`);
  }
}

async function main() {
  const workDir = mkdtempSync(join(tmpdir(), 'cairn-bench-semantic-'));
  const semanticPort = await freePort();
  const product = await startProduct({ MCP_RATE_LIMIT_MAX: '1000000', SEMANTIC_MCP_PORT: String(semanticPort) });
  try {
    const tokens = await seedDemo({ url: product.url, dataDir: product.dataDir, root, log: () => {}, waitUntilUp: async () => {} });
    tokens.orders = await seedOrdersProject(product.url, root, workDir);
    const callers = (model: 'flights' | 'orders'): ModelCallers => ({
      proxy: mcpCaller(`${product.url}/mcp/${model}/mcp`, tokens[model]),
      identity: mcpCaller(`${product.url}/mcp/${model}/mcp`, tokens[model], { 'accept-encoding': 'identity' }),
      direct: mcpCaller(`http://127.0.0.1:${semanticPort}/mcp/${model}/mcp`, tokens[model]),
    });
    const raw = await openRawDuckDb(root, workDir);
    const flights = callers('flights');
    await overhead(product.url, flights, raw);
    const measured = await realistic({ flights, orders: callers('orders') }, raw);
    breakdown(measured);
    raw.close();
    await doneWhen(measured, product.url);
  } finally {
    await product.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
  digestTokens();
}

await main();
process.exit(0);
