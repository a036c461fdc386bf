/**
 * Playground of a semantic project: runs SQL against the test endpoint (saved sources) or the production
 * endpoint (published build) with a chosen model and params through the project's REAL MCP endpoints (the
 * MCP SDK client with the member's playground token), and shows the result, truncation and errors exactly
 * as an agent sees them, plus the digest an agent would read, page by page.
 * Starts from the address `?model=…&sql=…&params=<json>&plane=test|production` (Monitoring's Refine).
 *
 * Source: spec/semantic-query-service.md § What the service does 2, § Tools, § Errors, § Limits;
 * docs/decisions.md D9.
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearch } from 'wouter';
import type { PlaygroundPlane } from '../../../../core/semantic/api/playground.ts';
import { Button, ErrorMessage, Loading, SelectField, TextArea, TextField } from '../../ui/kit.tsx';
import { DigestPanel } from './playground/DigestPanel.tsx';
import { callTool } from './playground/mcp.ts';
import { modelNamesOf, readPlaygroundStart } from './playground/refine.ts';
import { QueryResultView } from './playground/ResultView.tsx';
import './playground/playground.css';

const planes: [PlaygroundPlane, string][] = [['test', 'Test (saved sources)'], ['production', 'Production (published)']];

/** /projects/<slug>/playground */
export function PlaygroundPage({ slug }: { slug: string }) {
  const search = useSearch();
  const [start] = useState(() => readPlaygroundStart(search));
  const [plane, setPlane] = useState<PlaygroundPlane>(start.plane);
  const [model, setModel] = useState(start.model);
  const [sql, setSql] = useState(start.sql);
  const [params, setParams] = useState<string[]>(start.params);
  const models = useQuery({
    queryKey: ['project', slug, 'playground', plane, 'list_semantic_models'],
    queryFn: () => callTool(slug, plane, 'list_semantic_models', {}),
    retry: false, refetchOnWindowFocus: false,
  });
  const names = models.data && !models.data.isError ? modelNamesOf(models.data.text) : [];
  const chosen = model || names[0] || '';
  const run = useMutation({ mutationFn: () => callTool(slug, plane, 'execute_query', { modelName: chosen, sql, params }) });
  const modelOptions: [string, string][] = [...new Set([...(model ? [model] : []), ...names])].map((n) => [n, names.includes(n) ? n : `${n} (not listed for this endpoint)`]);
  return (
    <div className="pg-layout">
      <section className="card pg-query" aria-labelledby="pg-query-title">
        <h2 id="pg-query-title">Query</h2>
        <fieldset className="pg-planes">
          <legend>Endpoint</legend>
          {planes.map(([value, label]) => (
            <label key={value} className="pg-plane">
              <input type="radio" name="pg-plane" value={value} checked={plane === value} onChange={() => { setPlane(value); run.reset(); }} /> {label}
            </label>
          ))}
        </fieldset>
        {models.isPending ? <Loading what="Listing the models (list_semantic_models)" /> : models.isError ? <ErrorMessage error={models.error} title="The endpoint could not be reached" retry={() => void models.refetch()} /> : models.data.isError ? <pre className="pg-pre">{models.data.text}</pre> : null}
        {models.data && !models.data.isError && names.length === 0 ? <pre className="pg-pre">{models.data.text}</pre> : null}
        {modelOptions.length > 0 ? <SelectField label="Model" value={chosen} onChange={(e) => setModel(e.target.value)} options={modelOptions} /> : null}
        <TextArea label="SQL" rows={8} spellCheck={false} value={sql} onChange={(e) => setSql(e.target.value)} hint="Bare dataset names; $1, $2 … are bound from the params below." />
        <ParamsEditor params={params} onChange={setParams} />
        <div className="actions">
          <Button kind="primary" onClick={() => run.mutate()} busy={run.isPending} disabled={!chosen || !sql.trim()}>Run query</Button>
          {!chosen ? <span className="muted small">Choose a model first.</span> : null}
        </div>
        <div aria-live="polite">
          {run.isPending ? <Loading what="Running execute_query" /> : null}
          {run.isError ? <ErrorMessage error={run.error} title="The query could not be sent" /> : null}
          {run.data ? <QueryResultView result={run.data} /> : null}
        </div>
      </section>
      <section className="card pg-digest-panel" aria-labelledby="pg-digest-title">
        <h2 id="pg-digest-title">Digest</h2>
        <DigestPanel key={`${plane}\n${chosen}`} slug={slug} plane={plane} model={chosen} />
      </section>
    </div>
  );
}

/** execute_query's params: a list of strings bound to $1, $2 … */
function ParamsEditor({ params, onChange }: { params: string[]; onChange: (next: string[]) => void }) {
  return (
    <fieldset className="pg-params">
      <legend>Params</legend>
      {params.length === 0 ? <p className="muted small">No params.</p> : null}
      {params.map((value, i) => (
        <div key={i} className="pg-param">
          <TextField label={`$${i + 1}`} value={value} onChange={(e) => onChange(params.map((p, j) => (j === i ? e.target.value : p)))} />
          <Button onClick={() => onChange(params.filter((_, j) => j !== i))} aria-label={`Remove param $${i + 1}`}>Remove</Button>
        </div>
      ))}
      <Button onClick={() => onChange([...params, ''])}>Add param</Button>
    </fieldset>
  );
}
