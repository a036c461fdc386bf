/**
 * SQLite document store calls: the fixed cost of one call of the embedded store (core/adapters/sqlite/), before and
 * after the cuts of docs/decisions.md D24 § 3, side by side in one run. The baseline adapter is the folder at
 * `--baseline` (default: the revision before the cuts), extracted from git into a temporary folder whose imports
 * outside the folder point back at this checkout; both adapters open a real SQLite file each, seeded alike (1,000
 * documents with a Date, an index on `key`, a unique index on `slug`), and run the same calls in alternating rounds.
 * Figures: per-call microseconds (the median call of all rounds; rounds alternate the two adapters, so a busy machine
 * slows both alike) of a findOne by _id, a find by
 * the indexed field (5 documents), an insertOne and an updateOne by _id; each alone and "shared", where a second
 * connection to the file commits a write before every call (the API, the dispatcher and semantic-mcp share one file).
 * Then what the parts of a call cost on their own (a prepare, the statement cache's look-up, the pragmas, the query).
 * Run: `node scripts/bench-sqlite-calls.ts [--calls N per round (default 200)] [--rounds N (default 20)]
 * [--baseline REV]`.
 *
 * Source: docs/decisions.md D24 § 3; docs/architecture.md § Document store.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { DocumentStore } from '../core/ports/document-store.ts';
import { openSqliteDocumentStore } from '../core/adapters/sqlite/index.ts';
import { openSqlDriver } from '../core/adapters/sqlite/sqlite-driver.ts';
import { anyShape, type AnyShapeCollection } from '../core/testing/any-shape.ts';
import { fmt, ratio, stats } from './lib/bench-stats.ts';

/** The revision before the cuts of docs/decisions.md D24 § 3 (the adapter as it was measured first). */
const BASELINE_REVISION = 'fcb5295dc8750c0f08b5b9d73c6a5d6c6ec07975';
const root = resolve(import.meta.dirname, '..');
const option = (name: string, fallback: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] !== undefined ? process.argv[at + 1] : fallback;
};
const calls = Number(option('--calls', '200'));
const rounds = Number(option('--rounds', '20'));
const baseline = option('--baseline', BASELINE_REVISION);

type Open = typeof openSqliteDocumentStore;
interface Item { _id: string; key: string; slug: string; n: number; at: Date; text: string }
/** One adapter under test: its store, its items and a second connection to the same file. */
interface Subject { store: DocumentStore; items: AnyShapeCollection<Item>; other: DocumentStore; inserted: number }

/**
 * Writes the adapter folder of `revision` into `into`/sqlite, its `../` imports made absolute (into this checkout),
 * with this checkout's node_modules beside it. @returns the baseline's openSqliteDocumentStore
 */
async function extractBaseline(revision: string, into: string): Promise<Open> {
  const folder = 'core/adapters/sqlite';
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  const names = git('ls-tree', '--name-only', `${revision}:${folder}`).split('\n')
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'));
  mkdirSync(join(into, 'sqlite'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(into, 'node_modules'));
  for (const name of names) {
    const text = git('show', `${revision}:${folder}/${name}`).replace(
      /from '(\.\.\/[^']+)'/g,
      (_, path: string) => `from '${resolve(root, folder, path)}'`,
    );
    writeFileSync(join(into, 'sqlite', name), text);
  }
  return (await import(join(into, 'sqlite', 'sqlite-document-store.ts'))).openSqliteDocumentStore as Open;
}

/** Opens `open`'s store on a fresh file in `dir`, seeded with 1,000 items, and a second connection to it. */
async function subject(open: Open, dir: string): Promise<Subject> {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'docdb.sqlite');
  const store = await open({ path });
  const items = anyShape(store.collection<Item>('items'));
  await items.createIndex({ key: 1 });
  await items.createIndex({ slug: 1 }, { unique: true });
  const at = new Date('2026-01-01T00:00:00Z');
  for (let i = 0; i < 1000; i += 1) {
    await items.insertOne({ _id: `d${i}`, key: `k${i % 200}`, slug: `s${i}`, n: i, at, text: 'x'.repeat(200) });
  }
  return { store, items, other: await open({ path }), inserted: 0 };
}

/** The calls measured, by name: call `i` of a round. */
const operations: Record<string, (s: Subject, i: number) => Promise<unknown>> = {
  'findOne by _id': (s, i) => s.items.findOne({ _id: `d${(i * 7) % 1000}` }),
  'find by indexed key (5)': (s, i) => s.items.find({ key: `k${i % 200}` }),
  'insertOne': (s) => {
    const n = (s.inserted += 1);
    return s.items.insertOne({ _id: `new${n}`, key: 'new', slug: `new${n}`, n, at: new Date(), text: 'y' });
  },
  'updateOne by _id': (s, i) => s.items.updateOne({ _id: `d${(i * 13) % 1000}` }, { $set: { n: i } }),
};

