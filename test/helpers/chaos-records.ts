/**
 * What a chaos test reads back from the shared embedded document store (the SQLite file every process of the
 * cluster writes; one table `c_<collection>` per collection, each document as JSON text): sessions per webhook
 * delivery, sessions and turns not settled, and counts by status. Read through a connection of its own that
 * waits for the processes' write locks (busy timeout), outside any process of the cluster.
 * Source: docs/architecture.md § Document store (`sessions`, `session_turns`).
 */
import { DatabaseSync } from 'node:sqlite';

/** One unsettled record. */
export interface Unsettled { id: string; workflow?: string; status: string; detail?: string }

/** A snapshot of the session records. */
export interface ChaosRecords {
  /** Sessions of `workflow` per trigger delivery id (`variables.trigger.deliveryId`). */
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

/** Reads the records of `docdbPath`; `workflow` is the webhook-fired workflow whose sessions are grouped by delivery. */
export function readChaosRecords(docdbPath: string, workflow: string): ChaosRecords {
  const db = new DatabaseSync(docdbPath);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    const field = (path: string) => `json_extract(doc, '$.${path}')`;
    const sessions = db.prepare(
      `SELECT _id AS id, ${field('workflow')} AS workflow, ${field('status')} AS status, ` +
      `${field('variables.trigger.deliveryId')} AS delivery FROM c_sessions`,
    ).all() as { id: string; workflow: string; status: string; delivery: string | null }[];
    const turns = db.prepare(
      `SELECT _id AS id, ${field('sessionId')} AS session, ${field('status')} AS status, ${field('error.code')} AS code, ` +
      `${field('runner')} AS runner FROM c_session_turns`,
    ).all() as { id: string; session: string; status: string; code: string | null; runner: string | null }[];
    const sessionsPerDelivery = new Map<string, string[]>();
    const sessionCounts: Record<string, number> = {};
    for (const s of sessions) {
      const key = `${s.workflow} ${s.status}`;
      sessionCounts[key] = (sessionCounts[key] ?? 0) + 1;
      if (s.workflow === workflow && s.delivery !== null) sessionsPerDelivery.set(s.delivery, [...(sessionsPerDelivery.get(s.delivery) ?? []), s.id]);
    }
    const turnCounts: Record<string, number> = {};
    for (const t of turns) {
      const key = t.code ? `${t.status} (${t.code})` : t.status;
      turnCounts[key] = (turnCounts[key] ?? 0) + 1;
    }
    const workflowOf = new Map(sessions.map((s) => [s.id, s.workflow]));
    return {
      sessionsPerDelivery,
      runningSessions: sessions.filter((s) => s.status === 'running').map((s) => ({ id: s.id, workflow: s.workflow, status: s.status })),
      unsettledTurns: turns.filter((t) => t.status === 'queued' || t.status === 'running')
        .map((t) => ({ id: t.id, workflow: workflowOf.get(t.session), status: t.status, detail: t.runner ?? undefined })),
      sessionCounts,
      turnCounts,
    };
  } finally {
    db.close();
  }
}
