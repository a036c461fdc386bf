/**
 * Sessions (`/sessions`, `/sessions/<id>`): the filtered list across the agents the member reads, and one
 * session's page with its trail, messages, tool calls, children, usage and cost, and its actions.
 *
 * Source: docs/decisions.md D10 § Sessions; spec/platform-service.md § Session facts named.
 */
import './sessions/sessions.css';
import { SessionDetail } from './sessions/SessionDetail.tsx';
import { SessionList } from './sessions/SessionList.tsx';

/** The sessions pages: the list without `id`, one session with it. */
export function SessionsPage({ id }: { id?: string }) {
  return id ? <SessionDetail id={id} /> : <SessionList />;
}
