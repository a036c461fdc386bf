/**
 * Monitoring of a semantic project: the call log (every tools/call through its endpoints, playground calls
 * marked) with the filter bar (Tool: only tools actually called; Status; Token; From and To, both inclusive),
 * newest first and paged; a row opens the full input and output with "Refine in playground"; plots of calls
 * and errors over time and of execute_query latency (p50/p95), drawn with uPlot.
 *
 * Source: spec/semantic-query-service.md § What the service does 5, § Resources (call log entry), § Events; docs/decisions.md D9.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import type { CallList, CallStatsView, CallTokenList, CallTokenView, CallView } from '../../../../core/semantic/api/monitoring.ts';
import { api, projectPath } from '../../api/client.ts';
import { Button, ErrorMessage, Loading, RelativeTime, SelectField, TextField, usePaged } from '../../ui/kit.tsx';
import { CallDetail } from './monitoring/CallDetail.tsx';
import { TimeChart } from './monitoring/TimeChart.tsx';
import './playground/playground.css';
import './monitoring/monitoring.css';

/** New calls show up by themselves: the log and the plots are read again this often while the page is visible (15 s). */
const refreshMs = 15_000;

/** Entries read per filter (the API's maximum); older ones are reached by narrowing the date range. */
const callsRead = 500;

interface Filters { tool: string; status: '' | 'success' | 'error'; token: string; from: string; to: string }
const noFilters: Filters = { tool: '', status: '', token: '', from: '', to: '' };

function queryString(filters: Filters, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...filters, ...extra })) if (value) q.set(key, value);
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** /projects/<slug>/monitoring */
export function MonitoringPage({ slug }: { slug: string }) {
  const [filters, setFilters] = useState<Filters>(noFilters);
  const [openId, setOpenId] = useState<string | null>(null);
  const set = (patch: Partial<Filters>) => { setFilters({ ...filters, ...patch }); setOpenId(null); };
  const calls = useQuery({ queryKey: ['project', slug, 'calls', filters], queryFn: () => api<CallList>(projectPath(slug, `/calls${queryString(filters, { limit: String(callsRead) })}`)), placeholderData: keepPreviousData, refetchInterval: refreshMs });
  const stats = useQuery({ queryKey: ['project', slug, 'calls', 'stats', filters], queryFn: () => api<CallStatsView>(projectPath(slug, `/calls/stats${queryString(filters)}`)), placeholderData: keepPreviousData, refetchInterval: refreshMs });
  const tokens = useQuery({ queryKey: ['project', slug, 'calls', 'tokens'], queryFn: () => api<CallTokenList>(projectPath(slug, '/calls/tokens')).then((r) => r.tokens) });
  const tokenById = useMemo(() => new Map((tokens.data ?? []).map((t) => [t.id, t])), [tokens.data]);
  const known = calls.data?.tools ?? [];
  const open = calls.data?.calls.find((c) => c._id === openId);
  const refresh = () => { void calls.refetch(); void stats.refetch(); void tokens.refetch(); };
  return (
    <div>
      <form className="card mon-filters" aria-label="Filter the call log" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Tool" value={filters.tool} onChange={(e) => set({ tool: e.target.value })} options={[['', 'All tools'], ...known.map((t): [string, string] => [t, t]), ...(filters.tool && !known.includes(filters.tool) ? [[filters.tool, filters.tool] as [string, string]] : [])]} />
        <SelectField label="Status" value={filters.status} onChange={(e) => set({ status: e.target.value as Filters['status'] })} options={[['', 'All'], ['success', 'Success only'], ['error', 'Errors only']]} />
        <SelectField label="Token" value={filters.token} onChange={(e) => set({ token: e.target.value })} options={[['', tokens.isError ? 'All tokens (names could not be loaded)' : 'All tokens'], ...(tokens.data ?? []).map((t): [string, string] => [t.id, tokenLabel(t)])]} />
        <TextField label="From" type="date" value={filters.from} max={filters.to || undefined} onChange={(e) => set({ from: e.target.value })} />
        <TextField label="To" type="date" value={filters.to} min={filters.from || undefined} onChange={(e) => set({ to: e.target.value })} />
        <div className="actions mon-filter-actions">
          <Button onClick={() => { setFilters(noFilters); setOpenId(null); }} disabled={filters === noFilters}>Clear filters</Button>
          <Button onClick={refresh}>Refresh</Button>
          <span className="muted small">From and To are whole UTC days, both included. Without them the plots show the last 24 hours. New calls appear every 15 s.</span>
        </div>
      </form>
      <Charts stats={stats} />
      {open ? <CallDetail slug={slug} call={open} token={tokenById.get(open.tokenId)} onClose={() => setOpenId(null)} /> : null}
      <section aria-labelledby="mon-log-title">
        <h2 id="mon-log-title">Calls</h2>
        {calls.isPending ? <Loading what="Loading the call log" /> : calls.isError ? <ErrorMessage error={calls.error} retry={() => void calls.refetch()} /> : (
          <CallRows calls={calls.data.calls} tokenById={tokenById} openId={openId} onOpen={setOpenId} capped={calls.data.calls.length >= callsRead} />
        )}
      </section>
    </div>
  );
}

