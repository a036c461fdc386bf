/**
 * The Create token form: a name, the models it may reach (checkboxes, at least one) and an optional
 * expiry date. On success it hands the created token (raw value included) to the page, which shows it once.
 *
 * Source: spec/semantic-query-service.md § Authentication 1 (scopes and an optional expiry); docs/decisions.md D9 (MCP
 * Access).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { CreatedTokenView, CreateTokenBody } from '../../../../../core/semantic/api/access.ts';
import { api, projectPath } from '../../../api/client.ts';
import { Button, ErrorMessage, TextField } from '../../../ui/kit.tsx';
import { accessKeys } from './queries.ts';

/** Today as YYYY-MM-DD in UTC: the earliest expiry the API takes (a date means the end of that UTC day). */
function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/** The form; `models` are the project's model names; `onCreated` gets the 201 body; `onCancel` closes it. */
export function CreateToken({ slug, models, onCreated, onCancel }: { slug: string; models: string[]; onCreated: (created: CreatedTokenView) => void; onCancel: () => void }) {
  const queries = useQueryClient();
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<string[]>(models.length === 1 ? models : []);
  const [expiresOn, setExpiresOn] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const create = useMutation({
    mutationFn: (body: CreateTokenBody) => api<CreatedTokenView>(projectPath(slug, '/tokens'), { body }),
    onSuccess: (created) => { void queries.invalidateQueries({ queryKey: accessKeys.tokens(slug) }); onCreated(created); },
  });
  const toggle = (model: string, on: boolean) => setChosen((list) => (on ? [...list, model] : list.filter((m) => m !== model)));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (chosen.length === 0) { setProblem('Choose at least one model the token may reach.'); return; }
    setProblem(undefined);
    create.mutate({ ...(name.trim() ? { name: name.trim() } : {}), models: models.filter((m) => chosen.includes(m)), ...(expiresOn ? { expiresAt: expiresOn } : {}) });
  };
  return (
    <form className="card" onSubmit={submit} aria-label="Create token" noValidate>
      <h2>Create token</h2>
      <TextField label="Token name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} placeholder="e.g. analytics agent" hint="Shown in the list so you can tell tokens apart." autoFocus />
      {models.length === 0 ? (
        <p className="notice">This project has no models yet: add a model file in the Editor, then create a token for it.</p>
      ) : (
        <fieldset className="model-checks" aria-describedby="scope-hint">
          <legend>Models (scopes)</legend>
          {models.map((model) => (
            <label key={model}><input type="checkbox" checked={chosen.includes(model)} onChange={(e) => toggle(model, e.target.checked)} />{model}</label>
          ))}
          <span id="scope-hint" className="hint" style={{ display: 'block' }}>The token reaches only the models ticked here; at least one.</span>
        </fieldset>
      )}
      <div className="expiry-field"><TextField label="Expires on (optional)" type="date" value={expiresOn} min={todayUtc()} onChange={(e) => setExpiresOn(e.target.value)} hint="The token stops working at the end of that day (UTC). Leave empty for no expiry." /></div>
      {problem ? <p className="error-box" role="alert">{problem}</p> : null}
      {create.isError ? <ErrorMessage error={create.error} title="The token was not created" /> : null}
      <div className="actions">
        <Button kind="primary" type="submit" busy={create.isPending} disabled={models.length === 0}>Create</Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
