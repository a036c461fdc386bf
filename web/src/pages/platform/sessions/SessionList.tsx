/**
 * The Sessions list: filters (Agent, Environment, Workflow, Status, From, To), a page of root sessions newest
 * first, each row a link to its session page. Paged by the server (Previous / Next).
 *
 * Source: docs/decisions.md D10 § Sessions (list with filters: agent, environment, workflow, status, date).
 */
import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { sessionStatuses } from '../../../../../core/session/model.ts';
import { Button, ErrorMessage, Loading, PageHeader, RelativeTime, SelectField, TextField } from '../../../ui/kit.tsx';
import { listPageSize, noFilters, statusClass, statusText, usd, useSessionList, type SessionFilters } from './session-queries.ts';

/** The list page (`/sessions`). */
export function SessionList() {
  const [draft, setDraft] = useState<SessionFilters>(noFilters);
  const [filters, setFilters] = useState<SessionFilters>(noFilters);
  const [offset, setOffset] = useState(0);
  const list = useSessionList(filters, offset);
  const set = (key: keyof SessionFilters) => (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value });
  const apply = (e: FormEvent) => { e.preventDefault(); setFilters(draft); setOffset(0); };
  const clear = () => { setDraft(noFilters); setFilters(noFilters); setOffset(0); };
  const sessions = list.data?.sessions ?? [];
  return (
    <section className="sessions-page">
      <PageHeader title="Sessions" />
      <form className="session-filters" onSubmit={apply} aria-label="Filter sessions">
        <TextField label="Agent" value={draft.agent} onChange={set('agent')} placeholder="slug or id" />
        <TextField label="Environment" value={draft.env} onChange={set('env')} placeholder="e.g. main" />
        <TextField label="Workflow" value={draft.workflow} onChange={set('workflow')} />
        <SelectField label="Status" value={draft.status} onChange={set('status')} options={[['', 'Any'], ...sessionStatuses.map((s): [string, string] => [s, statusText(s)])]} />
        <TextField label="From" type="date" value={draft.from} onChange={set('from')} />
        <TextField label="To" type="date" value={draft.to} onChange={set('to')} />
        <div className="session-filter-actions">
          <Button kind="primary" type="submit">Apply filters</Button>
          <Button onClick={clear}>Clear</Button>
        </div>
      </form>
      {list.isPending ? <Loading what="Loading sessions" /> : list.isError ? <ErrorMessage error={list.error} retry={() => void list.refetch()} title="Could not load the sessions" /> : sessions.length === 0 ? (
        <p className="muted">No sessions match these filters.</p>
      ) : (
        <ul className="session-rows" aria-label="Sessions">
          {sessions.map((s) => (
            <li key={s.id}>
              <Link href={`/sessions/${s.id}`} className="session-row">
                <span className="session-row-main"><strong>{s.workflow}</strong> <span className="muted">· {s.agentSlug ?? s.agentId} on {s.environment}</span></span>
                <span className={statusClass(s.status)}>{statusText(s.status)}</span>
                <span className="session-row-meta">state {s.state} · {usd(s.usage.costUsd)} · <RelativeTime at={s.createdAt} /> · {s.trigger}</span>
              </Link>
            </li>
          ))}
        </ul>
      )}
      {offset > 0 || list.data?.hasMore ? (
        <nav className="pager" aria-label="Pages">
          <Button onClick={() => setOffset(Math.max(0, offset - listPageSize))} disabled={offset === 0}>Newer</Button>
          <span>Sessions {offset + 1}–{offset + sessions.length}</span>
          <Button onClick={() => setOffset(offset + listPageSize)} disabled={!list.data?.hasMore}>Older</Button>
        </nav>
      ) : null}
    </section>
  );
}
