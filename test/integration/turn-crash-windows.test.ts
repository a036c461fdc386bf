/**
 * Every use case that moves a session to `running` survives a process dying between any two of its writes: a
 * DocumentStore and a JobQueue wrapper (ports) stand for a process that dies right after its k-th write (every
 * later call of it fails), over a real SQLite file and a real redis-server with BullMQ. A fresh stack's turn sweep
 * then completes the use case, and a dispatcher (the claim, the store host and the turn engine in-process, jobs from
 * the real queue) runs the turn to its settle. A queue store that refuses the add undoes the use case instead.
 *
 * Source: docs/architecture.md § Life of a turn; spec/platform-service.md § Replacement of a container.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBullJobQueue, openRedis, type RedisConnection } from '../../core/adapters/redis/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { enqueueTurnJob, ensureTurnJob, TURN_QUEUE } from '../../core/session/turn-jobs.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { ModelEvent, ModelProvider } from '../../core/ports/model-provider.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { FiringTarget } from '../../core/session/firings.ts';
import { openFiredSession } from '../../core/session/session-opening.ts';
import type { SessionRecord, SessionStatus } from '../../core/session/model.ts';
import { sweepDueWaits } from '../../core/session/park-sweep.ts';
import { runTurn } from '../../core/session/run-turn.ts';
import { claimTurn, sessionsOf, turnsOf, type SessionStoreDeps } from '../../core/session/session-store.ts';
import { decideSession, replySession } from '../../core/session/sessions.ts';
import { startSession } from '../../core/session/session-start.ts';
import type { SessionDeps } from '../../core/session/session-access.ts';
import { createStoreHost } from '../../core/session/store-host.ts';
import { recoverTurns } from '../../core/session/turn-recovery.ts';
import type { StateView, WorkflowView } from '../../core/session/workflow-view.ts';
import { eventually } from '../../core/testing/job-queue.contract.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

const state = (slug: string, fields: Partial<StateView> = {}): StateView => ({
  slug, type: 'agent', transitions: [], tools: { allow: [], forbid: [] }, requires: [], budget: {}, before: [],
  after: [], triggers: [], ...fields,
});
const desk: WorkflowView = {
  slug: 'desk', agentPrompt: 'You are a test agent.', disabled: false, promptCache: false, skills: [],
  limits: { childDepth: 2, childConcurrency: 2, turnSeconds: 60, modelCallsPerTurn: 20 },
  tools: { allowAlways: [], forbidAlways: [] }, callable: {},
  states: {
    answer: state('answer', { triggers: ['manual', 'hook'], transitions: [{ to: 'review', description: 'Written.' }] }),
    review: state('review', { type: 'human', transitions: [{ to: 'done', description: 'Approve.' }] }),
    done: state('done'),
  },
};

/** A ModelProvider (port): "review" advances to the human state, "wait" waits a second, anything else is answered. */
const model: ModelProvider = {
  async *stream(request): AsyncIterable<ModelEvent> {
    const users = request.messages.filter((m) => m.role === 'user');
    const last = users.at(-1)?.content ?? '';
    const call = (name: string, input: unknown) => ({
      type: 'tool-call' as const, call: { id: `c${Date.now()}`, name, input },
    });
    if (last === 'review') yield call('platform_advance', { to: 'review', reason: 'written' });
    else if (last === 'wait') {
      yield call('platform_wait', { reason: 'later', until: new Date(Date.now() + 1000).toISOString() });
    }
    else yield { type: 'text', text: 'Noted.' };
    const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
    yield { type: 'finish', reason: last === 'review' || last === 'wait' ? 'tool-calls' : 'stop', usage };
  },
};

