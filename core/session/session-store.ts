/**
 * Stored sessions, turns and checkpoint threads: creating them, claiming a queued turn and applying a step's
 * checkpoint (settling a turn: ./turn-settle.ts; the collections' indexes: ./session-indexes.ts; a model call's
 * usage: ./metered-call.ts). Used by the API (start, decide, reply, cancel) and by the broker side of a worker (the
 * host of a running turn).
 *
 * Source: spec/platform-service.md § Session facts named; docs/decisions.md D7 § Sessions and turns.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import type { ObjectStore } from '../ports/object-store.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { MessageRecord } from './thread-model.ts';
import { noUsage } from './usage-model.ts';
import {
  sessionCollections,
  sessionKeys,
  type SessionRecord,
  sessionRecordSchemaVersion,
  sessionSchemaVersion,
  type TurnKind,
  type TurnRecord,
} from './model.ts';
import { activeTraceCarrier } from '../telemetry/trace-context.ts';

/** What the store functions need. */
export interface SessionStoreDeps {
  docs: DocumentStore;
  objects: ObjectStore;
  clock: Clock;
  ids: Ids;
}

export const sessionsOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<SessionRecord>(sessionCollections.sessions);
export const turnsOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<TurnRecord>(sessionCollections.turns);
export const messagesOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<MessageRecord>(sessionCollections.messages);

/** The fields a new session is made from (`_id`: a chosen id, default a new one). */
export type NewSession =
  & Pick<
    SessionRecord,
    | 'orgId'
    | 'agentId'
    | 'environment'
    | 'workflow'
    | 'buildId'
    | 'commitId'
    | 'state'
    | 'variables'
    | 'lockedVariables'
    | 'trigger'
    | 'depth'
    | 'inheritedForbid'
  >
  & Partial<
    Pick<
      SessionRecord,
      | '_id'
      | 'startedBy'
      | 'parentId'
      | 'rootId'
      | 'dispatchId'
      | 'attributes'
      | 'ancestry'
      | 'sessionKey'
      | 'next'
      | 'lease'
      | 'evaluation'
    >
  >;

/** Inserts a running session (its entry state on the trail) and writes its folder's manifest. */
export async function insertSession(deps: SessionStoreDeps, fields: NewSession): Promise<SessionRecord> {
  const now = deps.clock.now();
  const session: SessionRecord = {
    _id: deps.ids.newId(),
    schemaVersion: sessionRecordSchemaVersion,
    attributes: {},
    ancestry: [],
    ...fields,
    status: 'running',
    trail: [{ state: fields.state, via: 'start', at: now }],
    pending: null,
    visit: { modelCalls: 0, parks: 0, entered: false },
    usage: noUsage(),
    messageCount: 0,
    dispatchCount: 0,
    error: null,
    createdAt: now,
    updatedAt: now,
  };
  const manifest = {
    sessionId: session._id,
    agentId: session.agentId,
    environment: session.environment,
    workflow: session.workflow,
    buildId: session.buildId,
    createdAt: now.toISOString(),
  };
  await deps.objects.put(sessionKeys.manifest(session._id), new TextEncoder().encode(JSON.stringify(manifest)), {
    contentType: 'application/json',
  });
  await sessionsOf(deps).insertOne(session);
  return session;
}

/** Who runs a turn: the dispatcher instance and the claim's lease epoch (see TurnRecord.lease). */
export interface TurnFence {
  runner: string;
  lease: string;
}

/** The turn {@link insertTurn} inserts. */
export interface TurnInsert {
  /** The turn's kind. */
  kind: TurnKind;
  /** The turn's input. */
  input: TurnRecord['input'];
  /** `queued`, or `running` for a child run inline. Default `queued`. */
  status?: 'queued' | 'running';
  /** The turn's id (a session's outbox names it). Default: a new one. */
  id?: string;
  /** The runner and lease of a child turn run inline (its root's). */
  fence?: TurnFence;
}

/**
 * Inserts a turn of `session` in status `status` (queued, or running for a child run inline).
 * @throws PlatformError `duplicate_key` when a turn with `id` exists
 */
