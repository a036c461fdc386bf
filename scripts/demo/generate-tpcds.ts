/**
 * Deterministic synthetic data for the TPC-DS example model (scripts/demo/tpcds/models/tpcds_retail_model.yaml):
 * one Parquet file per dataset (store_sales, date_dim, customer, item, store), holding every column the
 * model's fields, keys and relationships reference. Values come from DuckDB SQL only (range() plus
 * hash()-based pseudo-random choices), so equal scales give equal rows. No TPC-DS kit is needed.
 *
 * Runs on Node 24 and Bun: depends on @duckdb/node-api, node:fs and node:path only.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteLiteral } from '../../core/ports/sql-text.ts';

/** Options of {@link generateTpcdsData}. */
export interface GenerateTpcdsOptions {
  /** Size factor; 1 (default) gives about 100,000 store_sales rows. Must be > 0. */
  scale?: number;
}

/** Datasets of the model, in the order files are written and returned. */
export const TPCDS_DATASETS = ['store_sales', 'date_dim', 'customer', 'item', 'store'] as const;

/** Julian day number of 1998-01-01, TPC-DS's d_date_sk of that day. */
const FIRST_DATE_SK = 2450815;

/** Row counts derived from the scale (store_sales is ~8 lines per ticket). */
interface Sizes {
  items: number;
  customers: number;
  stores: number;
  tickets: number;
}

function sizesFor(scale: number): Sizes {
  return {
    items: Math.max(400, Math.round(2000 * scale)),
    customers: Math.max(200, Math.round(10000 * scale)),
    stores: Math.max(4, Math.round(12 * scale)),
    tickets: Math.max(50, Math.round(12500 * scale)),
  };
}

/** SQL list literal of strings. */
function list(values: readonly string[]): string {
  return `[${values.map(quoteLiteral).join(', ')}]`;
}

/** Pseudo-random 1-based pick from a list literal, keyed by `key` and a salt. */
function pick(values: readonly string[], key: string, salt: string): string {
  return `${list(values)}[1 + (hash(${key}, '${salt}') % ${values.length})::INTEGER]`;
}

/** TPC-DS style 16-letter business key: 'AAAAAAAA' then the hex digits of `sk` as letters A–P. */
function businessKey(sk: string): string {
  return `'AAAAAAAA' || translate(lpad(printf('%x', ${sk}), 8, '0'), '0123456789abcdef', 'ABCDEFGHIJKLMNOP')`;
}

const CATEGORIES = ['Books', 'Children', 'Electronics', 'Home', 'Jewelry', 'Men', 'Music', 'Shoes', 'Sports', 'Women'];
const BRAND_STEMS = ['amalg', 'edu pack', 'exporti', 'import', 'scholar', 'univ', 'maxi', 'corp', 'brand', 'nameless'];
const BRAND_SUFFIXES = ['maxi', 'scholar', 'univ', 'amalg', 'brand', 'corp', 'importo', 'exporti', 'edu pack', 'nameless'];
const ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Durable', 'Elegant', 'Essential', 'Lightweight', 'Premium', 'Rustic', 'Vintage'];
const NOUNS_BY_CATEGORY = [
  ['novel', 'cookbook', 'atlas', 'biography', 'poetry collection'],
  ['puzzle', 'toy truck', 'picture book', 'plush bear', 'romper'],
  ['headphones', 'camera', 'tablet', 'speaker', 'television'],
  ['lamp', 'rug', 'cushion', 'kettle', 'curtain'],
  ['necklace', 'bracelet', 'ring', 'watch', 'earrings'],
  ['shirt', 'jacket', 'trousers', 'sweater', 'tie'],
  ['vinyl record', 'CD box set', 'songbook', 'guitar strings', 'concert DVD'],
  ['sneakers', 'boots', 'sandals', 'loafers', 'slippers'],
  ['tennis racket', 'football', 'yoga mat', 'bicycle helmet', 'fishing rod'],
  ['dress', 'blouse', 'skirt', 'coat', 'scarf'],
];
const FIRST_NAMES = [
  'James', 'Mary', 'John', 'Patricia', 'Robert', 'Jennifer', 'Michael', 'Linda', 'William', 'Elizabeth',
  'David', 'Barbara', 'Richard', 'Susan', 'Joseph', 'Jessica', 'Thomas', 'Sarah', 'Charles', 'Karen',
  'Javier', 'Maria', 'Wei', 'Aisha', 'Kenji', 'Olga', 'Pierre', 'Fatima', 'Luca', 'Ingrid',
];
const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin',
  'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Lewis', 'Robinson', 'Walker',
];
const EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org', 'mail.example.com'];
const BIRTH_COUNTRIES = [
  'UNITED STATES', 'UNITED STATES', 'UNITED STATES', 'MEXICO', 'CANADA', 'GERMANY', 'CHINA', 'INDIA',
  'PHILIPPINES', 'BRAZIL', 'UNITED KINGDOM', 'FRANCE', 'JAPAN', 'NIGERIA', 'CHILE', 'POLAND',
];
const STORE_NAMES = ['able', 'ation', 'bar', 'ese', 'ought', 'eing', 'anti', 'cally', 'n st', 'pri'];
const STORE_TOWNS: readonly (readonly [string, string])[] = [
  ['Midway', 'TN'], ['Fairview', 'TN'], ['Oak Grove', 'GA'], ['Five Points', 'AL'], ['Pleasant Hill', 'CA'],
  ['Riverside', 'CA'], ['Greenville', 'SC'], ['Springfield', 'IL'], ['Franklin', 'TX'], ['Clinton', 'IA'],
  ['Georgetown', 'KY'], ['Salem', 'OR'], ['Madison', 'WI'], ['Marion', 'OH'], ['Ashland', 'VA'], ['Jackson', 'MS'],
];

