/**
 * Semantic service benchmark. Prints, side by side from one run:
 * 1. per-call overhead through the front proxy: a plain proxied GET /api/health (baseline) against
 *    a trivial tools/call (list_semantic_models) and execute_query of SELECT 1 and of a small
 *    aggregate; the aggregate also against the same SQL on an in-process DuckDB holding the same
 *    data as tables (baseline); with where each millisecond went on the server (Server-Timing);
 * 2. median and p95 execute_query latency of realistic queries against raw DuckDB (ratio);
 * 3. validator time per query (DuckDB parse + allowlist walk);
 * 4. digest vs YAML tokens per model (o200k_base).
 * Options: --runs N (default 30).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse as parseYaml } from 'yaml';
import { createDuckDbParser } from '../core/adapters/duckdb/index.ts';
import { measureDigest } from '../core/semantic/digest/measure-digest.ts';
import { validateQuery } from '../core/semantic/query-validation/index.ts';
import { startProduct } from '../test/helpers/product.ts';
import { fmt, PhaseTimes, stats, time } from './lib/bench-stats.ts';
import { seedDemo } from './seed-demo.ts';

const root = resolve(import.meta.dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30;
const flightsYaml = join(root, 'scripts/demo/flights/models/flights.yaml');
const smallAggregate = 'SELECT state, COUNT(*) AS airports FROM origin_airports GROUP BY state ORDER BY airports DESC LIMIT 5';
const queries: Record<string, string> = {
  'state with most delayed departures': 'SELECT o.state, COUNT(*) AS delayed FROM flights f JOIN origin_airports o ON f.origin = o.iata WHERE f.delay > 0 GROUP BY o.state ORDER BY delayed DESC LIMIT 5',
  'average delay per month': 'SELECT departure_month, AVG(delay) AS avg_delay FROM flights GROUP BY 1 ORDER BY 1',
  'top routes': 'SELECT route, COUNT(*) AS n FROM flights GROUP BY route ORDER BY n DESC LIMIT 10',
  'point lookup with params': 'SELECT COUNT(*) FROM flights WHERE origin = $1 AND delay > $2',
  '1,000 rows': 'SELECT date, delay, origin, destination FROM flights LIMIT 1000',
};
const paramsFor = (name: string) => (name.includes('params') ? ['SFO', '15'] : []);

/** The flights model's datasets as tables (CREATE TABLE … AS <view_query>) in an in-process DuckDB: the baseline. */
async function rawDuckDb() {
  const db = await DuckDBInstance.create(':memory:', { threads: '2', memory_limit: '512MiB' });
  const con = await db.connect();
  const vega = join(root, 'node_modules/vega-datasets/data');
  await con.run(`ATTACH ':memory:' AS data`);
  await con.run(`CREATE TABLE data.flights AS SELECT * FROM read_parquet('${vega}/flights-3m.parquet')`);
  await con.run(`CREATE TABLE data.airports AS SELECT * FROM read_csv_auto('${vega}/airports.csv')`);
  const doc = parseYaml(readFileSync(flightsYaml, 'utf8'));
  await con.run('CREATE SCHEMA s');
  for (const ds of doc.semantic_model[0].datasets) {
    const ext = ds.custom_extensions.find((e: { vendor_name: string }) => e.vendor_name === 'COMMON');
    await con.run(`CREATE TABLE s."${ds.name}" AS ${JSON.parse(ext.data).view_query}`);
  }
  await con.run(`SET search_path = 's'`);
  const run = async (sql: string, params: string[] = []) => {
    const prepared = await con.prepare(sql);
    params.forEach((p, i) => prepared.bindVarchar(i + 1, p));
    return (await prepared.runAndReadAll()).getRows();
  };
  return { run, close: () => { con.closeSync(); db.closeSync(); } };
}

/** A JSON-RPC tools/call over plain fetch (no SDK client in the timed path), keeping Server-Timing. */
function mcpCaller(endpoint: string, token: string) {
  let id = 0;
  return async (name: string, args: Record<string, unknown>, phases?: PhaseTimes) => {
    const response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: (id += 1), method: 'tools/call', params: { name, arguments: args } }),
    });
    const body = (await response.json()) as { result?: { isError?: boolean; content: { text: string }[] } };
    if (!response.ok || body.result?.isError) throw new Error(`${name} failed: ${JSON.stringify(body).slice(0, 300)}`);
    phases?.add(response.headers.get('server-timing'));
    return body;
  };
}

/** Times `candidate` and `baseline` alternately, `runs` times after 3 warm-ups; prints one row. */
async function compare(label: string, candidate: (phases: PhaseTimes) => Promise<unknown>, baseline: () => Promise<unknown>, baselineName: string): Promise<PhaseTimes> {
  const phases = new PhaseTimes();
  for (let i = 0; i < 3; i += 1) { await candidate(new PhaseTimes()); await baseline(); }
  const a: number[] = []; const b: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    a.push(await time(() => candidate(phases)));
    b.push(await time(baseline));
  }
  const x = stats(a); const y = stats(b);
  console.log(`${label.padEnd(40)} ${fmt(x.median)} ${fmt(x.p95)}   ${baselineName.padEnd(22)} ${fmt(y.median)} ${fmt(y.p95)} ${(x.median / y.median).toFixed(2).padStart(6)}x`);
  return phases;
}

