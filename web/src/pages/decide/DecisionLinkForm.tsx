/**
 * The form of a decision link's page: the options as a choice (each its description, and the state it moves to), an
 * input per declared field as the session page's Decision box has them (text, number, checkbox, JSON text for an
 * object or a list), a comment, "Expires in 2 h; then it moves to …" (or when the link lapses), and Decide, which
 * sends `{to, comment?, fields?}`. A refusal naming a field (400) is shown next to that field and the form stays; a
 * link that ended meanwhile (404, 410) is handed to the page.
 *
 * Source: docs/decisions.md D26 § 3 (decision links), § 2 (fields and expiry).
 */
import { useMutation } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import type { DecisionFieldSpec } from '../../../../core/session/model.ts';
import { ApiError } from '../../api/client.ts';
import { Button, ErrorMessage, RelativeTime, TextArea } from '../../ui/kit.tsx';
import { emptyDrafts, type FieldDrafts, inputOf } from '../platform/sessions/decision-fields.ts';
import {
  decideThroughLink, fieldNamedIn, type LinkDecisionBody, type LinkDecisionView, linkEndedText, linkFieldValues,
} from './decision-link.ts';

/** The form; `onDecided` gets the option decided, `onEnded` a refusal saying the link no longer works. */
export function DecisionLinkForm({ token, view, onDecided, onEnded }: {
  token: string;
  view: LinkDecisionView;
  onDecided: (to: string) => void;
  onEnded: (error: unknown) => void;
}) {
  const fields = view.fields ?? [];
  const [to, setTo] = useState<string>();
  const [comment, setComment] = useState('');
  const [drafts, setDrafts] = useState<FieldDrafts>(() => emptyDrafts(fields));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [choiceProblem, setChoiceProblem] = useState<string>();
  const decide = useMutation({
    mutationFn: (body: LinkDecisionBody) => decideThroughLink(token, body),
    onSuccess: (_turn, body) => onDecided(body.to),
    onError: (error) => {
      if (linkEndedText(error) !== undefined) { onEnded(error); return; }
      if (!(error instanceof ApiError) || error.status !== 400) return;
      const field = fieldNamedIn(error.message, fields);
      if (field !== undefined) { setProblems({ [field]: error.message }); decide.reset(); return; }
      if (error.code === 'invalid_decision') { setChoiceProblem(error.message); decide.reset(); }
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setChoiceProblem(to === undefined ? 'Choose one of the options.' : undefined);
    const checked = linkFieldValues(fields, drafts);
    setProblems(checked.problems);
    if (to === undefined || Object.keys(checked.problems).length > 0) return;
    const text = comment.trim();
    decide.mutate({ to, ...(text ? { comment: text } : {}), ...(fields.length > 0 ? { fields: checked.values } : {}) });
  };
  return (
    <form noValidate onSubmit={submit}>
      <h1>Decision in {view.state}</h1>
      <Expiry view={view} />
      <fieldset className="decide-options">
        <legend>What happens next</legend>
        {view.options.map((o) => (
          <label key={o.to} className="decide-option">
            <input type="radio" name="to" value={o.to} checked={to === o.to} onChange={() => { setTo(o.to); setChoiceProblem(undefined); }} />
            <span className="decide-option-text">
              <span>{o.description || o.to}</span>
              <span className="muted small">moves to {o.to}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {choiceProblem ? <p role="alert" className="decide-error">{choiceProblem}</p> : null}
      {fields.map((f) => (
        <FieldInput key={f.name} field={f} value={drafts[f.name]} problem={problems[f.name]}
          onChange={(value) => setDrafts((d) => ({ ...d, [f.name]: value }))} />
      ))}
      <TextArea label="Comment (optional)" rows={3} value={comment} maxLength={10000} onChange={(e) => setComment(e.target.value)}
        hint="Recorded with the decision." />
      <Button kind="primary" type="submit" busy={decide.isPending}>Decide</Button>
      {decide.isError ? <ErrorMessage error={decide.error} title="Could not decide" /> : null}
    </form>
  );
}

/** "Expires in 2 h; then it moves to lapsed." for a decision that expires, else "This link expires in 7 d." */
function Expiry({ view }: { view: LinkDecisionView }) {
  if (!view.expiresAt) return null;
  return (
    <p className="decide-expiry">
      {view.expiresTo
        ? <>Expires <RelativeTime at={view.expiresAt} />; then it moves to <strong>{view.expiresTo}</strong>.</>
        : <>This link expires <RelativeTime at={view.expiresAt} />.</>}
    </p>
  );
}

/** One declared field's input, with the problem the page or the platform found in it right under it. */
function FieldInput({ field, value, problem, onChange }: {
  field: DecisionFieldSpec;
  value: string | boolean | undefined;
  problem: string | undefined;
  onChange: (value: string | boolean) => void;
}) {
  const id = useId();
  const kind = inputOf(field);
  const described = [field.description ? `${id}-hint` : '', problem ? `${id}-problem` : ''].filter(Boolean).join(' ') || undefined;
  const common = { id, 'aria-invalid': problem ? true : undefined, 'aria-describedby': described, 'aria-required': field.required || undefined };
  return (
    <div className={kind === 'checkbox' ? 'field decide-checkbox' : 'field'}>
      {kind === 'checkbox' ? (
        <label htmlFor={id}><input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} /> {field.name}</label>
      ) : (
        <>
          <label htmlFor={id}>{field.name}{field.required ? ' (required)' : ' (optional)'}</label>
          {kind === 'json'
            ? <textarea {...common} rows={3} value={String(value ?? '')} onChange={(e) => onChange(e.target.value)} />
            : <input {...common} type={kind === 'number' ? 'number' : 'text'} step={field.type === 'integer' ? 1 : 'any'}
                value={String(value ?? '')} onChange={(e) => onChange(e.target.value)} />}
        </>
      )}
      {field.description || kind === 'json'
        ? <span id={`${id}-hint`} className="hint">{field.description ?? `JSON (${field.type})`}</span> : null}
      {problem ? <p id={`${id}-problem`} role="alert" className="decide-error">{problem}</p> : null}
    </div>
  );
}
