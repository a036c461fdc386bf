/**
 * What a chaos test reads back: from the shared embedded document store (the SQLite file every process of the
 * cluster writes; one table `c_<collection>` per collection, each document as JSON text) the sessions per webhook
 * delivery, the sessions and turns not settled and counts by status, read through a connection of its own that
 * waits for the processes' write locks (busy timeout); from the queue store the jobs not yet ended.
 * Source: docs/architecture.md § Queues and collections (`sessions`, `session_turns`; BullMQ prefix `cairn`).
 */
import { DatabaseSync } from 'node:sqlite';
import type { ChaosSlot } from './chaos-cluster.ts';
import type { ChatResult, DeliveryResult } from './chaos-load.ts';

/** One unsettled record. */
export interface Unsettled { id: string; workflow?: string; status: string; runner?: string }

/** A snapshot of the session records. */
export interface ChaosRecords {
  /** Sessions of the webhook-fired workflow per trigger delivery id (`variables.trigger.deliveryId`). */
  sessionsPerDelivery: Map<string, string[]>;
  /** Root and child sessions still `running`. */
  runningSessions: Unsettled[];
  /** Turns still `queued` or `running`. */
  unsettledTurns: Unsettled[];
  /** Sessions by workflow and status, e.g. `intake awaiting_input: 198`. */
  sessionCounts: Record<string, number>;
  /** Turns by status and error code, e.g. `failed (interrupted)`. */
  turnCounts: Record<string, number>;
}

interface SessionRow { id: string; workflow: string; status: string; delivery: string | null }
interface TurnRow { id: string; session: string; status: string; code: string | null; runner: string | null }

const field = (path: string) => `json_extract(doc, '$.${path}')`;
const count = (counts: Record<string, number>, key: string) => { counts[key] = (counts[key] ?? 0) + 1; };

/** Reads the records of `docdbPath`, grouping the sessions of `workflow` (the webhook-fired one) by delivery. */
export function readChaosRecords(docdbPath: string, workflow: string): ChaosRecords {
  const db = new DatabaseSync(docdbPath);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    const sessions = db.prepare(
      `SELECT _id AS id, ${field('workflow')} AS workflow, ${field('status')} AS status, ` +
      `${field('variables.trigger.deliveryId')} AS delivery FROM c_sessions`,
    ).all() as unknown as SessionRow[];
    const turns = db.prepare(
      `SELECT _id AS id, ${field('sessionId')} AS session, ${field('status')} AS status, ` +
      `${field('error.code')} AS code, ${field('runner')} AS runner FROM c_session_turns`,
    ).all() as unknown as TurnRow[];
    const sessionsPerDelivery = new Map<string, string[]>();
    const sessionCounts: Record<string, number> = {};
    for (const s of sessions) {
      count(sessionCounts, `${s.workflow} ${s.status}`);
      if (s.workflow !== workflow || s.delivery === null) continue;
      sessionsPerDelivery.set(s.delivery, [...(sessionsPerDelivery.get(s.delivery) ?? []), s.id]);
    }
    const turnCounts: Record<string, number> = {};
    for (const t of turns) count(turnCounts, t.code ? `${t.status} (${t.code})` : t.status);
    const workflowOf = new Map(sessions.map((s) => [s.id, s.workflow]));
    return {
      sessionsPerDelivery, sessionCounts, turnCounts,
      runningSessions: sessions.filter((s) => s.status === 'running')
        .map((s) => ({ id: s.id, workflow: s.workflow, status: s.status })),
      unsettledTurns: turns.filter((t) => t.status === 'queued' || t.status === 'running')
        .map((t) => ({
          id: t.id, workflow: workflowOf.get(t.session), status: t.status, runner: t.runner ?? undefined,
        })),
    };
  } finally {
    db.close();
  }
}

/**
 * Jobs of `queues` not yet ended in the queue store (waiting, paused, delayed, prioritized or active).
 * @param cli - runs redis-cli against the queue store (test/helpers/redis-server.ts)
 */
export function pendingJobs(cli: (...args: string[]) => string, queues = ['turns', 'triggers']): number {
  let n = 0;
  const keys = [
    ['llen', 'wait'], ['llen', 'active'], ['llen', 'paused'], ['zcard', 'delayed'], ['zcard', 'prioritized'],
  ];
  for (const queue of queues) {
    for (const [command, key] of keys) n += Number(cli(command, `cairn:${queue}:${key}`).trim() || 0);
  }
  return n;
}

/** What one chaos run did and left, as {@link summariseChaosRun} prints it. */
export interface ChaosRun {
  sent: DeliveryResult[];
  chats: ChatResult[];
  records: ChaosRecords;
  slots: ChaosSlot[];
  restartFailures: string[];
  chaosMs: number;
  settleMs: number;
}

/** The figures of a run (printed) and the deliveries lost and doubled. */
export interface ChaosSummary { figures: Record<string, unknown>; lost: string[]; doubled: string[] }

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const meanSeconds = (ms: number[]) => Math.round(sum(ms) / Math.max(1, ms.length)) / 1000;
const tally = (items: string[]) => items.reduce<Record<string, number>>((all, item) => {
  count(all, item);
  return all;
}, {});

/**
 * The figures of a run: sends and their refusals, kills, start times, crashes, sessions per delivery, what is
 * left unsettled, how chats ended, and the records by status. `lost` lists deliveries acknowledged at least once
 * (taken or answered `duplicate`) that have no session; `doubled` those with more than one (with the sessions).
 */
export function summariseChaosRun(run: ChaosRun): ChaosSummary {
  const { sent, chats, records, slots } = run;
  const sends = sent.flatMap((d) => d.sends);
  const sessionsOf = (d: DeliveryResult) => records.sessionsPerDelivery.get(d.deliveryId) ?? [];
  const lost = sent.filter((d) => sessionsOf(d).length === 0 && d.sends.some((s) => s.taken !== undefined))
    .map((d) => d.deliveryId);
  const doubled = sent.filter((d) => sessionsOf(d).length > 1)
    .map((d) => `${d.deliveryId}: ${sessionsOf(d).join(', ')}`);
  const refusals: Record<string, number> = {};
  for (const [why, n] of sends.flatMap((s) => Object.entries(s.refusals))) refusals[why] = (refusals[why] ?? 0) + n;
  const figures = {
    deliveries: sent.length, sends: sends.length, attempts: sum(sends.map((s) => s.attempts)), refusals,
    taken: sends.filter((s) => s.taken === true).length,
    unacknowledged: sends.filter((s) => s.taken === undefined).length,
    kills: Object.fromEntries(slots.map((s) => [s.name, s.kills])),
    meanStartSeconds: Object.fromEntries(slots.map((s) => [s.name, meanSeconds(s.startMs)])),
    crashes: Object.fromEntries(slots.filter((s) => s.crashes.length > 0).map((s) => [s.name, s.crashes])),
    restartFailures: run.restartFailures,
    chaosSeconds: run.chaosMs / 1000, settleSeconds: run.settleMs / 1000,
    sessionsForDeliveries: sum([...records.sessionsPerDelivery.values()].map((ids) => ids.length)),
    lost: lost.length, doubled: doubled.length,
    runningSessions: records.runningSessions.length, unsettledTurns: records.unsettledTurns.length,
    chats: tally(chats.map((c) => c.end)),
    chatDetails: tally(chats.filter((c) => c.detail).map((c) => `${c.end} ${c.detail}`)),
    sessionCounts: records.sessionCounts, turnCounts: records.turnCounts,
  };
  return { figures, lost, doubled };
}
