/**
 * Applying a step's checkpoint to the session of a running turn (moved out of ./session-store.ts): messages appended
 * (numbered after the last), state, trail, variables, visit, pending and dispatch count, under the claim's fence.
 * The broker's checkpoint applies it to the records it has just read for the same request, so a checkpoint reads
 * the turn and its session once, not twice (docs/decisions.md D24 § 2); the session's write still matches the lease
 * and the message count read, so a second writer or a runner fenced out changes nothing.
 *
 * Source: spec/platform-service.md § Session facts named; docs/decisions.md D7 § Sessions and turns, D24 § 2.
 */
import type { ModelMessage } from '../ports/model-provider.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { sessionSchemaVersion } from './model.ts';
import { messagesOf, sessionsOf, type SessionStoreDeps, type TurnFence, turnsOf } from './session-store.ts';
import type { MessageRecord } from './thread-model.ts';
import type { SessionPatch } from './turn-host.ts';

/**
 * Applies a step's checkpoint to the session of a running turn, reading the turn and its session first. With a
 * `fence`, the turn must still be run by that runner under that lease, and the session's write matches the lease and
 * the message count read (a runner fenced out, or a second writer, changes nothing of the session).
 * @throws PlatformError `turn_not_running` (409) when the turn was cancelled, settled or fenced out meanwhile;
 *   `not_found` (404) when its session is gone
 *
 * Source: docs/decisions.md D7 § Sessions and turns
 */
export async function applyCheckpoint(
  deps: SessionStoreDeps,
  turn: TurnRecord,
  patch: SessionPatch,
  fence?: TurnFence,
): Promise<void> {
  const owned = fence ? { runner: fence.runner, lease: fence.lease } : {};
  const current = await turnsOf(deps).findOne({ _id: turn._id, ...owned });
  if (current?.status !== 'running') throw notRunning(turn._id, current?.status);
  const session = await sessionsOf(deps).findOne({ _id: turn.sessionId });
  if (!session) throw new PlatformError('not_found', `Session ${turn.sessionId} was not found.`, { status: 404 });
  await applyCheckpointTo(deps, { turn: current, session }, patch, fence);
}

/**
 * Applies a step's checkpoint to `read`: the turn and its session as read for this request (the broker's records of
 * the turn the worker named). The turn must be running and, with a `fence`, that runner's under that lease; the
 * session's write matches the lease, its status and the message count read.
 * @throws PlatformError `turn_not_running` (409) when the turn was cancelled, settled or fenced out
 *
 * Source: docs/decisions.md D7 § Sessions and turns, D24 § 2
 */
export async function applyCheckpointTo(
  deps: SessionStoreDeps,
  read: { turn: TurnRecord; session: SessionRecord },
  patch: SessionPatch,
  fence?: TurnFence,
): Promise<void> {
  const { turn, session } = read;
  const ours = !fence || (turn.runner === fence.runner && turn.lease === fence.lease);
  if (turn.status !== 'running' || !ours) throw notRunning(turn._id, ours ? turn.status : undefined);
  // Fenced out already (failed as stale, cancelled): no message is appended either.
  if (fence && (session.status !== 'running' || session.lease !== fence.lease)) throw notRunning(turn._id, 'running');
  const now = deps.clock.now();
  const messages: ModelMessage[] = patch.messages ?? [];
  const records = messages.map((message, offset): MessageRecord => ({
    _id: `${session._id}:${session.messageCount + offset}`,
    schemaVersion: sessionSchemaVersion,
    sessionId: session._id,
    seq: session.messageCount + offset,
    turnId: turn._id,
    state: patch.state ?? session.state,
    message,
    at: now,
  }));
  // A process that dies before the session's write below leaves these messages uncommitted (numbered from the
  // count it did not write): readers take only messages below `messageCount` (readThread), and the turn fails stale.
  for (const record of records) await insertUncommitted(deps, record);
  const set: Record<string, unknown> = { updatedAt: now, messageCount: session.messageCount + messages.length };
  if (patch.state !== undefined) set.state = patch.state;
  if (patch.trail) set.trail = [...session.trail, { ...patch.trail, at: now }];
  if (patch.variables) set.variables = { ...session.variables, ...patch.variables };
  if (patch.visit) set.visit = patch.visit;
  if (patch.pending !== undefined) {
    set.pending = patch.pending === null ? null : { ...patch.pending, id: patch.pending.id || deps.ids.newId() };
  }
  if (patch.dispatchCount !== undefined) set.dispatchCount = patch.dispatchCount;
  const where = fence ? { status: 'running', lease: fence.lease, messageCount: session.messageCount } : {};
  const { matched } = await sessionsOf(deps).updateOne({ _id: session._id, ...where }, { $set: set });
  if (matched === 0) throw notRunning(turn._id, 'running');
}

/** The refusal of a step of a turn that is no longer running (or not this runner's: `status` undefined). */
function notRunning(turnId: string, status: string | undefined): PlatformError {
  return new PlatformError(
    'turn_not_running',
    `Turn ${turnId} is ${status ?? "not this runner's"}; it takes no more steps.`,
    { status: 409 },
  );
}

/**
 * Inserts a message numbered at or after the session's count. One already there under its id is not part of the
 * thread (a process died before committing it, or a rollback discarded it: ./turn-settle.ts): it is replaced.
 */
async function insertUncommitted(deps: Pick<SessionStoreDeps, 'docs'>, record: MessageRecord): Promise<void> {
  try {
    await messagesOf(deps).insertOne(record);
  } catch (error) {
    if (!isPlatformError(error, 'duplicate_key')) throw error;
    await messagesOf(deps).deleteOne({ _id: record._id });
    await messagesOf(deps).insertOne(record);
  }
}
