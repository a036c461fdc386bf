/**
 * How an AG-UI run ends: RUN_FINISHED with its outcome (an interrupt describing a pending decision with its
 * response schema and expiry, or a wait; `cancelled`; success; `result.interrupted` for a turn a new message
 * stopped), RUN_ERROR for a failed turn, and RUN_ERROR `message_dropped` for a queued message its chat ended before.
 *
 * Source: spec/platform-service.md § AG-UI request (rule 6), § Tool-call result status (AG-UI turn parked);
 * docs/decisions.md D8 § Endpoints (AG-UI), D26 § 2, D27 § 1.
 */
import { EventType } from '@ag-ui/core';
import type { PendingWork, SessionRecord, TurnRecord } from '../session/model.ts';
import { fieldsJsonSchema } from '../session/decision-terms.ts';
import type { StartedRun } from './agui-run-model.ts';

/** RUN_ERROR of a queued message the chat ended before (cancelled, failed or done): it never ran. */
export function droppedEvent(session: SessionRecord | null): object {
  const why = session ? `it is ${session.status}` : 'it was not found';
  return {
    type: EventType.RUN_ERROR,
    code: 'message_dropped',
    message: `The chat ended before this message ran (${why}); it was not sent to the workflow.`,
  };
}

/**
 * The JSON Schema of a decision interrupt's resume payload: `{to, comment?, fields?}`, `fields` the JSON Schema of
 * the decision's declared fields (type object, properties, required), required when one of them is
 * (docs/decisions.md D26 § 2).
 */
export function decisionResponseSchema(pending: Extract<PendingWork, { kind: 'decision' }>): Record<string, unknown> {
  const fields = fieldsJsonSchema(pending.fields);
  const needsFields = (fields.required as string[]).length > 0;
  return {
    type: 'object',
    properties: {
      to: { type: 'string', enum: pending.options.map((o) => o.to) },
      comment: { type: 'string' },
      ...(pending.fields ? { fields } : {}),
    },
    required: needsFields ? ['to', 'fields'] : ['to'],
  };
}

/**
 * RUN_FINISHED (with its outcome) or RUN_ERROR for the session as its turn left it; a turn a new message stopped
 * finishes with `result.interrupted` (D27 § 1).
 */
export function finishEvent(
  run: Pick<StartedRun, 'threadId' | 'runId'>,
  session: SessionRecord | null,
  interrupted?: TurnRecord['interrupted'],
): object {
  const base = { threadId: run.threadId, runId: run.runId };
  if (!session) return { type: EventType.RUN_ERROR, message: "The chat's session was not found.", code: 'not_found' };
  const result = { status: session.status, sessionId: session._id, ...(interrupted ? { interrupted: true } : {}) };
  const pending = session.pending;
  if (session.status === 'awaiting_decision' && pending?.kind === 'decision') {
    const choices = pending.options.map((o) => `${o.to} (${o.description})`).join('; ');
    return {
      type: EventType.RUN_FINISHED,
      ...base,
      result,
      outcome: {
        type: 'interrupt',
        interrupts: [{
          id: pending.id,
          reason: 'decision',
          message: `A decision is needed in state ${pending.state}: ${choices}.`,
          ...(pending.expiresAt ? { expiresAt: pending.expiresAt } : {}),
          responseSchema: decisionResponseSchema(pending),
          metadata: {
            state: pending.state,
            options: pending.options,
            ...(pending.dispatchId ? { dispatchId: pending.dispatchId } : {}),
            ...(pending.expiresTo ? { expiresTo: pending.expiresTo } : {}),
            ...(pending.fields ? { fields: pending.fields } : {}),
          },
        }],
      },
    };
  }
  if (session.status === 'awaiting_input' && pending?.kind === 'input' && pending.wait) {
    return {
      type: EventType.RUN_FINISHED,
      ...base,
      result,
      outcome: {
        type: 'interrupt',
        interrupts: [{
          id: pending.id,
          reason: 'wait',
          message: pending.reason,
          ...(pending.until ? { expiresAt: pending.until } : {}),
          responseSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
        }],
      },
    };
  }
  if (session.status === 'cancelled') {
    return { type: EventType.RUN_FINISHED, ...base, result, outcome: { type: 'cancelled' } };
  }
  if (session.status === 'failed') {
    return {
      type: EventType.RUN_ERROR,
      message: session.error?.message ?? 'The turn failed.',
      code: session.error?.code ?? 'failed',
    };
  }
  return { type: EventType.RUN_FINISHED, ...base, result, outcome: { type: 'success' } };
}