function dateDimSql(): string {
  return `
    SELECT (${FIRST_DATE_SK} + (d - DATE '1998-01-01'))::INTEGER AS d_date_sk,
           d::DATE AS d_date,
           year(d)::INTEGER AS d_year,
           year(d) || 'Q' || quarter(d) AS d_quarter_name,
           monthname(d) AS d_month_name
    FROM (SELECT unnest(generate_series(DATE '1998-01-01', DATE '2003-12-31', INTERVAL 1 DAY))::DATE AS d)
    ORDER BY d_date_sk`;
}

function itemSql(s: Sizes): string {
  const cat = `(hash(i, 'category') % ${CATEGORIES.length})::INTEGER`;
  const nouns = `[${NOUNS_BY_CATEGORY.map(list).join(', ')}]`;
  return `
    SELECT i::INTEGER AS i_item_sk,
           ${businessKey('i')} AS i_item_id,
           ${pick(ADJECTIVES, 'i', 'adjective')} || ' ' || ${nouns}[1 + ${cat}][1 + (hash(i, 'noun') % 5)::INTEGER]
             || ', model ' || (100 + hash(i, 'model') % 900) AS i_item_desc,
           ${list(BRAND_STEMS)}[1 + (hash(i, 'brand') % ${BRAND_STEMS.length})::INTEGER]
             || ${list(BRAND_SUFFIXES)}[1 + ${cat}] || ' #' || (1 + hash(i, 'brand_no') % 8) AS i_brand,
           ${list(CATEGORIES)}[1 + ${cat}] AS i_category,
           round(exp(ln(100) * (hash(i, 'price') % 1000) / 1000.0), 2)::DECIMAL(7,2) AS i_current_price
    FROM range(1, ${s.items + 1}) r(i)
    ORDER BY i_item_sk`;
}

function customerSql(s: Sizes): string {
  return `
    SELECT c AS c_customer_sk, c_customer_id, c_first_name, c_last_name,
           c_first_name || '.' || c_last_name || '@' || ${pick(EMAIL_DOMAINS, 'c', 'domain')} AS c_email_address,
           (1924 + hash(c, 'birth_year') % 69)::INTEGER AS c_birth_year,
           ${pick(BIRTH_COUNTRIES, 'c', 'birth_country')} AS c_birth_country
    FROM (SELECT i::INTEGER AS c, ${businessKey('i')} AS c_customer_id,
                 ${pick(FIRST_NAMES, 'i', 'first_name')} AS c_first_name,
                 ${pick(LAST_NAMES, 'i', 'last_name')} AS c_last_name
          FROM range(1, ${s.customers + 1}) r(i))
    ORDER BY c_customer_sk`;
}

function storeSql(s: Sizes): string {
  // Step 7 is coprime with the 16 towns: the first 16 stores get distinct towns, in a scattered order.
  const town = `(((i - 1) * 7) % ${STORE_TOWNS.length})::INTEGER`;
  return `
    SELECT i::INTEGER AS s_store_sk,
           ${businessKey('i')} AS s_store_id,
           ${list(STORE_NAMES)}[1 + ((i - 1) % ${STORE_NAMES.length})::INTEGER] AS s_store_name,
           ${list(STORE_TOWNS.map((t) => t[0]))}[1 + ${town}] AS s_city,
           ${list(STORE_TOWNS.map((t) => t[1]))}[1 + ${town}] AS s_state,
           (200 + hash(i, 'employees') % 101)::INTEGER AS s_number_employees
    FROM range(1, ${s.stores + 1}) r(i)
    ORDER BY s_store_sk`;
}

