/**
 * Queries and helpers of the sessions pages: the list (`GET /api/sessions`), one session (`GET /api/sessions/:id`),
 * its timeline (`…/timeline`, docs/decisions.md D25), and how statuses look. Shapes come from
 * core/session/session-views.ts and core/session/timeline-views.ts.
 *
 * Source: spec/platform-service.md § Session facts named; docs/decisions.md D10 § Sessions.
 */
import { useQuery } from '@tanstack/react-query';
import { api } from '../../../api/client.ts';
import type { SessionDetailView, SessionListView, SessionView } from '../../../../../core/session/session-views.ts';
import type { SessionTimelineView } from '../../../../../core/session/timeline-views.ts';

/** Filters of the list, as typed in the form (empty: not filtered). `from`/`to` are YYYY-MM-DD (UTC days, inclusive). */
export interface SessionFilters { agent: string; env: string; workflow: string; status: string; from: string; to: string }

/** No filter. */
export const noFilters: SessionFilters = { agent: '', env: '', workflow: '', status: '', from: '', to: '' };

/** Sessions on one page of the list. */
export const listPageSize = 25;

/** Query keys of the sessions pages. */
export const sessionKeys = {
  all: ['sessions'] as const,
  list: (filters: SessionFilters, offset: number) => ['sessions', 'list', filters, offset] as const,
  one: (id: string) => ['sessions', 'one', id] as const,
  timeline: (id: string) => ['sessions', 'timeline', id] as const,
};

/** `GET /api/sessions` with the filters set, newest first, one page from `offset`. */
export function useSessionList(filters: SessionFilters, offset: number) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value.trim()) query.set(key, value.trim());
  query.set('offset', String(offset));
  query.set('limit', String(listPageSize));
  return useQuery({ queryKey: sessionKeys.list(filters, offset), queryFn: () => api<SessionListView>(`/api/sessions?${query}`) });
}

/** True while a turn may still change the session (polled every 2 s then). */
export const isBusy = (s: SessionView | undefined): boolean => s?.status === 'running';

/** `GET /api/sessions/:id`, polled every 2 s while the session runs. */
export function useSession(id: string) {
  return useQuery({
    queryKey: sessionKeys.one(id),
    queryFn: () => api<SessionDetailView>(`/api/sessions/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (isBusy(q.state.data?.session) ? 2000 : false),
  });
}

/** `GET /api/sessions/:id/timeline` (one request for every turn and step), polled every 2 s while `busy`. */
export function useSessionTimeline(id: string, busy: boolean) {
  return useQuery({
    queryKey: sessionKeys.timeline(id),
    queryFn: () => api<SessionTimelineView>(`/api/sessions/${encodeURIComponent(id)}/timeline`),
    refetchInterval: busy ? 2000 : false,
  });
}

/** The badge class of a status: ok (succeeded), error (failed), warn (waiting for someone), plain otherwise. */
export function statusClass(status: string): string {
  if (status === 'succeeded') return 'badge badge-ok';
  if (status === 'failed') return 'badge badge-error';
  if (status === 'awaiting_decision' || status === 'awaiting_input') return 'badge badge-warn';
  return 'badge';
}

/** A status in words (`awaiting_decision` → `awaiting decision`). */
export const statusText = (status: string): string => status.replace(/_/g, ' ');

/** Dollars with 4 decimals. */
export const usd = (value: number | undefined): string => `$${(value ?? 0).toFixed(4)}`;

/**
 * True when `session` still waits for decision `decisionId` (for any decision when undefined): the check both the
 * session page and Chat make before deciding, so a stale page or a second tab is told where the session went
 * instead of being refused.
 */
export function awaitsDecision(session: Pick<SessionView, 'status' | 'pending'>, decisionId?: string): boolean {
  const pending = session.pending;
  return session.status === 'awaiting_decision' && pending?.kind === 'decision' && (decisionId === undefined || pending.id === decisionId);
}
