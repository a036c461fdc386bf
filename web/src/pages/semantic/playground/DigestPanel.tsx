/**
 * The digest an agent reads, page by page: get_semantic_model's overview, one scope (datasets,
 * relationships, metrics) with Previous page / Next page exactly as an agent pages, and get_datasets
 * for chosen datasets with their field page.
 *
 * Source: spec/semantic-query-service.md § Tools (get_semantic_model, get_datasets); docs/decisions.md D9.
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { PlaygroundPlane } from '../../../../../core/semantic/api/playground.ts';
import type { SectionScope } from '../../../../../core/semantic/digest/section-rows.ts';
import { Button, ErrorMessage, Loading, SelectField, TextField } from '../../../ui/kit.tsx';
import { callTool } from './mcp.ts';
import { RawResult, ToolError } from './ResultView.tsx';

/** The section asked for; '' is the overview. */
type Scope = '' | SectionScope;

/** One tools/call shown as the agent reads it. */
function ToolText({ slug, plane, tool, args }: { slug: string; plane: PlaygroundPlane; tool: string; args: Record<string, unknown> }) {
  const call = useQuery({ queryKey: ['project', slug, 'playground', plane, tool, args], queryFn: () => callTool(slug, plane, tool, args), retry: false, staleTime: Infinity, refetchOnWindowFocus: false });
  if (call.isPending) return <Loading what={`Calling ${tool}`} />;
  if (call.isError) return <ErrorMessage error={call.error} title={`${tool} could not be called`} retry={() => void call.refetch()} />;
  return (
    <div>
      <p className="muted small pre-wrap">{tool} {JSON.stringify(args)}</p>
      {call.data.isError ? <ToolError result={call.data} /> : <pre className="pg-pre pg-digest">{call.data.text}</pre>}
      <RawResult result={call.data} />
    </div>
  );
}

/** The digest panel for `model` on `plane`. */
export function DigestPanel({ slug, plane, model }: { slug: string; plane: PlaygroundPlane; model: string }) {
  const [scope, setScope] = useState<Scope>('');
  const [page, setPage] = useState(1);
  const [datasetText, setDatasetText] = useState('');
  const [fieldPage, setFieldPage] = useState('1');
  const [asked, setAsked] = useState<{ name: string; page?: number }[] | null>(null);
  if (!model) return <p className="empty">Choose a model to read its digest.</p>;
  const modelArgs: Record<string, unknown> = scope ? { modelName: model, scope, page } : { modelName: model };
  const askDatasets = () => {
    const names = datasetText.split(',').map((n) => n.trim()).filter(Boolean).slice(0, 10);
    const n = Number(fieldPage);
    setAsked(names.map((name) => (Number.isInteger(n) && n > 1 ? { name, page: n } : { name })));
  };
  return (
    <div>
      <h3>get_semantic_model</h3>
      <div className="field-row">
        <SelectField label="Section" value={scope} onChange={(e) => { setScope(e.target.value as Scope); setPage(1); }}
          options={[['', 'Overview (first page of each section)'], ['datasets', 'Datasets'], ['relationships', 'Relationships'], ['metrics', 'Metrics']]} />
      </div>
      {scope ? (
        <nav className="pager" aria-label="Digest pages">
          <Button onClick={() => setPage(page - 1)} disabled={page <= 1}>Previous page</Button>
          <span>Page {page}</span>
          <Button onClick={() => setPage(page + 1)}>Next page</Button>
        </nav>
      ) : null}
      <ToolText slug={slug} plane={plane} tool="get_semantic_model" args={modelArgs} />
      <h3>get_datasets</h3>
      <div className="field-row">
        <TextField label="Datasets" hint="1 to 10 dataset names, separated by commas" value={datasetText} onChange={(e) => setDatasetText(e.target.value)} />
        <TextField label="Field page" type="number" min={1} value={fieldPage} onChange={(e) => setFieldPage(e.target.value)} />
      </div>
      <Button onClick={askDatasets} disabled={!datasetText.trim()}>Get datasets</Button>
      {asked ? <ToolText slug={slug} plane={plane} tool="get_datasets" args={{ modelName: model, datasets: asked }} /> : null}
    </div>
  );
}
