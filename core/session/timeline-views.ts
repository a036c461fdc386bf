/**
 * A session's timeline (`GET /api/sessions/:id/timeline`, the session page's Timeline section): each turn with its
 * queued, started and ended times, queue wait, duration, kind, status, usage and timed steps, and between turns the
 * waits for a decision or a reply. Built from what the platform records on the turn records (no collector needed);
 * one indexed read of the session's turns, none per turn. Times are ISO 8601 strings (UTC), durations ms, costs USD.
 *
 * Source: docs/decisions.md D25 (observability: the session's timeline).
 */
import type { TurnStep } from '../telemetry/turn-steps.ts';
import type { SessionRecord, SessionStatus, TurnKind, TurnRecord, TurnStatus } from './model.ts';
import type { UsageView } from './session-views.ts';
import { loadSession, type SessionCaller, type SessionDeps } from './session-access.ts';
import { turnsOf } from './session-store.ts';

/** One timed step of a turn, as recorded (see core/telemetry/turn-steps.ts; `atMs` after the turn started). */
export type TimelineStepView = TurnStep;

/**
 * The wait before a turn queued by a person: from the end of the turn before to this turn's `queuedAt`
 * (`for`: `decision` before a decision turn, `reply` before a reply turn).
 */
export interface TimelineWaitView {
  for: 'decision' | 'reply';
  /** The end of the turn before (ISO). */
  from: string;
  /** This turn's `queuedAt` (ISO). */
  to: string;
  /** `to` − `from`, in ms (≥ 0). */
  ms: number;
}

/** One turn on the timeline. */
export interface TimelineTurnView {
  id: string;
  kind: TurnKind;
  status: TurnStatus;
  queuedAt: string;
  startedAt?: string;
  endedAt?: string;
  /** `startedAt` − `queuedAt` in ms, once started. */
  queueWaitMs?: number;
  /** `endedAt` − `startedAt` in ms, once ended. */
  durationMs?: number;
  usage: UsageView;
  error: { code: string; message: string } | null;
  /** The recorded steps, by `atMs` (empty for a turn recorded before steps were, or still running). */
  steps: TimelineStepView[];
  /** Steps the runner left out past its cap (0 when none). */
  stepsDropped: number;
  /** A decision or reply turn: how long the session waited for it. */
  waitBefore?: TimelineWaitView;
}

/** `GET /api/sessions/:id/timeline`: the turns oldest first, and what the session waits for now, since when. */
export interface SessionTimelineView {
  sessionId: string;
  status: SessionStatus;
  turns: TimelineTurnView[];
  /** While the session awaits a decision or input: since the end of its last turn (ISO). */
  waiting?: { for: 'decision' | 'reply'; since: string };
}

const iso = (at: Date | string): string => (typeof at === 'string' ? at : at.toISOString());
const ms = (at: Date | string): number => (typeof at === 'string' ? Date.parse(at) : at.getTime());

/** The recorded step with only its known fields (a record written by a later release may carry more). */
function stepView(s: TurnStep): TimelineStepView {
  const { kind, name, atMs, durationMs, inputTokens, outputTokens, costUsd, error } = s;
  return {
    kind,
    name,
    atMs,
    durationMs,
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
    ...(costUsd !== undefined ? { costUsd } : {}),
    ...(error !== undefined ? { error } : {}),
  };
}

/** The timeline view of one turn; `previousEnd` is the end of the turn queued before it, if it ended. */
function turnOnTimeline(t: TurnRecord, previousEnd: Date | string | undefined): TimelineTurnView {
  const waitFor = t.kind === 'decision' || t.kind === 'reply' ? t.kind : undefined;
  const waited = waitFor && previousEnd !== undefined ? Math.max(0, ms(t.queuedAt) - ms(previousEnd)) : undefined;
  return {
    id: t._id,
    kind: t.kind,
    status: t.status,
    queuedAt: iso(t.queuedAt),
    ...(t.startedAt ? { startedAt: iso(t.startedAt), queueWaitMs: Math.max(0, ms(t.startedAt) - ms(t.queuedAt)) } : {}),
    ...(t.endedAt ? { endedAt: iso(t.endedAt) } : {}),
    ...(t.startedAt && t.endedAt ? { durationMs: Math.max(0, ms(t.endedAt) - ms(t.startedAt)) } : {}),
    usage: t.usage,
    error: t.error,
    steps: (t.steps ?? []).map(stepView).sort((a, b) => a.atMs - b.atMs),
    stepsDropped: t.stepsDropped ?? 0,
    ...(waitFor && waited !== undefined && previousEnd !== undefined
      ? { waitBefore: { for: waitFor, from: iso(previousEnd), to: iso(t.queuedAt), ms: waited } }
      : {}),
  };
}

/**
 * The timeline of `session` from its turn records (any order; sorted here by `queuedAt`). Source: docs/decisions.md
 * D25.
 */
export function timelineView(session: SessionRecord, turns: TurnRecord[]): SessionTimelineView {
  const sorted = [...turns].sort((a, b) => ms(a.queuedAt) - ms(b.queuedAt));
  const shown = sorted.map((t, i) => turnOnTimeline(t, i > 0 ? sorted[i - 1].endedAt : undefined));
  const lastEnd = sorted.at(-1)?.endedAt;
  const waitingFor = session.status === 'awaiting_decision'
    ? 'decision'
    : session.status === 'awaiting_input'
    ? 'reply'
    : undefined;
  return {
    sessionId: session._id,
    status: session.status,
    turns: shown,
    ...(waitingFor && lastEnd ? { waiting: { for: waitingFor, since: iso(lastEnd) } } : {}),
  };
}

/**
 * The timeline of a session the caller sees (Reader on its agent; another member's chat only with
 * sessions:personal): the session read once, its turns in one indexed query (`sessionId`, `queuedAt`).
 * @throws PlatformError `not_found` (404, no identifier) for a session the caller may not see
 */
export async function showTimeline(
  deps: SessionDeps,
  caller: SessionCaller,
  sessionId: string,
): Promise<SessionTimelineView> {
  const session = await loadSession(deps, caller, sessionId, 'reader');
  const turns = await turnsOf(deps).find({ sessionId: session._id }, { sort: { queuedAt: 1 } });
  return timelineView(session, turns);
}
