/**
 * Second-process helper of sqlite-busy.test.ts, run under Bun (bun:sqlite) or Node (node:sqlite):
 *   <runtime> sqlite-lock-probe.ts <db path> timeout     → prints {"engine", "busyTimeoutMs"} of a fresh connection
 *   <runtime> sqlite-lock-probe.ts <db path> hold <ms>   → takes the write lock (BEGIN IMMEDIATE, one insert),
 *                                                           prints "locked", commits after <ms>, prints {"committed": true}
 *   <runtime> sqlite-lock-probe.ts <db path> hold-until-told → as hold, but commits when a line arrives on stdin
 */
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
} else {
  throw new Error(`unknown mode ${mode}: use timeout or hold <ms>`);
}
driver.close();
