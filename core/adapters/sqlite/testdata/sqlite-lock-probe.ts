/**
 * Second-process helper of sqlite-busy.test.ts, run under Bun (bun:sqlite) or Node (node:sqlite):
 *   <runtime> sqlite-lock-probe.ts <db path> timeout     → prints {"engine", "busyTimeoutMs"} of a fresh connection
 *   <runtime> sqlite-lock-probe.ts <db path> hold <ms>   → takes the write lock (BEGIN IMMEDIATE, one insert),
 *                                                           prints "locked", commits after <ms>, prints {"committed": true}
 *   <runtime> sqlite-lock-probe.ts <db path> hold-until-told → as hold, but commits when a line arrives on stdin
 *   <runtime> sqlite-lock-probe.ts <db path> declare <collection> <keys JSON> <options JSON> → declares the index
 *                                                           through the document store, prints {"declared": true}
 * (Also used by index-cache.test.ts: an index declared by another process.)
 */
import { openSqliteDocumentStore } from '../sqlite-document-store.ts';
import { openSqlDriver } from '../sqlite-driver.ts';

const [path, mode, holdMs] = process.argv.slice(2);
const driver = await openSqlDriver(path);
if (mode === 'timeout') {
  const row = driver.prepare('PRAGMA busy_timeout').get();
  console.log(JSON.stringify({ engine: driver.engine, busyTimeoutMs: Number(Object.values(row ?? {})[0]) }));
} else if (mode === 'hold') {
  driver.exec('CREATE TABLE IF NOT EXISTS probe (id TEXT PRIMARY KEY)');
  driver.exec('BEGIN IMMEDIATE');
  driver.prepare('INSERT INTO probe (id) VALUES (?)').run('from-probe');
  console.log('locked');
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)));
  driver.exec('COMMIT');
  console.log(JSON.stringify({ committed: true }));
} else if (mode === 'hold-until-told') {
  driver.exec('CREATE TABLE IF NOT EXISTS probe (id TEXT PRIMARY KEY)');
  driver.exec('BEGIN IMMEDIATE');
  driver.prepare('INSERT INTO probe (id) VALUES (?)').run('from-probe');
  console.log('locked');
  await new Promise((resolve) => process.stdin.once('data', resolve));
  driver.exec('COMMIT');
  console.log(JSON.stringify({ committed: true }));
  process.stdin.destroy();
} else if (mode === 'declare') {
  const [collection, keys, options] = process.argv.slice(4);
  const store = await openSqliteDocumentStore({ path });
  await store.collection(collection).createIndex(JSON.parse(keys), JSON.parse(options));
  await store.close();
  console.log(JSON.stringify({ declared: true }));
} else {
  throw new Error(`unknown mode ${mode}: use timeout, hold <ms>, hold-until-told or declare`);
}
driver.close();