let redis: RunningRedis;
let connection: RedisConnection;
let queue: JobQueue;
let dir: string;
let docs: DocumentStore;
let consumer: { stop(): Promise<void> };
const objects = createMemoryObjectStore();
const caller = { subject: 'u1', email: 'u1@example.test' };
/** What every start of these tests opens, with `message` as its first turn's. */
const opening = (message: string) => ({ agent: 'a', environment: 'main', workflow: 'desk', message });
/** The dispatcher's consumer of the turn queue. */
const consumeTurns = () => queue.consume(TURN_QUEUE, async (job) => runJob((job.data as { turnId: string }).turnId), {
  concurrency: 2,
});
const target: FiringTarget = {
  orgId: 'o1', agentId: 'a1', environment: 'main', buildId: 'b1', commitId: 'c1', workflow: 'desk', state: 'answer',
  trigger: { id: 'hook', type: 'webhook' },
};

/** The session use cases over `store` and `jobs`. */
function useCases(store: DocumentStore, jobs: JobQueue): SessionDeps {
  return {
    docs: store, objects, clock: systemClock, ids: cryptoIds,
    requireRole: async () => undefined,
    seesEveryChat: async () => true,
    resolveWorkflow: async (_c, ref) => ({
      orgId: 'o1', agentId: 'a1', environment: ref.environment, buildId: 'b1', commitId: 'c1', view: desk,
    }),
    resolveAgent: async () => ({ orgId: 'o1', agentId: 'a1' }),
    enqueueTurn: async (turnId) => enqueueTurnJob({ queue: jobs, docs: store }, turnId),
  };
}

/** A turn of the queue run as a dispatcher runs it: the claim, a fenced store host, the engine in-process. */
async function runJob(turnId: string): Promise<void> {
  const store = { docs, objects, clock: systemClock, ids: cryptoIds };
  const turn = await claimTurn(store, turnId, 'dispatcher-1');
  if (!turn) return;
  const host = createStoreHost({
    ...store, models: model, workflowOf: async () => desk, costOf: () => 0, serviceTools: async () => [],
    callServiceTool: async () => ({ output: null, isError: true }), promptCache: { enabled: false, ttl: '5m' },
    callSignal: () => undefined, fence: { runner: 'dispatcher-1', lease: turn.lease! },
  }, turnId);
  await runTurn({ host, now: () => Date.now() }, turnId);
}

/** Stands for a process that dies right after its `k`-th write (document or queue): every later call fails. */
function dyingAfter(k: number, store: DocumentStore, jobs: JobQueue) {
  let writes = 0;
  let dead = false;
  const crash = () => new Error('the process died here');
  const call = async <T>(run: () => Promise<T>, write: boolean): Promise<T> => {
    if (dead) throw crash();
    const result = await run();
    if (write && (writes += 1) === k) {
      dead = true;
      throw crash();
    }
    return result;
  };
  const writesOf = new Set(['insertOne', 'updateOne', 'deleteOne', 'deleteMany']);
  const dyingDocs: DocumentStore = {
    collection: (name) => new Proxy(store.collection(name), {
      get: (inner, method: string) => (...args: unknown[]) => {
        const methods = inner as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
        return call(() => methods[method](...args), writesOf.has(method));
      },
    }),
    close: async () => undefined,
  };
  const dyingJobs = { ...jobs, add: (...args: Parameters<JobQueue['add']>) => call(() => jobs.add(...args), true) };
  return { docs: dyingDocs, jobs: dyingJobs as JobQueue };
}

/** The stack of a process started after the crash, over the same stores, `ms` later by its clock. */
const later = (ms: number): SessionStoreDeps & { ensureTurnJob(turnId: string): Promise<boolean> } => ({
  docs, objects, ids: cryptoIds, clock: { now: () => new Date(Date.now() + ms) },
  ensureTurnJob: (turnId) => ensureTurnJob({ queue, docs }, turnId),
});

const statusOf = async (sessionId: string) => (await sessionsOf({ docs }).findOne({ _id: sessionId }))?.status;
const settled = (sessionId: string, status: SessionStatus) => eventually(async () => {
  expect(await statusOf(sessionId)).toBe(status);
  expect(await turnsOf({ docs }).countDocuments({ sessionId, status: { $in: ['queued', 'running'] } })).toBe(0);
});

