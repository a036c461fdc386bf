/**
 * Streams benchmark: what open AG-UI chats cost the document store, and how soon a checkpoint reaches a stream.
 * Runs in one process over the real parts a deployment uses: a SQLite document store file opened twice (the
 * dispatcher's connection writes, the API's reads through a wrapper counting its reads), a redis-server started on
 * a loopback port (the dispatcher's connection publishes, the API's subscribes), and the API's stream code
 * (`streamRun`, core/connection/agui-stream.ts); the first chat's events go to a client over HTTP (server-sent events on a
 * loopback socket, as the API sends them), the other chats' stay in process. Two readers, side by side:
 * - baseline: the reader as it was (no notifications: the turn, the thread and the children read every 100 ms);
 * - notified: the reader waiting on change notifications (core/session/change-watch.ts, safety read every 5 s).
 * Figures: document-store reads per second of `--chats` open idle chats (each with a running turn that writes
 * nothing) over `--seconds`; then the time from the start of a checkpoint's write (dispatcher) to the client's
 * TEXT_MESSAGE_START of that message (p50, p95) over `--checkpoints` checkpoints of one chat while the others stay
 * open, and the reads that cost. Targets (printed, not asserted): at most 1 read per second for 100 idle chats in
 * all; checkpoint to event ≤ 50 ms p50.
 * Options: --chats N (default 100), --seconds N (idle window per reader, default 12), --checkpoints N (default 40).
 *
 * Source: spec/platform-service.md § AG-UI request (rule 3); docs/architecture.md § Life of a turn (4).
 */
import type { BaseEvent } from '@ag-ui/core';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRedisTextDeltas, openRedis } from '../core/adapters/redis/index.ts';
import { cryptoIds, systemClock } from '../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../core/adapters/sqlite/index.ts';
import { streamRun, type AguiStreamDeps } from '../core/connection/agui-stream.ts';
import { createChangeWatch } from '../core/session/change-watch.ts';
import type { SessionRecord, TurnRecord } from '../core/session/model.ts';
import { claimTurn, insertSession, insertTurn, sessionsOf } from '../core/session/session-store.ts';
import { applyCheckpoint } from '../core/session/session-checkpoint.ts';
import { ensureSessionIndexes } from '../core/session/session-indexes.ts';
import { countingDocumentStore } from '../core/testing/counting-document-store.ts';
import { createMemoryObjectStore } from '../core/testing/memory-object-store.ts';
import { startRedis } from '../test/helpers/redis-server.ts';
import { fmt, ratio, stats } from './lib/bench-stats.ts';