/** Microseconds of each of `calls` calls of `op` on `s`; `shared`: another connection commits before each. */
async function measure(s: Subject, op: (s: Subject, i: number) => Promise<unknown>, shared: boolean): Promise<number[]> {
  const others = anyShape(s.other.collection<{ _id: string; n: number }>('others'));
  const spent: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    if (shared) await others.updateOne({ _id: 'tick' }, { $set: { n: i } }, { upsert: true });
    const t0 = performance.now();
    await op(s, i);
    spent.push((performance.now() - t0) * 1000);
  }
  return spent;
}

/** Microseconds per run of `fn`: the best of 5 batches of 5,000 runs (a busy machine only adds), after a warm-up. */
function perRun(fn: (i: number) => unknown): number {
  for (let i = 0; i < 1000; i += 1) fn(i);
  let best = Number.POSITIVE_INFINITY;
  for (let batch = 0; batch < 5; batch += 1) {
    const t0 = performance.now();
    for (let i = 0; i < 5000; i += 1) fn(i);
    best = Math.min(best, ((performance.now() - t0) * 1000) / 5000);
  }
  return best;
}

/** The parts of a call on the file at `path`, in microseconds each, printed as lines. */
async function parts(path: string): Promise<string[]> {
  const raw = new DatabaseSync(path);
  const driver = await openSqlDriver(path);
  const byId = 'SELECT doc FROM "c_items" WHERE _id = ? ORDER BY rowid';
  const withGeneration = 'SELECT doc, (SELECT count(*) FROM _indexes) AS g FROM "c_items" WHERE _id = ? ORDER BY rowid';
  const dataVersion = raw.prepare('PRAGMA data_version');
  const [toZero, back] = [raw.prepare('PRAGMA busy_timeout = 0'), raw.prepare('PRAGMA busy_timeout = 5000')];
  const select = raw.prepare(byId);
  const selectG = raw.prepare(withGeneration);
  const text = String(select.get('d1')?.doc);
  const figures: Array<[string, number]> = [
    ['prepare of the findOne SQL (no cache)', perRun(() => raw.prepare(byId))],
    ['statement cache look-up (driver.prepare)', perRun(() => driver.prepare(byId))],
    ['PRAGMA data_version (prepared)', perRun(() => dataVersion.get())],
    ['PRAGMA busy_timeout 0 then 5000 (prepared)', perRun(() => (toZero.get(), back.get()))],
    ['the query: SELECT doc by _id (prepared)', perRun((i) => select.get(`d${i % 1000}`))],
    ['the query with the index generation', perRun((i) => selectG.get(`d${i % 1000}`))],
    ['JSON.parse of the document', perRun(() => JSON.parse(text))],
  ];
  driver.close();
  raw.close();
  return figures.map(([label, us]) => `  ${label.padEnd(46)}${fmt(us)} µs`);
}

const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-sqlite-calls-'));
try {
  const openBaseline = await extractBaseline(baseline, join(dir, 'baseline'));
  const old = await subject(openBaseline, join(dir, 'old'));
  const cut = await subject(openSqliteDocumentStore, join(dir, 'new'));
  console.log(`SQLite document store calls: ${calls} calls × ${rounds} rounds; baseline ${baseline.slice(0, 7)}`);
  const heads = `${'before µs'.padStart(10)}${'after µs'.padStart(10)}${'after/before'.padStart(13)}`;
  console.log(`${'call'.padEnd(36)}${heads}`);
  for (const shared of [false, true]) {
    for (const [name, op] of Object.entries(operations)) {
      const figures: { old: number[]; cut: number[] } = { old: [], cut: [] };
      for (let round = 0; round < rounds; round += 1) {
        figures.old.push(...await measure(old, op, shared));
        figures.cut.push(...await measure(cut, op, shared));
      }
      const [a, b] = [stats(figures.old).median, stats(figures.cut).median];
      const label = `${name}${shared ? ' (shared)' : ''}`;
      console.log(`${label.padEnd(36)}  ${fmt(a)}  ${fmt(b)}      ${ratio(b, a)}`);
    }
  }
  console.log('The parts of a call (µs each, node:sqlite on the same file):');
  for (const line of await parts(join(dir, 'new', 'docdb.sqlite'))) console.log(line);
  for (const s of [old, cut]) {
    await s.store.close();
    await s.other.close();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
