/**
 * Improvement requests agents submitted about the project's models (request_improvement): the list
 * (paged) with model, title, description, when and status; a filter Open / Done / All; Mark done and Reopen.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields (improvement request), § Tools
 * (request_improvement); docs/decisions.md D9 (Improvement requests: list, mark done).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ImprovementStatusFilter, ImprovementView } from '../../../../core/semantic/api/access.ts';
import { api, projectPath } from '../../api/client.ts';
import { Button, ErrorMessage, Loading, RelativeTime, usePaged } from '../../ui/kit.tsx';
import { accessKeys, improvementsLimit, useImprovements } from './access/queries.ts';
import './access/access.css';

const filters: [ImprovementStatusFilter, string][] = [['open', 'Open'], ['done', 'Done'], ['all', 'All']];

/** /projects/<slug>/improvements */
export function ImprovementsPage({ slug }: { slug: string }) {
  const [status, setStatus] = useState<ImprovementStatusFilter>('open');
  const improvements = useImprovements(slug, status);
  return (
    <div>
      <p className="muted">Agents send these through the <code>request_improvement</code> tool when a model lacks something they needed. Mark one done once the model covers it.</p>
      <div className="segmented" role="group" aria-label="Show">
        {filters.map(([value, label]) => <Button key={value} aria-pressed={status === value} onClick={() => setStatus(value)}>{label}</Button>)}
      </div>
      {improvements.isPending ? <Loading what="Loading improvement requests" /> : improvements.isError ? <ErrorMessage error={improvements.error} retry={() => void improvements.refetch()} /> : (
        improvements.data.length === 0
          ? <p className="empty">{status === 'open' ? 'No open improvement requests.' : status === 'done' ? 'No improvement request is marked done yet.' : 'No improvement requests yet: agents send them with the request_improvement tool.'}</p>
          : <ImprovementsTable slug={slug} items={improvements.data} />
      )}
      {improvements.data?.length === improvementsLimit ? <p className="muted small">Showing the newest {improvementsLimit}; mark some done to see older ones under Open.</p> : null}
    </div>
  );
}

function ImprovementsTable({ slug, items }: { slug: string; items: ImprovementView[] }) {
  const { rows, pager } = usePaged(items);
  return (
    <>
      <div className="table-wrap">
        <table className="stack-table">
          <thead><tr><th scope="col">Model</th><th scope="col">Title</th><th scope="col">Description</th><th scope="col">When</th><th scope="col">Status</th><th scope="col"><span className="muted">Actions</span></th></tr></thead>
          <tbody>{rows.map((item) => <ImprovementRow key={item.id} slug={slug} item={item} />)}</tbody>
        </table>
      </div>
      {pager}
    </>
  );
}

function ImprovementRow({ slug, item }: { slug: string; item: ImprovementView }) {
  const queries = useQueryClient();
  const change = useMutation({
    mutationFn: (done: boolean) => api<ImprovementView>(projectPath(slug, `/improvements/${encodeURIComponent(item.id)}/done`), { method: done ? 'POST' : 'DELETE' }),
    onSuccess: () => void queries.invalidateQueries({ queryKey: accessKeys.improvements(slug) }),
  });
  return (
    <tr>
      <td data-label="Model"><code>{item.modelName}</code></td>
      <td data-label="Title"><strong>{item.title}</strong></td>
      <td data-label="Description"><span className="improvement-description">{item.description}</span></td>
      <td data-label="When" className="nowrap"><RelativeTime at={item.createdAt} /></td>
      <td data-label="Status">
        {item.status === 'done'
          ? <span><span className="badge badge-ok">done</span> <span className="small muted">{item.doneBy ? `by ${item.doneBy}, ` : ''}<RelativeTime at={item.doneAt} /></span></span>
          : <span className="badge badge-warn">open</span>}
      </td>
      <td data-label="Actions">
        {item.status === 'done'
          ? <Button busy={change.isPending} onClick={() => change.mutate(false)}>Reopen</Button>
          : <Button kind="primary" busy={change.isPending} onClick={() => change.mutate(true)}>Mark done</Button>}
        {change.isError ? <ErrorMessage error={change.error} title={item.status === 'done' ? 'Not reopened' : 'Not marked done'} /> : null}
      </td>
    </tr>
  );
}