/** A session run (through the real queue) until it parks: `message` decides where. */
async function parked(message: 'hello' | 'review' | 'wait'): Promise<SessionRecord> {
  const { session } = await startSession(useCases(docs, queue), caller, opening(message));
  await settled(session._id, message === 'review' ? 'awaiting_decision' : 'awaiting_input');
  return (await sessionsOf({ docs }).findOne({ _id: session._id }))!;
}

/** The use cases, each with what prepares it and the status its session settles in once its turn has run. */
const cases: {
  name: string;
  prepare(): Promise<SessionRecord | undefined>;
  run(deps: SessionDeps, s?: SessionRecord): Promise<unknown>;
  ends: SessionStatus;
  /** How far ahead of the use case's own clock the next process's clock is (the park sweep ran 60 s ahead). */
  ahead?: number;
}[] = [
  {
    name: 'start', prepare: async () => undefined, ends: 'awaiting_input',
    run: (deps) => startSession(deps, caller, opening('hello')),
  },
  {
    name: 'decide', prepare: () => parked('review'), ends: 'succeeded',
    run: (deps, s) => decideSession(deps, caller, s!._id, { to: 'done' }),
  },
  {
    name: 'reply', prepare: () => parked('hello'), ends: 'awaiting_input',
    run: (deps, s) => replySession(deps, caller, s!._id, 'more'),
  },
  {
    name: 'the park sweep', prepare: () => parked('wait'), ends: 'awaiting_input', ahead: 60_000,
    run: (deps) => sweepDueWaits({ ...deps, clock: { now: () => new Date(Date.now() + 60_000) } }),
  },
  {
    name: 'a delivery to a parked session', ends: 'awaiting_input',
    prepare: async () => {
      const firing = { payload: {}, message: 'hello', sessionKey: 'k-delivery' };
      const first = await openFiredSession(useCases(docs, queue), target, firing);
      await settled(first.session._id, 'awaiting_input');
      return first.session;
    },
    run: (deps) => openFiredSession(deps, target, { payload: { n: 2 }, message: 'hello', sessionKey: 'k-delivery' }),
  },
  {
    name: 'opening a fired session', prepare: async () => undefined, ends: 'awaiting_input',
    run: (deps) => openFiredSession(deps, target, { payload: {}, message: 'hello' }),
  },
];

beforeAll(async () => {
  redis = await startRedis();
  connection = await openRedis(redis.url);
  queue = createBullJobQueue({ connection, prefix: 'crash-windows' });
  dir = mkdtempSync(join(tmpdir(), 'cairn-crash-windows-'));
  docs = await openSqliteDocumentStore({ path: join(dir, 'cairn.db') });
  consumer = consumeTurns();
});
afterAll(async () => {
  await consumer?.stop();
  await queue?.close();
  await connection?.quit();
  await docs?.close();
  await redis?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a process dying between the writes of a use case', () => {
  for (const useCase of cases) {
    for (const k of [1, 2]) {
      it(`${useCase.name}: dies after write ${k} of 3; the sweep completes it; its turn runs and settles`, async () => {
        const before = useCase.prepare ? await useCase.prepare() : undefined;
        const known = new Set((await sessionsOf({ docs }).find({})).map((s) => s._id));
        // The dying process opens its own connection to the same SQLite file.
        const own = await openSqliteDocumentStore({ path: join(dir, 'cairn.db') });
        const dying = dyingAfter(k, own, queue);
        await expect(useCase.run(useCases(dying.docs, dying.jobs), before)).rejects.toThrow('the process died here');
        await own.close();
        const session = before ?? (await sessionsOf({ docs }).find({})).find((s) => !known.has(s._id))!;
        expect(await statusOf(session._id)).toBe('running');
        // Within the grace the sweep leaves it to its own process; after the grace it completes it.
        expect(await recoverTurns(later(0))).toEqual({ inserted: [], requeued: [], settled: [] });
        const after = (useCase.ahead ?? 0) + 31_000;
        const done = await recoverTurns(later(after));
        const { next } = (await sessionsOf({ docs }).findOne({ _id: session._id }))!;
        if (k === 1) expect(done.inserted).toEqual([next!.turnId]);
        expect(done.requeued).toContain(next!.turnId);
        await settled(session._id, useCase.ends);
        expect(await turnsOf({ docs }).findOne({ _id: next!.turnId })).toMatchObject({ status: useCase.ends });
        // Done once: a second sweep finds nothing to do.
        expect(await recoverTurns(later(after))).toEqual({ inserted: [], requeued: [], settled: [] });
      });
    }
  }
});

