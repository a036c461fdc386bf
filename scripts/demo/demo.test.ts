/**
 * Demo projects: the flights and TPC-DS OSI models validate against the official schema, their
 * view_query extensions build views over a `data` catalog the way cairn does, and agent-style SQL
 * with bare dataset names answers questions; generated TPC-DS data is complete and consistent.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import Ajv2020 from 'ajv/dist/2020';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quoteLiteral } from '../../core/ports/sql-text.ts';
import { TPCDS_DATASETS, generateTpcdsData } from './generate-tpcds.ts';

const here = fileURLToPath(new URL('.', import.meta.url));
const repo = resolve(here, '../..');
const VEGA = join(repo, 'node_modules/vega-datasets/data');
// Unmodified copies of the Apache Ossie files (see core/semantic/osi/schemas/NOTICE.md), so the test needs no checkout beside this one.
const SCHEMA = resolve(repo, 'core/semantic/osi/schemas/osi-schema-0.2.0.dev0.json');
const UPSTREAM_TPCDS = resolve(repo, 'core/semantic/osi/testdata/valid/main/examples/tpcds_semantic_model.yaml');
const FLIGHTS_MODEL = join(here, 'flights/models/flights.yaml');
const TPCDS_MODEL = join(here, 'tpcds/models/tpcds_retail_model.yaml');

interface Expression { dialects: { dialect: string; expression: string }[] }
interface Extension { vendor_name: string; data: string }
interface Field { name: string; expression: Expression; custom_extensions?: Extension[] }
interface Dataset {
  name: string; primary_key?: string[]; unique_keys?: string[][]; fields?: Field[]; custom_extensions?: Extension[];
}
interface Relationship { name: string; from: string; to: string; from_columns: string[]; to_columns: string[] }
interface Model { name: string; datasets: Dataset[]; relationships?: Relationship[]; metrics?: { name: string; expression: Expression }[] }
interface OsiDocument { version: string; semantic_model: Model[] }

function readDocument(path: string): OsiDocument {
  return parse(readFileSync(path, 'utf8')) as OsiDocument;
}

function onlyModel(path: string): Model {
  const document = readDocument(path);
  expect(document.semantic_model).toHaveLength(1);
  return document.semantic_model[0];
}

function ansi(expression: Expression): string {
  const found = expression.dialects.find((d) => d.dialect === 'ANSI_SQL');
  if (!found) throw new Error('no ANSI_SQL expression');
  return found.expression;
}

/** The SELECT of a dataset's COMMON view_query extension (data is a JSON string). */
function viewQuery(dataset: Dataset): string {
  const extension = dataset.custom_extensions?.find((e) => e.vendor_name === 'COMMON');
  if (!extension) throw new Error(`dataset ${dataset.name} has no COMMON extension`);
  const sql = (JSON.parse(extension.data) as { view_query?: unknown }).view_query;
  if (typeof sql !== 'string') throw new Error(`dataset ${dataset.name} has no view_query`);
  return sql;
}

/** Value lists a field's extensions carry (cairn reads `enum` and `sample_values` from any vendor). */
function fieldValues(field: Field): { enum?: string[]; sample_values?: string[] } {
  const merged: { enum?: string[]; sample_values?: string[] } = {};
  for (const extension of field.custom_extensions ?? []) Object.assign(merged, JSON.parse(extension.data));
  return merged;
}

async function rows(connection: DuckDBConnection, sql: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
}

async function count(connection: DuckDBConnection, sql: string): Promise<number> {
  return Number(Object.values((await rows(connection, sql))[0])[0]);
}

/** Loads files as tables of an in-memory catalog `data`, as cairn does with `data/<table>.<ext>`. */
async function attachData(connection: DuckDBConnection, tables: Record<string, string>): Promise<void> {
  await connection.run(`ATTACH ':memory:' AS data`);
  for (const [table, file] of Object.entries(tables)) {
    const reader = file.endsWith('.csv') ? 'read_csv' : 'read_parquet';
    await connection.run(`CREATE TABLE data.${table} AS SELECT * FROM ${reader}(${quoteLiteral(file)})`);
  }
}

/** Table name of a data file: its stem (`data/flights.parquet` → `flights`). */
const tableOf = (file: string) => basename(file).replace(/\.[^.]+$/, '');

/** Creates every dataset's view in `_scope_<model>` and points the connection's search_path at it. */
async function createScope(connection: DuckDBConnection, model: Model): Promise<void> {
  const scope = `_scope_${model.name}`;
  await connection.run(`CREATE SCHEMA ${scope}`);
  for (const dataset of model.datasets) {
    await connection.run(`CREATE OR REPLACE VIEW ${scope}."${dataset.name}" AS ${viewQuery(dataset)}`);
  }
  await connection.run(`SET search_path = '${scope}'`);
}