/**
 * Tickets (one customer, store and day each) of 1–15 lines with distinct items; a fifth of the
 * tickets fall in November–December of their year. Prices derive from the item's current price.
 * Reads table `item` (for prices) on the generating connection.
 */
function storeSalesSql(s: Sizes): string {
  return `
    WITH tickets AS (
      SELECT t,
             1 + hash(t, 'lines') % 15 AS lines,
             1 + hash(t, 'customer') % ${s.customers} AS customer_sk,
             1 + hash(t, 'store') % ${s.stores} AS store_sk,
             hash(t, 'item') % ${s.items} AS first_item,
             DATE '1998-01-01' + (hash(t, 'day') % 2191)::INTEGER AS day0,
             hash(t, 'season') % 5 = 0 AS holiday
      FROM range(1, ${s.tickets + 1}) r(t)
    ), lines AS (
      SELECT t, unnest(range(0, lines::BIGINT)) AS line, customer_sk, store_sk, first_item,
             CASE WHEN holiday
                  THEN make_date(year(day0), 11 + (hash(t, 'month') % 2)::INTEGER, 1 + (hash(t, 'dom') % 30)::INTEGER)
                  ELSE day0 END AS sold
      FROM tickets
    ), priced AS (
      SELECT l.*, 1 + (first_item + line * 37) % ${s.items} AS item_sk,
             (1 + hash(t, line, 'quantity') % 100)::INTEGER AS quantity,
             i.i_current_price * (50 + hash(t, line, 'discount') % 51) / 100 AS sales_price,
             i.i_current_price * (35 + hash(t, line, 'cost') % 41) / 100 AS wholesale_cost
      FROM lines l JOIN item i ON i.i_item_sk = 1 + (l.first_item + l.line * 37) % ${s.items}
    )
    SELECT (${FIRST_DATE_SK} + (sold - DATE '1998-01-01'))::INTEGER AS ss_sold_date_sk,
           item_sk::INTEGER AS ss_item_sk,
           customer_sk::INTEGER AS ss_customer_sk,
           store_sk::INTEGER AS ss_store_sk,
           t::INTEGER AS ss_ticket_number,
           quantity AS ss_quantity,
           round(sales_price, 2)::DECIMAL(7,2) AS ss_sales_price,
           (quantity * round(sales_price, 2))::DECIMAL(7,2) AS ss_ext_sales_price,
           (quantity * (round(sales_price, 2) - round(wholesale_cost, 2)))::DECIMAL(7,2) AS ss_net_profit
    FROM priced
    ORDER BY ss_ticket_number, ss_item_sk`;
}

/**
 * Writes `<outDir>/<dataset>.parquet` for every dataset of the TPC-DS example model.
 * @returns absolute paths of the files, in {@link TPCDS_DATASETS} order
 * @throws RangeError when `scale` is not a positive finite number
 */
export async function generateTpcdsData(outDir: string, options: GenerateTpcdsOptions = {}): Promise<{ files: string[] }> {
  const scale = options.scale ?? 1;
  if (!Number.isFinite(scale) || scale <= 0) throw new RangeError(`scale must be a positive number, got ${scale}`);
  const sizes = sizesFor(scale);
  const dir = resolve(outDir);
  mkdirSync(dir, { recursive: true });
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    const tables: Record<(typeof TPCDS_DATASETS)[number], string> = {
      date_dim: dateDimSql(),
      item: itemSql(sizes),
      customer: customerSql(sizes),
      store: storeSql(sizes),
      store_sales: storeSalesSql(sizes),
    };
    for (const name of ['date_dim', 'item', 'customer', 'store', 'store_sales'] as const) {
      await connection.run(`CREATE TABLE ${name} AS ${tables[name]}`);
    }
    const files: string[] = [];
    for (const name of TPCDS_DATASETS) {
      const file = resolve(dir, `${name}.parquet`);
      await connection.run(`COPY (FROM ${name}) TO ${quoteLiteral(file)} (FORMAT parquet, COMPRESSION zstd)`);
      files.push(file);
    }
    return { files };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