async function overhead(url: string, call: ReturnType<typeof mcpCaller>, raw: Awaited<ReturnType<typeof rawDuckDb>>) {
  console.log(`\nper-call overhead through the front proxy, ${runs} runs each after 3 warm-ups (ms)`);
  console.log(`${'call'.padEnd(40)} ${'median'.padStart(8)} ${'p95'.padStart(8)}   ${'baseline'.padEnd(22)} ${'median'.padStart(8)} ${'p95'.padStart(8)} ${'ratio'.padStart(7)}`);
  const health = async () => { const r = await fetch(`${url}/api/health`); await r.text(); };
  const rows: [string, PhaseTimes][] = [];
  rows.push(['list_semantic_models', await compare('tools/call list_semantic_models', (p) => call('list_semantic_models', {}, p), health, 'GET /api/health')]);
  rows.push(['execute_query SELECT 1', await compare('execute_query SELECT 1', (p) => call('execute_query', { modelName: 'flights', sql: 'SELECT 1', store: false }, p), health, 'GET /api/health')]);
  rows.push(['execute_query small aggregate', await compare('execute_query small aggregate', (p) => call('execute_query', { modelName: 'flights', sql: smallAggregate, store: false }, p), () => raw.run(smallAggregate), 'raw DuckDB on tables')]);
  rows.push(['… the same, stored (store: true)', await compare('… the same, stored (store: true)', (p) => call('execute_query', { modelName: 'flights', sql: smallAggregate }, p), () => raw.run(smallAggregate), 'raw DuckDB on tables')]);
  // A text the parser has not seen (a new comment each call): no remembered parse.
  let fresh = 0;
  const novel = () => `${smallAggregate} /* ${(fresh += 1)} */`;
  rows.push(['… new SQL text each call', await compare('… new SQL text each call', (p) => call('execute_query', { modelName: 'flights', sql: novel(), store: false }, p), () => raw.run(novel()), 'raw DuckDB on tables')]);
  console.log('\nwhere the milliseconds went on the server (Server-Timing medians, ms)');
  for (const [label, phases] of rows) console.log(`${label.padEnd(40)} ${phases.summary()}`);
}

async function realistic(call: ReturnType<typeof mcpCaller>, raw: Awaited<ReturnType<typeof rawDuckDb>>) {
  const parser = createDuckDbParser();
  const datasetNames = ['flights', 'origin_airports', 'destination_airports'];
  console.log(`\nexecute_query latency, ${runs} runs each after 3 warm-up runs (ms)`);
  console.log(`${'query'.padEnd(36)} ${'MCP med'.padStart(8)} ${'MCP p95'.padStart(8)} ${'raw med'.padStart(8)} ${'raw p95'.padStart(8)} ${'ratio'.padStart(7)} ${'validate'.padStart(9)}`);
  for (const [name, sql] of Object.entries(queries)) {
    const params = paramsFor(name);
    const viaMcp = () => call('execute_query', { modelName: 'flights', sql, params, store: false });
    const viaRaw = () => raw.run(sql, params);
    for (let i = 0; i < 3; i += 1) { await viaMcp(); await viaRaw(); }
    const mcp: number[] = []; const base: number[] = []; const validation: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      mcp.push(await time(viaMcp));
      base.push(await time(viaRaw));
      validation.push(await time(() => validateQuery({ sql, parse: (s) => parser.parse(s), datasetNames })));
    }
    const m = stats(mcp); const b = stats(base); const v = stats(validation);
    console.log(`${name.padEnd(36)} ${fmt(m.median)} ${fmt(m.p95)} ${fmt(b.median)} ${fmt(b.p95)} ${(m.median / b.median).toFixed(2).padStart(6)}x ${fmt(v.median)}`);
  }
  parser.close();
}

function digestTokens() {
  console.log('\ndigest vs YAML tokens (o200k_base; digest = every page an agent must read to see the whole model)');
  console.log(`${'model file'.padEnd(44)} ${'YAML'.padStart(7)} ${'digest'.padStart(7)} ${'ratio'.padStart(7)} ${'ratio w/o comments'.padStart(19)} ${'calls'.padStart(6)}`);
  const files = [
    flightsYaml,
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
  const product = await startProduct({ MCP_RATE_LIMIT_MAX: '1000000' });
  try {
    const tokens = await seedDemo({ url: product.url, dataDir: product.dataDir, root, log: () => {}, waitUntilUp: async () => {} });
    const call = mcpCaller(`${product.url}/mcp/flights/mcp`, tokens.flights);
    const raw = await rawDuckDb();
    await overhead(product.url, call, raw);
    await realistic(call, raw);
    raw.close();
  } finally {
    await product.stop();
  }
  digestTokens();
}

await main();
process.exit(0);