/** FROM clause for a metric: the datasets its expression names, joined along the model's relationships. */
function metricFrom(model: Model, expression: string): string {
  const names = model.datasets.map((d) => d.name).filter((n) => new RegExp(`\\b${n}\\.`).test(expression));
  const relationships = model.relationships ?? [];
  if (names.length === 0) return relationships[0]?.from ?? model.datasets[0].name;
  const base = names.find((n) => names.every((o) => o === n || relationships.some((r) => r.from === n && r.to === o)));
  if (!base) throw new Error(`no relationship path joins ${names.join(', ')}`);
  const joins = names.filter((n) => n !== base).map((other) => {
    const r = relationships.find((x) => x.from === base && x.to === other)!;
    const on = r.from_columns.map((c, i) => `${r.from}.${c} = ${r.to}.${r.to_columns[i]}`).join(' AND ');
    return ` JOIN ${other} ON ${on}`;
  });
  return base + joins.join('');
}

describe('model files', () => {
  const ajv = new Ajv2020({ allErrors: true });
  const validate = ajv.compile(JSON.parse(readFileSync(SCHEMA, 'utf8')));

  const modelFiles = [FLIGHTS_MODEL, TPCDS_MODEL].map((path) => ({ file: basename(path), path }));

  it.each(modelFiles)('$file validates against osi-schema.json', ({ path }) => {
    const valid = validate(readDocument(path));
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it.each(modelFiles)('$file holds one model named by its file, every dataset with a view_query', ({ path }) => {
    const model = onlyModel(path);
    expect(model.name).toBe(basename(path, '.yaml'));
    for (const dataset of model.datasets) expect(viewQuery(dataset)).toMatch(/^SELECT\b[\s\S]+\bFROM data\.\w+$/);
  });

  it('the TPC-DS copy keeps the licence header and differs from upstream only by view_query extensions', () => {
    const upstream = readFileSync(UPSTREAM_TPCDS, 'utf8');
    const copy = readFileSync(TPCDS_MODEL, 'utf8');
    const header = upstream.slice(0, upstream.indexOf('version:'));
    expect(header).toContain('Licensed to the Apache Software Foundation');
    expect(copy.startsWith(header)).toBe(true);
    const stripped = readDocument(TPCDS_MODEL);
    for (const dataset of stripped.semantic_model[0].datasets) {
      expect(viewQuery(dataset)).toContain(`FROM data.${dataset.name}`);
      expect(dataset.custom_extensions).toHaveLength(1);
      delete dataset.custom_extensions;
    }
    expect(stripped).toEqual(readDocument(UPSTREAM_TPCDS));
    expect(copy.match(/# Added by cairn/g)).toHaveLength(stripped.semantic_model[0].datasets.length);
  });
});

describe('flights model over the vega BTS data', () => {
  const model = onlyModel(FLIGHTS_MODEL);
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;

  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:', { threads: '2' });
    connection = await instance.connect();
    // The demo project ships flights-3m.parquet as data/flights.parquet.
    await attachData(connection, { flights: join(VEGA, 'flights-3m.parquet'), airports: join(VEGA, 'airports.csv') });
    await createScope(connection, model);
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
  });

  it('answers "which state has the most delayed departures" with bare names, matching the raw tables', async () => {
    const agent = await rows(connection, `
      SELECT o.state, COUNT(*) AS delayed_departures
      FROM flights f JOIN origin_airports o ON f.origin = o.iata
      WHERE f.is_delayed
      GROUP BY o.state ORDER BY delayed_departures DESC LIMIT 1`);
    const raw = await rows(connection, `
      SELECT a.state, COUNT(*) AS delayed_departures
      FROM data.main.flights f JOIN data.main.airports a ON f.origin = a.iata
      WHERE f.delay > 0
      GROUP BY a.state ORDER BY delayed_departures DESC LIMIT 1`);
    expect(agent).toHaveLength(1);
    expect(agent[0].state).toMatch(/^[A-Z]{2}$/);
    expect(agent).toEqual(raw);
    console.log(`most delayed departures: ${agent[0].state} ${agent[0].delayed_departures}`);
  });

  it('keeps every raw row and column in the flights view, and every origin and destination joins', async () => {
    expect(await count(connection, 'SELECT COUNT(*) FROM flights')).toBe(3_000_000);
    const raw = await count(connection, 'SELECT COUNT(*) FROM (SELECT date, delay, distance, origin, destination FROM data.main.flights EXCEPT ALL SELECT date, delay, distance, origin, destination FROM flights)');
    expect(raw).toBe(0);
    for (const r of model.relationships ?? []) {
      const missing = await count(connection, `SELECT COUNT(*) FROM ${r.from} ANTI JOIN ${r.to} ON ${r.from}.${r.from_columns[0]} = ${r.to}.${r.to_columns[0]}`);
      expect(missing, r.name).toBe(0);
    }
  });

  it('runs every field expression over its dataset view', async () => {
    for (const dataset of model.datasets) {
      const list = dataset.fields!.map((f) => `${ansi(f.expression)} AS "${f.name}"`).join(', ');
      expect(await rows(connection, `SELECT ${list} FROM ${dataset.name} LIMIT 1`), dataset.name).toHaveLength(1);
    }
  });

  it('runs every metric expression as valid SQL with a non-null value', async () => {
    for (const metric of model.metrics ?? []) {
      const expression = ansi(metric.expression);
      const result = await rows(connection, `SELECT ${expression} AS value FROM ${metricFrom(model, expression)}`);
      expect(result[0].value, metric.name).not.toBeNull();
    }
    expect(await count(connection, 'SELECT SUM(CASE WHEN flights.delay > 0 THEN 1 ELSE 0 END) FROM flights')).toBe(1_342_676);
  });

  it('lists in each field enum exactly the values of its view, and sample values that occur', async () => {
    let checked = 0;
    for (const dataset of model.datasets) {
      for (const field of dataset.fields!) {
        const values = fieldValues(field);
        if (!values.enum && !values.sample_values) continue;
        const actual = await rows(connection, `SELECT DISTINCT CAST(${field.name} AS VARCHAR) AS v FROM ${dataset.name} WHERE ${field.name} IS NOT NULL`);
        const present = actual.map((r) => r.v as string);
        if (values.enum) expect([...values.enum].sort(), `${dataset.name}.${field.name}`).toEqual(present.sort());
        for (const sample of values.sample_values ?? []) expect(present, `${dataset.name}.${field.name}`).toContain(sample);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });
});

describe('TPC-DS model over generated data', () => {
  const model = onlyModel(TPCDS_MODEL);
  const dir = mkdtempSync(join(tmpdir(), 'cairn-tpcds-'));
  let files: string[];
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;

  beforeAll(async () => {
    const started = performance.now();
    ({ files } = await generateTpcdsData(join(dir, 'a'), { scale: 0.1 }));
    console.log(`generated TPC-DS scale 0.1 in ${Math.round(performance.now() - started)} ms`);
    instance = await DuckDBInstance.create(':memory:', { threads: '2' });
    connection = await instance.connect();
    await attachData(connection, Object.fromEntries(files.map((f) => [tableOf(f), f])));
    await createScope(connection, model);
  });
  afterAll(() => {
    connection?.closeSync();
    instance?.closeSync();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes one Parquet file per dataset of the model', () => {
    expect(model.datasets.map((d) => d.name).sort()).toEqual([...TPCDS_DATASETS].sort());
    expect(files).toEqual(TPCDS_DATASETS.map((name) => join(dir, 'a', `${name}.parquet`)));
  });

  it('has rows in every view, runs every field expression, and keys are unique', async () => {
    for (const dataset of model.datasets) {
      const total = await count(connection, `SELECT COUNT(*) FROM ${dataset.name}`);
      console.log(`${dataset.name}: ${total} rows`);
      expect(total, dataset.name).toBeGreaterThan(0);
      const list = dataset.fields!.map((f) => `${ansi(f.expression)} AS "${f.name}"`).join(', ');
      expect(await rows(connection, `SELECT ${list} FROM ${dataset.name} LIMIT 1`)).toHaveLength(1);
      for (const key of [dataset.primary_key ?? [], ...(dataset.unique_keys ?? [])].filter((k) => k.length)) {
        const distinct = await count(connection, `SELECT COUNT(*) FROM (SELECT DISTINCT ${key.join(', ')} FROM ${dataset.name})`);
        expect(distinct, `${dataset.name} key ${key}`).toBe(total);
      }
    }
  });

  it('joins every relationship, and every store_sales foreign key finds its dimension row', async () => {
    const sales = await count(connection, 'SELECT COUNT(*) FROM store_sales');
    for (const r of model.relationships ?? []) {
      const on = r.from_columns.map((c, i) => `${r.from}.${c} = ${r.to}.${r.to_columns[i]}`).join(' AND ');
      expect(await count(connection, `SELECT COUNT(*) FROM ${r.from} JOIN ${r.to} ON ${on}`), r.name).toBe(sales);
      expect(await count(connection, `SELECT COUNT(*) FROM ${r.from} ANTI JOIN ${r.to} ON ${on}`), r.name).toBe(0);
    }
  });

  it('runs every metric expression over the datasets it names', async () => {
    for (const metric of model.metrics ?? []) {
      const expression = ansi(metric.expression);
      const result = await rows(connection, `SELECT ${expression} AS value FROM ${metricFrom(model, expression)}`);
      expect(Number(result[0].value), metric.name).toBeGreaterThan(0);
    }
  });

  it('is deterministic and the CLI runs under Node and Bun', async () => {
    const again = await generateTpcdsData(join(dir, 'b'), { scale: 0.1 });
    const cli = join(here, 'generate-tpcds-cli.ts');
    const runtimes = [process.execPath, join(repo, 'node_modules/.bin/bun')].filter((r) => existsSync(r));
    const outputs = runtimes.map((runtime, i) => {
      const out = join(dir, `cli${i}`);
      const run = spawnSync(runtime, [cli, out, '--scale', '0.1'], { encoding: 'utf8' });
      expect(run.status, `${runtime}: ${run.stderr}`).toBe(0);
      return TPCDS_DATASETS.map((name) => readFileSync(join(out, `${name}.parquet`)));
    });
    const first = files.map((f) => readFileSync(f));
    for (const set of [again.files.map((f) => readFileSync(f)), ...outputs]) {
      set.forEach((bytes, i) => expect(bytes.equals(first[i]), TPCDS_DATASETS[i]).toBe(true));
    }
  });
});
