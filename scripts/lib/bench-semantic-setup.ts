/**
 * What scripts/bench-semantic.ts measures against: the `orders` project (a generated table of 30,000 rows in
 * 10 regions, imported and published through the `cairn` command like any project) and the raw DuckDB
 * baseline, which holds every model's scoped rows (each dataset's view_query result) as tables in one
 * DuckDB file, opened read-only with the query processes' settings (threads 2, memory_limit 512MiB).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parse as parseYaml } from 'yaml';
import { cairn } from '../seed-demo.ts';

/** Rows of the generated `orders` table. */
export const orderRows = 30_000;

/** The view_query of the `orders` dataset: a computed amount and order date over the table. */
const ordersViewQuery = 'SELECT id, region, product, quantity, unit_price, quantity * unit_price AS amount, '
  + 'CAST(ordered_at AS DATE) AS order_date FROM data.orders';

/** The OSI model of the `orders` project (one dataset). */
const ordersModel = `version: "0.2.0.dev0"
semantic_model:
  - name: orders
    description: Generated orders (benchmark data), ${orderRows} rows in 10 regions.
    datasets:
      - name: orders
        source: data.orders
        custom_extensions:
          - vendor_name: COMMON
            data: '${JSON.stringify({ view_query: ordersViewQuery }).replace(/'/g, "''")}'
        fields:
          - name: region
            expression: { dialects: [ { dialect: ANSI_SQL, expression: region } ] }
          - name: amount
            expression: { dialects: [ { dialect: ANSI_SQL, expression: amount } ] }
`;

/** The generated rows: ids 1…30,000, regions region_0…region_9, prices and quantities from a hash of the id. */
const ordersSelect = `SELECT i AS id, 'region_' || (i % 10) AS region, 'product_' || (hash(i) % 50) AS product,
  CAST(1 + hash(i * 7) % 9 AS INTEGER) AS quantity, CAST((hash(i * 13) % 10000) / 100 AS DECIMAL(10, 2)) AS unit_price,
  TIMESTAMP '2025-01-01' + to_seconds(CAST(hash(i * 31) % 31536000 AS BIGINT)) AS ordered_at
  FROM range(1, ${orderRows + 1}) t(i)`;

/**
 * Imports and publishes the `orders` project through `url` and creates a token for its model.
 * @returns the token
 */
export async function seedOrdersProject(url: string, root: string, workDir: string): Promise<string> {
  const dir = join(workDir, 'orders-import');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'models'), { recursive: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'models', 'orders.yaml'), ordersModel);
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  await connection.run(`COPY (${ordersSelect}) TO '${join(dir, 'data', 'orders.parquet')}' (FORMAT parquet)`);
  connection.closeSync();
  db.closeSync();
  const options = { url, dataDir: workDir, root, log: () => {}, waitUntilUp: async () => {} };
  await cairn(options, ['semantic', 'import', dir, '--project', 'orders', '--publish']);
  const create = ['semantic', 'token', 'create', 'orders', '--models', 'orders', '--name', 'bench'];
  const token = await cairn(options, create);
  return token.trim();
}

/** A raw DuckDB connection whose search_path is one model's schema. */
export interface RawModel {
  run(sql: string, params?: string[]): Promise<unknown[][]>;
}

/** The raw baseline: one connection per model over the baseline file. */
export interface RawDuckDb {
  model(name: string): RawModel;
  close(): void;
}

/**
 * Builds `<workDir>/raw.duckdb`: schema `flights` with the flights model's datasets and schema `orders` with
 * the orders dataset, each `CREATE TABLE <dataset> AS <view_query>` over the same files the product serves;
 * then opens it read-only with threads 2 and memory_limit 512MiB.
 */
export async function openRawDuckDb(root: string, workDir: string): Promise<RawDuckDb> {
  const file = join(workDir, 'raw.duckdb');
  const vega = join(root, 'node_modules/vega-datasets/data');
  const builder = await DuckDBInstance.create(file);
  const build = await builder.connect();
  await build.run(`ATTACH ':memory:' AS data`);
  await build.run(`CREATE TABLE data.flights AS SELECT * FROM read_parquet('${vega}/flights-3m.parquet')`);
  await build.run(`CREATE TABLE data.airports AS SELECT * FROM read_csv_auto('${vega}/airports.csv')`);
  await build.run(`CREATE TABLE data.orders AS ${ordersSelect}`);
  await build.run('CREATE SCHEMA flights');
  for (const { name, sql } of flightsViews(root)) await build.run(`CREATE TABLE flights."${name}" AS ${sql}`);
  await build.run('CREATE SCHEMA orders');
  await build.run(`CREATE TABLE orders.orders AS ${ordersViewQuery}`);
  await build.run('DETACH data');
  await build.run('CHECKPOINT');
  build.closeSync();
  builder.closeSync();
  const db = await DuckDBInstance.create(file, { access_mode: 'READ_ONLY', threads: '2', memory_limit: '512MiB' });
  const connections: DuckDBConnection[] = [];
  const model = (name: string): RawModel => {
    let connection: Promise<DuckDBConnection> | undefined;
    const open = async () => {
      const opened = await db.connect();
      await opened.run(`SET search_path = '${name}'`);
      connections.push(opened);
      return opened;
    };
    return {
      async run(sql, params = []) {
        connection ??= open();
        const prepared = await (await connection).prepare(sql);
        params.forEach((p, i) => prepared.bindVarchar(i + 1, p));
        const rows = (await prepared.runAndReadAll()).getRows();
        prepared.destroySync();
        return rows;
      },
    };
  };
  return { model, close: () => { connections.forEach((c) => c.closeSync()); db.closeSync(); } };
}

/** The flights model's datasets and view_queries, read from scripts/demo/flights/models/flights.yaml. */
function flightsViews(root: string): { name: string; sql: string }[] {
  const doc = parseYaml(readFileSync(join(root, 'scripts/demo/flights/models/flights.yaml'), 'utf8'));
  type Dataset = { name: string; custom_extensions: { vendor_name: string; data: string }[] };
  return doc.semantic_model[0].datasets.map((ds: Dataset) => {
    const common = ds.custom_extensions.find((e) => e.vendor_name === 'COMMON')!;
    return { name: ds.name, sql: JSON.parse(common.data).view_query as string };
  });
}