const option = (name: string, fallback: number) => {
  const at = process.argv.indexOf(name);
  const value = at >= 0 ? Number(process.argv[at + 1]) : Number.NaN;
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const chats = option('--chats', 100);
const seconds = option('--seconds', 12);
const checkpoints = option('--checkpoints', 40);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One open chat: its session and running turn. */
interface Chat { session: SessionRecord; turn: TurnRecord }

/** What one reader cost. */
interface ReaderFigures {
  idleReadsPerSecond: number; p50: number; p95: number; readsPerCheckpoint: number; missed: number;
}

const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-streams-'));
const redis = await startRedis();
const path = join(dir, 'documents.sqlite');
const writer = await openSqliteDocumentStore({ path });
const reader = countingDocumentStore(await openSqliteDocumentStore({ path }));
const objects = createMemoryObjectStore();
const dispatcherStore = { docs: writer, objects, clock: systemClock, ids: cryptoIds };
const dispatcherRedis = await openRedis(redis.url);
const apiRedis = await openRedis(redis.url);
const dispatcherHub = createRedisTextDeltas(dispatcherRedis);
const apiHub = createRedisTextDeltas(apiRedis);
/** The stream the HTTP client reads: `GET /` streams `served.run` with `served.deps` as server-sent events. */
let served: { deps: AguiStreamDeps; run: Parameters<typeof streamRun>[1] } | undefined;
const sse = createServer((request, response) => {
  const abort = new AbortController();
  request.on('close', () => abort.abort());
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const emit = (event: BaseEvent) => { response.write(`data: ${JSON.stringify(event)}\n\n`); };
  void streamRun(served!.deps, served!.run, emit, abort.signal).finally(() => response.end());
});
await new Promise<void>((resolve) => sse.listen(0, '127.0.0.1', resolve));
const sseUrl = `http://127.0.0.1:${(sse.address() as AddressInfo).port}/`;

try {
  await ensureSessionIndexes(writer);
  const open: Chat[] = [];
  for (let i = 0; i < chats; i += 1) {
    const session = await insertSession(dispatcherStore, {
      orgId: 'bench', agentId: 'bench', environment: 'main', workflow: 'chat', buildId: 'b', commitId: 'c',
      state: 'talk', variables: {}, lockedVariables: [], trigger: 'chat', depth: 0, inheritedForbid: [],
    });
    const queued = await insertTurn(dispatcherStore, session, { kind: 'prompt', input: { message: 'Hello?' } });
    const turn = await claimTurn(dispatcherStore, queued._id, 'bench-dispatcher');
    if (!turn) throw new Error('the bench could not claim its own turn');
    open.push({ session, turn });
  }
  console.log(`bench-streams: ${chats} open chats (running turns that write nothing), SQLite ${path}`);
  console.log(`redis ${redis.url}`);
  console.log(`idle window ${seconds} s per reader, ${checkpoints} checkpoints of one chat; load ${loadAverage()}`);
  const baseline = await measure(open, { docs: reader, sleep, pollMs: 100, now: () => Date.now() });
  const watch = createChangeWatch({ docs: reader, changes: apiHub });
  const notified = await measure(open, { docs: reader, sleep, watch, now: () => Date.now() }, true);
  watch.close();
  const rows: [string, number, number, string][] = [
    [`idle reads/s, ${chats} chats in all`, baseline.idleReadsPerSecond, notified.idleReadsPerSecond, '≤ 1'],
    ['checkpoint → event p50 (ms)', baseline.p50, notified.p50, '≤ 50'],
    ['checkpoint → event p95 (ms)', baseline.p95, notified.p95, ''],
    ['reads per checkpoint, all chats', baseline.readsPerCheckpoint, notified.readsPerCheckpoint, ''],
  ];
  console.log('');
  const head = ['baseline', 'notified'].map((h) => h.padStart(8)).join(' ');
  console.log(`${'figure'.padEnd(36)} ${head} ${'ratio'.padStart(7)}  target`);
  for (const [label, before, after, target] of rows) {
    const times = after > 0 ? ratio(before, after) : '      –';
    console.log(`${label.padEnd(36)} ${fmt(before)} ${fmt(after)} ${times}  ${target}`);
  }
  const met = notified.idleReadsPerSecond <= 1 && notified.p50 <= 50;
  console.log(`\ntargets ${met ? 'met' : 'NOT met'}: idle ${notified.idleReadsPerSecond.toFixed(2)} reads/s (≤ 1), `
    + `p50 ${notified.p50.toFixed(2)} ms (≤ 50); baseline reader: ${baseline.idleReadsPerSecond.toFixed(0)} reads/s`);
  if (baseline.missed + notified.missed > 0) {
    console.log(`events never seen within 2 s: baseline ${baseline.missed}, notified ${notified.missed}`);
  }
} catch (error) {
  console.error(`bench-streams FAILED: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  sse.close();
  dispatcherHub.close();
  apiHub.close();
  dispatcherRedis.disconnect();
  apiRedis.disconnect();
  await writer.close();
  await reader.close();
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Opens a stream of every chat with `deps`, counts the reads of the idle window, then times checkpoints of the
 * first chat (the dispatcher writes, then publishes when `publish`), and closes the streams.
 */
async function measure(open: Chat[], deps: AguiStreamDeps, publish = false): Promise<ReaderFigures> {
  const controller = new AbortController();
  const waiters = new Map<string, () => void>();
  const streams: Promise<void>[] = [];
  for (const [i, chat] of open.entries()) {
    const session = (await sessionsOf(dispatcherStore).findOne({ _id: chat.session._id }))!;
    const run = {
      threadId: session._id, runId: `bench-${i}`, session, turnId: chat.turn._id, fromSeq: session.messageCount,
      openChildren: [], since: session.createdAt,
    };
    if (i === 0) {
      served = { deps, run };
      streams.push(readOverHttp(waiters, controller.signal));
    } else streams.push(streamRun(deps, run, () => undefined, controller.signal));
  }
  await sleep(1_000);
  reader.reset();
  await sleep(seconds * 1_000);
  const idleReadsPerSecond = reader.reads() / seconds;
  const latencies: number[] = [];
  let missed = 0;
  reader.reset();
  const first = open[0];
  for (let k = 0; k < checkpoints; k += 1) {
    const session = (await sessionsOf(dispatcherStore).findOne({ _id: first.session._id }))!;
    const messageId = `${session._id}:${session.messageCount}`;
    const seen = new Promise<number>((resolve) => waiters.set(messageId, () => resolve(performance.now())));
    const started = performance.now();
    await applyCheckpoint(dispatcherStore, first.turn, { messages: [{ role: 'assistant', content: `Step ${k}.` }] });
    if (publish) dispatcherHub.changed(session._id);
    const at = await Promise.race([seen, sleep(2_000).then(() => undefined)]);
    waiters.delete(messageId);
    if (at === undefined) missed += 1;
    else latencies.push(at - started);
    await sleep(20 + Math.random() * 100);
  }
  const readsPerCheckpoint = reader.reads() / checkpoints;
  controller.abort();
  await Promise.all(streams);
  const { median, p95 } = stats(latencies);
  return { idleReadsPerSecond, p50: median, p95, readsPerCheckpoint, missed };
}

/** The HTTP client of the first chat: calls the waiter of each message whose TEXT_MESSAGE_START arrives. */
async function readOverHttp(waiters: Map<string, () => void>, signal: AbortSignal): Promise<void> {
  const response = await fetch(sseUrl, { signal });
  const body = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  try {
    for (;;) {
      const { value, done } = await body.read();
      if (done) return;
      buffered += decoder.decode(value, { stream: true });
      let end = buffered.indexOf('\n\n');
      while (end >= 0) {
        const event = JSON.parse(buffered.slice(0, end).replace(/^data: /, '')) as { type: string; messageId?: string };
        buffered = buffered.slice(end + 2);
        if (event.type === 'TEXT_MESSAGE_START' && event.messageId) waiters.get(event.messageId)?.();
        end = buffered.indexOf('\n\n');
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    return 'unknown';
  }
}
