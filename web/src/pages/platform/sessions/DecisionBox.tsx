/**
 * The Decision box of a session's page: the pending decision's options as buttons, a comment, an input per declared
 * field (text, number, checkbox, JSON text for an object or list; required ones marked) and when the decision expires
 * ("expires in 2 h", and where the session goes then). Deciding sends `to`, the comment and `fields`; a decision
 * already taken (another tab) shows where the session went instead of an error.
 *
 * Source: docs/decisions.md D26 § 2; D10 § Sessions.
 */
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, ApiError } from '../../../api/client.ts';
import type { DecisionFieldSpec } from '../../../../../core/session/model.ts';
import type { SessionDetailView, SessionView, TurnQueuedView } from '../../../../../core/session/session-views.ts';
import { Button, ErrorMessage, RelativeTime, TextArea, TextField } from '../../../ui/kit.tsx';
import { emptyDrafts, fieldValues, type FieldDrafts, inputOf } from './decision-fields.ts';
import { awaitsDecision } from './session-queries.ts';

type DecisionPending = Extract<NonNullable<SessionView['pending']>, { kind: 'decision' }>;

/** The box; `onDone` is told what to show (a decision taken, or already taken) and refreshes the page. */
export function DecisionBox({ session, pending, onDone }: { session: SessionView; pending: DecisionPending; onDone: (note: string) => void }) {
  const fields = pending.fields ?? [];
  const [comment, setComment] = useState('');
  const [drafts, setDrafts] = useState<FieldDrafts>(() => emptyDrafts(fields));
  const [problem, setProblem] = useState<string>();
  const decide = useDecide({ session, pending, comment, onDone });
  const choose = (to: string) => {
    const checked = fieldValues(fields, drafts);
    if ('problem' in checked) { setProblem(checked.problem); return; }
    setProblem(undefined);
    decide.mutate({ to, values: checked.values });
  };
  const set = (name: string, value: string | boolean) => setDrafts((d) => ({ ...d, [name]: value }));
  return (
    <div className="session-card">
      <h2>Decision in {pending.state}</h2>
      {pending.expiresAt ? (
        <p className="decision-expiry">Expires <RelativeTime at={pending.expiresAt} />{pending.expiresTo ? <>; then the session goes to <strong>{pending.expiresTo}</strong></> : null}.</p>
      ) : null}
      {fields.map((f) => <FieldInput key={f.name} field={f} value={drafts[f.name]} onChange={(value) => set(f.name, value)} />)}
      <TextField label="Comment (optional)" value={comment} maxLength={10000} onChange={(e) => setComment(e.target.value)} hint="Recorded with the decision in the session's trail." />
      <ul className="session-options">
        {pending.options.map((o) => (
          <li key={o.to}>
            <Button kind="primary" busy={decide.isPending && decide.variables?.to === o.to} disabled={decide.isPending} onClick={() => choose(o.to)}>{o.to}</Button>
            {o.description ? <span className="muted"> {o.description}</span> : null}
          </li>
        ))}
      </ul>
      {problem ? <p role="alert" className="error-text">{problem}</p> : null}
      {decide.isError ? <ErrorMessage error={decide.error} title="Could not decide" /> : null}
    </div>
  );
}

/**
 * Deciding: sends `to`, the comment and the fields' values (POST …/decide) after reading the session again, so a
 * decision already taken (another tab, a double click) tells `onDone` where it went instead of failing.
 */
function useDecide({ session, pending, comment, onDone }: {
  session: SessionView; pending: DecisionPending; comment: string; onDone: (note: string) => void;
}) {
  const fields = pending.fields ?? [];
  const path = `/api/sessions/${encodeURIComponent(session.id)}`;
  const alreadyTaken = 'This decision was already taken; the page shows where the session went.';
  const decide = useMutation({
    mutationFn: async ({ to, values }: { to: string; values: Record<string, unknown> }): Promise<TurnQueuedView | null> => {
      // This page may be stale (another tab decided): look first, so a second decision is answered without a refusal.
      const now = await api<SessionDetailView>(path);
      if (!awaitsDecision(now.session, pending.id)) return null;
      const body = { to, ...(comment.trim() ? { comment: comment.trim() } : {}), ...(fields.length > 0 ? { fields: values } : {}) };
      return api<TurnQueuedView>(`${path}/decide`, { method: 'POST', body });
    },
    onSuccess: (turn, { to }) => onDone(turn ? `Decided: ${to}.` : alreadyTaken),
    onError: (error) => {
      // A second decision (another tab, a double click) is not an error for the person: show where it went.
      if (error instanceof ApiError && error.code === 'no_decision_pending') { decide.reset(); onDone(alreadyTaken); }
    },
  });
  return decide;
}

/** The input of one declared field: a checkbox, JSON text, or a text or number field (required ones marked). */
function FieldInput({ field: f, value, onChange }: { field: DecisionFieldSpec; value: string | boolean | undefined; onChange: (value: string | boolean) => void }) {
  const label = `${f.name}${f.required ? ' (required)' : ' (optional)'}`;
  const kind = inputOf(f);
  if (kind === 'checkbox') {
    return (
      <label className="field field-checkbox">
        <input type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} /> {f.name}
        {f.description ? <span className="hint"> {f.description}</span> : null}
      </label>
    );
  }
  if (kind === 'json') {
    return <TextArea label={label} rows={3} value={String(value ?? '')} onChange={(e) => onChange(e.target.value)} hint={f.description ?? `JSON (${f.type})`} />;
  }
  return (
    <TextField label={label} type={kind === 'number' ? 'number' : 'text'} step={f.type === 'integer' ? 1 : 'any'}
      required={f.required} value={String(value ?? '')} onChange={(e) => onChange(e.target.value)} hint={f.description} />
  );
}
