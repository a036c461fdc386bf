/**
 * An AG-UI resume entry answering a decision interrupt: taken through the one decision path (`takeDecision`, channel
 * `agui`) with its payload `{to, comment?, fields?}`; and a repeated answer to an interrupt already decided, which
 * gets the first answer's run (its turn, from its first message) when it is the same answer, or 409 when not.
 *
 * Source: docs/decisions.md D26 § 2; spec/platform-service.md § AG-UI (a resume entry resolves a pending decision).
 */
import { PlatformError } from '../ports/platform-error.ts';
import { decisionTurnOf, takeDecision } from '../session/decisions.ts';
import type { DecisionInput } from '../session/decision-input.ts';
import type { SessionRecord } from '../session/model.ts';
import type { TurnQueueDeps } from '../session/queued-turns.ts';

/** A resume entry of a RunAgentInput. */
export interface ResumeEntry {
  interruptId: string;
  status: 'resolved' | 'cancelled';
  payload?: unknown;
}

/** The turn a resume runs and where its messages begin (undefined: the session's message count now). */
export interface ResumedTurn {
  turnId: string;
  fromSeq?: number;
}

interface Answer {
  to: string;
  comment?: string;
  fields?: Record<string, unknown>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The decision a resolved entry's payload carries.
 * @throws PlatformError `invalid_decision` (400) without a `to` (naming `options`), `invalid_decision_fields` (400)
 *   when `fields` is not an object
 */
export function answerOf(entry: ResumeEntry, options: readonly string[]): Answer {
  const payload = isRecord(entry.payload) ? entry.payload : {};
  if (typeof payload.to !== 'string') {
    const why = `The resume entry's payload needs "to", one of: ${options.join(', ')}.`;
    throw new PlatformError('invalid_decision', why, { status: 400 });
  }
  if (payload.fields !== undefined && !isRecord(payload.fields)) {
    const why = `The resume entry's "fields" is an object of field name to value.`;
    throw new PlatformError('invalid_decision_fields', why, { status: 400 });
  }
  return {
    to: payload.to,
    ...(typeof payload.comment === 'string' ? { comment: payload.comment } : {}),
    ...(payload.fields === undefined ? {} : { fields: payload.fields as Record<string, unknown> }),
  };
}

/** Takes the decision a resolved entry carries, by `by`, through the one decision path (channel `agui`). */
export async function resumeDecision(
  deps: TurnQueueDeps,
  session: SessionRecord,
  entry: ResumeEntry,
  by: string,
): Promise<string> {
  const pending = session.pending;
  const options = pending?.kind === 'decision' ? pending.options.map((o) => o.to) : [];
  const answer = answerOf(entry, options);
  return (await takeDecision(deps, session, { ...answer, channel: 'agui' }, by))._id;
}

const sameAnswer = (answer: Answer, taken: DecisionInput | undefined): boolean =>
  taken !== undefined && !taken.expired && taken.to === answer.to &&
  (taken.comment ?? undefined) === (answer.comment ?? undefined) &&
  JSON.stringify(taken.fields ?? {}) === JSON.stringify(answer.fields ?? {});

/**
 * A resume entry that answers an interrupt of this session already decided: the first answer's turn when this one
 * is the same (so sending a resume twice gives one decision and one run), undefined when no entry names a decided
 * interrupt (the caller goes on as usual).
 * @throws PlatformError `decision_taken` (409) when the decision was taken otherwise (another answer, or it expired)
 */
export async function repeatedResume(
  deps: Pick<TurnQueueDeps, 'docs'>,
  session: SessionRecord,
  entries: readonly ResumeEntry[] | undefined,
): Promise<ResumedTurn | undefined> {
  // The pending decision still open (a decided one stays on the record until its turn clears it).
  const current = session.status === 'awaiting_decision' ? session.pending?.id : undefined;
  if (current !== undefined && (entries ?? []).some((e) => e.interruptId === current)) return undefined;
  for (const entry of entries ?? []) {
    if (entry.status !== 'resolved' || typeof entry.interruptId !== 'string') continue;
    const first = await decisionTurnOf(deps, session, entry.interruptId);
    if (!first) continue;
    const taken = first.turn.input.decision;
    const answer = isRecord(entry.payload) ? entry.payload as unknown as Answer : undefined;
    if (answer && sameAnswer(answer, taken)) return { turnId: first.turn._id, fromSeq: first.fromSeq };
    const how = taken?.expired ? `it expired and the session moved to "${taken.to}"` : `"${taken?.to}" was chosen`;
    throw new PlatformError(
      'decision_taken',
      `Interrupt ${entry.interruptId} was already answered otherwise: ${how}; a decision is taken once.`,
      { status: 409 },
    );
  }
  return undefined;
}
