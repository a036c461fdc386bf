/**
 * Retention of session records: a finished session tree (a root session with no parent, every session of it
 * succeeded, failed or cancelled) whose root was last updated more than `days` ago is removed with its turns, its
 * checkpoint messages and its folder in the object store. A tree holding a running or parked session is never
 * touched. What names a removed session by `sessionId` goes with it: its session key claims and the collections the
 * caller names (the AG-UI thread bindings). Claimed firing ids older than their retention go too, unless the
 * firing is still pending.
 *
 * Source: docs/architecture.md § Queues and collections (retention); core/config/retention-settings.ts.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import { finalStatuses, sessionCollections, sessionKeys, type SessionRecord } from './model.ts';
import { sessionKeyClaimsCollection } from './session-key-claims.ts';

/** Session trees removed per sweep at most (the next sweep takes the rest). */
export const SESSION_RETENTION_BATCH = 200;
const DAY_MS = 86_400_000;

/** What a retention sweep removed. */
export interface SessionRetentionResult {
  sessions: number;
  turns: number;
  messages: number;
  /** Session key claims and documents of the bound collections that named a removed session. */
  bindings: number;
  deliveries: number;
}

/** Declares the index the sweep's removals by `sessionId` use: the session key claims and `boundCollections`. */
export async function ensureRetentionIndexes(docs: DocumentStore, boundCollections: string[] = []): Promise<void> {
  for (const name of [sessionKeyClaimsCollection, ...boundCollections]) {
    await docs.collection(name).createIndex({ sessionId: 1 });
  }
}

/**
 * Removes finished session trees older than `sessionDays` (at most {@link SESSION_RETENTION_BATCH}) and claimed
 * firing ids older than `deliveryDays`.
 * @param deps.objects - when given, each removed session's folder (`sessions/<id>/`) is removed too
 * @param options.boundCollections - more collections whose documents name a session by `sessionId` and go with it
 *   (default none; the dispatcher names `agui_threads`); each wants an index on `sessionId`
 */
export async function sweepSessionRetention(
  deps: { docs: DocumentStore; objects?: ObjectStore; clock: Clock },
  days: { sessionDays: number; deliveryDays: number },
  options: { boundCollections?: string[] } = {},
): Promise<SessionRetentionResult> {
  const bound = [sessionKeyClaimsCollection, ...(options.boundCollections ?? [])];
  const now = deps.clock.now().getTime();
  const sessions = deps.docs.collection<SessionRecord>(sessionCollections.sessions);
  const before = new Date(now - days.sessionDays * DAY_MS);
  const roots = await sessions.find(
    { parentId: { $exists: false }, status: { $in: [...finalStatuses] }, updatedAt: { $lt: before } },
    { sort: { updatedAt: 1 }, limit: SESSION_RETENTION_BATCH },
  );
  const result: SessionRetentionResult = { sessions: 0, turns: 0, messages: 0, bindings: 0, deliveries: 0 };
  for (const root of roots) {
    const tree = [root, ...await sessions.find({ rootId: root._id, _id: { $ne: root._id } })];
    if (tree.some((s) => !finalStatuses.includes(s.status))) continue;
    const ids = tree.map((s) => s._id);
    result.turns += await deps.docs.collection(sessionCollections.turns).deleteMany({ sessionId: { $in: ids } });
    result.messages += await deps.docs.collection(sessionCollections.messages).deleteMany({ sessionId: { $in: ids } });
    for (const name of bound) {
      result.bindings += await deps.docs.collection(name).deleteMany({ sessionId: { $in: ids } });
    }
    if (deps.objects) {
      for (const id of ids) {
        for (const key of await deps.objects.list(sessionKeys.folder(id))) await deps.objects.delete(key);
      }
    }
    // The records last: a sweep stopped half-way finds the tree again and finishes it.
    result.sessions += await sessions.deleteMany({ _id: { $in: ids } });
  }
  result.deliveries = await deps.docs.collection(sessionCollections.deliveries).deleteMany({
    pending: { $exists: false },
    claimedAt: { $lt: new Date(now - days.deliveryDays * DAY_MS) },
  });
  return result;
}