describe('a queue store that refuses the turn', () => {
  const refusing = (): JobQueue => ({
    ...queue, add: async () => { throw new PlatformError('queue_full', 'OOM command not allowed'); },
  });

  it('start: answers 503 queue_unavailable and leaves no session and no turn', async () => {
    const count = await sessionsOf({ docs }).countDocuments({});
    const turns = await turnsOf({ docs }).countDocuments({});
    const refused = startSession(useCases(docs, refusing()), caller, opening('hello'));
    const retry = expect.stringContaining('nothing was changed; retry in a moment');
    await expect(refused).rejects.toMatchObject({ code: 'queue_unavailable', status: 503, message: retry });
    expect(await sessionsOf({ docs }).countDocuments({})).toBe(count);
    expect(await turnsOf({ docs }).countDocuments({})).toBe(turns);
    // A refusal that already says why (no queue store configured) reaches the caller as it is, nothing left either.
    const why = 'No queue store is configured (QUEUE_URL), so no turn can run.';
    const unconfigured = {
      ...queue, add: async () => { throw new PlatformError('queue_unavailable', why, { status: 503 }); },
    };
    const told = startSession(useCases(docs, unconfigured), caller, opening('hello'));
    await expect(told).rejects.toMatchObject({ message: why });
    expect(await sessionsOf({ docs }).countDocuments({})).toBe(count);
  });

  it('decide and reply: answer 503 and leave the session parked as it was, so the retry is taken', async () => {
    const deciding = await parked('review');
    await expect(decideSession(useCases(docs, refusing()), caller, deciding._id, { to: 'done' }))
      .rejects.toMatchObject({ code: 'queue_unavailable', status: 503 });
    const asItWas = { status: 'awaiting_decision', pending: deciding.pending, next: null };
    expect(await sessionsOf({ docs }).findOne({ _id: deciding._id })).toMatchObject(asItWas);
    await decideSession(useCases(docs, queue), caller, deciding._id, { to: 'done' });
    await settled(deciding._id, 'succeeded');

    const replying = await parked('hello');
    await expect(replySession(useCases(docs, refusing()), caller, replying._id, 'more'))
      .rejects.toMatchObject({ code: 'queue_unavailable', status: 503 });
    expect(await statusOf(replying._id)).toBe('awaiting_input');
    expect(await turnsOf({ docs }).countDocuments({ sessionId: replying._id, status: 'queued' })).toBe(0);
  });
});

describe('the queue store losing its jobs', () => {
  it('re-queues queued turns after the queue store came back empty; replaces a kept job that ran', async () => {
    await consumer.stop();
    const first = await startSession(useCases(docs, queue), caller, opening('hello'));
    const second = await startSession(useCases(docs, queue), caller, opening('hello'));
    expect(await queue.jobState(TURN_QUEUE, first.turn._id)).toBe('pending');
    // A pending job is left as it is.
    expect(await recoverTurns(later(31_000))).toMatchObject({ requeued: [] });
    redis.cli('flushall');
    expect(await queue.jobState(TURN_QUEUE, first.turn._id)).toBe('missing');
    // A kept completed job of a turn still queued (a run that did not claim it) is removed and added again.
    await enqueueTurnJob({ queue, docs }, second.turn._id);
    const once = queue.consume(TURN_QUEUE, async () => undefined);
    await eventually(async () => expect(await queue.jobState(TURN_QUEUE, second.turn._id)).toBe('ended'));
    await once.stop();
    const done = await recoverTurns(later(31_000));
    expect(done.requeued.sort()).toEqual([first.turn._id, second.turn._id].sort());
    consumer = consumeTurns();
    await settled(first.session._id, 'awaiting_input');
    await settled(second.session._id, 'awaiting_input');
  });
});