function tokenLabel(t: CallTokenView): string {
  return `${t.name} (${t.displayPrefix}…)${t.playground ? ' · playground' : ''}`;
}

function Charts({ stats }: { stats: { isPending: boolean; isError: boolean; error: unknown; data?: CallStatsView; refetch: () => unknown } }) {
  const data = stats.data;
  const chart = useMemo(() => {
    if (!data) return null;
    const times = data.buckets.map((b) => Date.parse(b.start));
    return {
      times,
      calls: [{ label: 'Calls', stroke: '#2b6cb0', values: data.buckets.map((b) => b.calls) }, { label: 'Errors', stroke: '#c53030', values: data.buckets.map((b) => b.errors) }],
      latency: [{ label: 'p50', stroke: '#2f855a', values: data.buckets.map((b) => b.latencyP50Ms) }, { label: 'p95', stroke: '#b7791f', values: data.buckets.map((b) => b.latencyP95Ms) }],
    };
  }, [data]);
  if (stats.isPending) return <Loading what="Loading the plots" />;
  if (stats.isError || !data || !chart) return <ErrorMessage error={stats.error} title="The plots could not be loaded" retry={() => void stats.refetch()} />;
  return (
    <section className="mon-charts" aria-label="Plots">
      <p className="muted small">
        {new Date(data.from).toLocaleString()} – {new Date(data.to).toLocaleString()}, {data.bucketMinutes} min per point
        {data.sampled ? ' · more than 20,000 calls matched: the plots count the newest 20,000' : ''}
      </p>
      <div className="mon-chart-grid">
        <TimeChart title="Calls and errors" times={chart.times} series={chart.calls} unit="calls" />
        <TimeChart title="Query latency (execute_query)" times={chart.times} series={chart.latency} unit="ms" />
      </div>
    </section>
  );
}

function CallRows({ calls, tokenById, openId, onOpen, capped }: { calls: CallView[]; tokenById: Map<string, CallTokenView>; openId: string | null; onOpen: (id: string) => void; capped: boolean }) {
  const { rows, pager } = usePaged(calls);
  if (calls.length === 0) return <p className="empty">No calls match. Calls appear here once an agent (or the Playground) uses this project's endpoints.</p>;
  return (
    <>
      {capped ? <p className="notice">Showing the newest {callsRead} matching calls: narrow the date range to see older ones.</p> : null}
      <ul className="mon-rows">
        {rows.map((c) => {
          const token = tokenById.get(c.tokenId);
          return (
            <li key={c._id}>
              <button type="button" className={`mon-row${c._id === openId ? ' open' : ''}`} aria-expanded={c._id === openId} onClick={() => onOpen(c._id)}>
                <span className="mon-tool">{c.tool}</span>
                <span className={`badge ${c.status === 'error' ? 'badge-error' : 'badge-ok'}`}>{c.status}</span>
                {token?.playground ? <span className="badge">playground</span> : null}
                <span className="mon-meta"><RelativeTime at={c.at} /> · {token ? token.name : c.tokenId} · {c.plane} · {Math.round(c.durationMs)} ms{c.modelName ? ` · ${c.modelName}` : ''}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {pager}
    </>
  );
}