export async function insertTurn(
  deps: SessionStoreDeps,
  session: Pick<SessionRecord, '_id' | 'orgId'>,
  { kind, input, status = 'queued', id, fence }: TurnInsert,
): Promise<TurnRecord> {
  const now = deps.clock.now();
  const turn: TurnRecord = {
    _id: id ?? deps.ids.newId(),
    schemaVersion: sessionSchemaVersion,
    sessionId: session._id,
    orgId: session.orgId,
    kind,
    input,
    status,
    usage: noUsage(),
    error: null,
    queuedAt: now,
    ...(status === 'running' ? { startedAt: now } : {}),
    ...(status === 'running' && fence ? { ...fence, heartbeatAt: now } : {}),
  };
  const trace = activeTraceCarrier();
  if (trace !== undefined) turn.trace = trace;
  await turnsOf(deps).insertOne(turn);
  return turn;
}

/**
 * Claims a queued turn for `runner` under a new lease epoch; null when it is no longer queued (claimed, cancelled)
 * or its session is no longer running (cancelled meanwhile: the turn then ends cancelled). Exclusive with
 * `cancelSession`: the turn's compare-and-set comes first, then the session's (`running` → lease set, outbox
 * cleared); cancel writes the session first and then cancels queued and running turns, so whichever order the two
 * interleave in, no turn runs on a cancelled session. Source: docs/architecture.md § Life of a turn (2. The claim).
 */
export async function claimTurn(deps: SessionStoreDeps, turnId: string, runner: string): Promise<TurnRecord | null> {
  const now = deps.clock.now();
  const lease = deps.ids.newId();
  const claimed = { status: 'running', runner, lease, startedAt: now, heartbeatAt: now };
  const { matched } = await turnsOf(deps).updateOne({ _id: turnId, status: 'queued' }, { $set: claimed });
  if (matched === 0) return null;
  const turn = await turnsOf(deps).findOne({ _id: turnId });
  if (!turn) return null;
  const session = await sessionsOf(deps).updateOne(
    { _id: turn.sessionId, status: 'running' },
    { $set: { lease, next: null, updatedAt: now } },
  );
  if (session.matched === 1) return turn;
  const backOff = { $set: { status: 'cancelled', endedAt: now } };
  await turnsOf(deps).updateOne({ _id: turnId, status: 'running', lease }, backOff);
  return null;
}

/** Renews the heartbeat of a turn `runner` runs; returns its status now (`cancelled` tells the runner to stop). */
export async function beatTurn(
  deps: Pick<SessionStoreDeps, 'docs' | 'clock'>,
  turnId: string,
  runner: string,
): Promise<TurnRecord['status'] | undefined> {
  await turnsOf(deps).updateOne({ _id: turnId, status: 'running', runner }, {
    $set: { heartbeatAt: deps.clock.now() },
  });
  return (await turnsOf(deps).findOne({ _id: turnId }))?.status;
}

/** Loads a turn and its session. @throws PlatformError `not_found` */
export async function loadTurnRecords(
  deps: SessionStoreDeps,
  turnId: string,
): Promise<{ turn: TurnRecord; session: SessionRecord }> {
  const turn = await turnsOf(deps).findOne({ _id: turnId });
  const session = turn ? await sessionsOf(deps).findOne({ _id: turn.sessionId }) : null;
  if (!turn || !session) throw new PlatformError('not_found', `Turn ${turnId} was not found.`, { status: 404 });
  return { turn, session };
}

/**
 * The checkpoint thread of a session, oldest first: its committed messages (numbered below its `messageCount`; a
 * message a dead process left after that count is not part of it).
 */
export async function readThread(
  deps: Pick<SessionStoreDeps, 'docs'>,
  session: Pick<SessionRecord, '_id' | 'messageCount'>,
): Promise<MessageRecord[]> {
  return messagesOf(deps).find({ sessionId: session._id, seq: { $lt: session.messageCount } }, { sort: { seq: 1 } });
}
