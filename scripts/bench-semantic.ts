/**
 * Semantic service benchmark. Prints, side by side from one run:
 * 1. median and p95 execute_query latency through MCP vs the same SQL on raw DuckDB (ratio);
 * 2. validator time per query (DuckDB parse + allowlist walk);
 * 3. digest vs YAML tokens per model (o200k_base).
 * Options: --runs N (default 30).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { parse as parseYaml } from 'yaml';
import { createDuckDbParser } from '../core/adapters/duckdb/index.ts';
import { measureDigest } from '../core/semantic/digest/measure-digest.ts';
import { validateQuery } from '../core/semantic/query-validation/index.ts';
import { mcpClient } from '../test/helpers/semantic-fixtures.ts';
import { startProduct } from '../test/helpers/product.ts';
import { seedDemo } from './seed-demo.ts';

const root = resolve(import.meta.dirname, '..');
const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 30;
const flightsYaml = join(root, 'scripts/demo/flights/models/flights.yaml');
const queries: Record<string, string> = {
  'state with most delayed departures': 'SELECT o.state, COUNT(*) AS delayed FROM flights f JOIN origin_airports o ON f.origin = o.iata WHERE f.delay > 0 GROUP BY o.state ORDER BY delayed DESC LIMIT 5',
  'average delay per month': 'SELECT departure_month, AVG(delay) AS avg_delay FROM flights GROUP BY 1 ORDER BY 1',
  'top routes': 'SELECT route, COUNT(*) AS n FROM flights GROUP BY route ORDER BY n DESC LIMIT 10',
  'point lookup with params': 'SELECT COUNT(*) FROM flights WHERE origin = $1 AND delay > $2',
  '1,000 rows': 'SELECT date, delay, origin, destination FROM flights LIMIT 1000',
};
const paramsFor = (name: string) => (name.includes('params') ? ['SFO', '15'] : []);

const stats = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  return { median: s[Math.floor(s.length / 2)], p95: s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)] };
};
const time = async (fn: () => Promise<unknown>) => { const t0 = performance.now(); await fn(); return performance.now() - t0; };
const fmt = (n: number) => n.toFixed(2).padStart(8);

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
    await con.run(`CREATE VIEW s."${ds.name}" AS ${JSON.parse(ext.data).view_query}`);
  }
  await con.run(`SET search_path = 's'`);
  return { con, close: () => { con.closeSync(); db.closeSync(); } };
}

async function main() {
  const product = await startProduct({ MCP_RATE_LIMIT_MAX: '1000000' });
  try {
    const tokens = await seedDemo({ url: product.url, dataDir: product.dataDir, root, log: () => {} });
    const client = await mcpClient(`${product.url}/mcp/flights/mcp`, tokens.flights);
    const raw = await rawDuckDb();
    const parser = createDuckDbParser();
    const datasetNames = ['flights', 'origin_airports', 'destination_airports'];
    console.log(`execute_query latency, ${runs} runs each after 3 warm-up runs (ms)`);
    console.log(`${'query'.padEnd(36)} ${'MCP med'.padStart(8)} ${'MCP p95'.padStart(8)} ${'raw med'.padStart(8)} ${'raw p95'.padStart(8)} ${'ratio'.padStart(7)} ${'validate'.padStart(9)}`);
    for (const [name, sql] of Object.entries(queries)) {
      const params = paramsFor(name);
      const viaMcp = () => client.callTool({ name: 'execute_query', arguments: { modelName: 'flights', sql, params, store: false } });
      const viaRaw = async () => { const prepared = await raw.con.prepare(sql); params.forEach((p, i) => prepared.bindVarchar(i + 1, p)); const r = await prepared.runAndReadAll(); return r.getRows(); };
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
    await client.close();
    raw.close();
    await parser.close();
  } finally {
    await product.stop();
  }
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

await main();
process.exit(0);
