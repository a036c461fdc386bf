/**
 * One session's page (`/sessions/<id>`): header (workflow, agent and environment, status, started, trigger, and the
 * evaluation run and case of an evaluation's session, linking to the run on the environment's Evaluations tab), the
 * pending decision's options as buttons with its fields and expiry (DecisionBox.tsx, docs/decisions.md D26 § 2),
 * Reply when it awaits input, Cancel (with a confirm step), the trail of states (a decision's channel), the timeline of its turns and their steps (Timeline.tsx, docs/decisions.md D25), the messages with their
 * tool calls and statuses, the turns, child sessions, usage and cost. Polls every
 * 2 s while a turn runs. Deciding twice is harmless: the second answer shows where the session went.
 *
 * Source: spec/platform-service.md § Session facts named, § Tool-call result status; docs/decisions.md D10 § Sessions.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api } from '../../../api/client.ts';
import type { MessageView, SessionView, ToolResultView, TurnQueuedView } from '../../../../../core/session/session-views.ts';
import { Button, ErrorMessage, Loading, PageHeader, RelativeTime, TextArea } from '../../../ui/kit.tsx';
import { DecisionBox } from './DecisionBox.tsx';
import { isBusy, sessionKeys, statusClass, statusText, usd, useSession } from './session-queries.ts';
import { Timeline } from './Timeline.tsx';

/** The session page. */
export function SessionDetail({ id }: { id: string }) {
  const shown = useSession(id);
  if (shown.isPending) return <Loading what="Loading the session" />;
  if (shown.isError) return <ErrorMessage error={shown.error} retry={() => void shown.refetch()} title="Could not load the session" />;
  const { session, messages, turns, children } = shown.data;
  return (
    <section className="session-page">
      <p><Link href="/sessions">← All sessions</Link></p>
      <PageHeader title={<>{session.workflow} <span className={statusClass(session.status)}>{statusText(session.status)}</span></>} />
      <dl className="session-facts">
        <div><dt>Agent</dt><dd><Link href={`/agents/${session.agentSlug ?? session.agentId}`}>{session.agentSlug ?? session.agentId}</Link></dd></div>
        <div><dt>Environment</dt><dd>{session.environment}</dd></div>
        <div><dt>State</dt><dd>{session.state}</dd></div>
        <div><dt>Started</dt><dd><RelativeTime at={session.createdAt} /></dd></div>
        <div><dt>Trigger</dt><dd>{session.trigger}</dd></div>
        {session.evaluation ? <div><dt>Evaluation</dt><dd>case {session.evaluation.caseId} of run <Link href={evaluationRunHref(session)}>{session.evaluation.runId}</Link></dd></div> : null}
        {session.parentId ? <div><dt>Parent</dt><dd><Link href={`/sessions/${session.parentId}`}>{session.parentId}</Link> (dispatch {session.dispatchId})</dd></div> : null}
        <div><dt>Session id</dt><dd className="session-id">{session.id}</dd></div>
      </dl>
      {isBusy(session) ? <p className="muted" role="status">A turn is running; this page refreshes every 2 seconds.</p> : null}
      {session.error ? <p className="session-error" role="alert">{session.error.message} ({session.error.code})</p> : null}
      <Actions session={session} />
      <h2>Trail</h2>
      <ol className="session-trail" aria-label="Trail">
        {session.trail.map((t, i) => (
          <li key={i}><strong>{t.state}</strong> <span className="muted">← {t.via}</span>{t.note ? <> · {t.note}</> : null}{t.by ? <span className="muted"> (by {t.by}{t.channel ? ` via ${t.channel}` : ''})</span> : null} · <RelativeTime at={t.at} /></li>
        ))}
      </ol>
      <Timeline sessionId={session.id} busy={isBusy(session)} />
      <h2>Messages</h2>
      <Messages messages={messages} />
      <h2>Usage and cost</h2>
      <dl className="session-facts">
        <div><dt>Input tokens</dt><dd>{session.usage.inputTokens}</dd></div>
        <div><dt>Output tokens</dt><dd>{session.usage.outputTokens}</dd></div>
        <div><dt>Cache read / write</dt><dd>{session.usage.cacheReadTokens} / {session.usage.cacheWriteTokens}</dd></div>
        <div><dt>Model calls</dt><dd>{session.usage.modelCalls}</dd></div>
        <div><dt>Cost</dt><dd>{usd(session.usage.costUsd)}{session.usage.estimatedCalls ? <> (estimated for {session.usage.estimatedCalls} of {session.usage.modelCalls} model calls: the provider reported no usage)</> : null}</dd></div>
      </dl>
      <details className="session-section">
        <summary>Turns ({turns.length})</summary>
        <ul className="session-list-plain">
          {turns.map((t) => <li key={t.id}>{t.kind} <span className={statusClass(t.status)}>{statusText(t.status)}</span> · {usd(t.usage.costUsd)} · <RelativeTime at={t.queuedAt} />{t.error ? <> · {t.error.message}</> : null}</li>)}
        </ul>
      </details>
      <details className="session-section" open={children.length > 0}>
        <summary>Child sessions ({children.length})</summary>
        {children.length === 0 ? <p className="muted">None.</p> : (
          <ul className="session-list-plain">
            {children.map((c) => <li key={c.id}><Link href={`/sessions/${c.id}`}>{c.workflow} (dispatch {c.dispatchId})</Link> <span className={statusClass(c.status)}>{statusText(c.status)}</span> · {usd(c.usage.costUsd)}</li>)}
          </ul>
        )}
      </details>
    </section>
  );
}

/** The Evaluations tab of the session's environment with its evaluation run chosen. */
const evaluationRunHref = (s: SessionView): string =>
  `/agents/${encodeURIComponent(s.agentSlug ?? s.agentId)}/environments/${encodeURIComponent(s.environment)}/evaluations` +
  `?run=${encodeURIComponent(s.evaluation?.runId ?? '')}`;

/** Decide, Reply and Cancel. */
function Actions({ session }: { session: SessionView }) {
  const client = useQueryClient();
  const [note, setNote] = useState<string>();
  const [reply, setReply] = useState('');
  const [confirming, setConfirming] = useState(false);
  const refresh = () => client.invalidateQueries({ queryKey: sessionKeys.all });
  const path = `/api/sessions/${encodeURIComponent(session.id)}`;
  const send = useMutation({
    mutationFn: () => api<TurnQueuedView>(`${path}/reply`, { method: 'POST', body: { message: reply } }),
    onSuccess: () => { setReply(''); setNote('Reply sent.'); void refresh(); },
  });
  const cancel = useMutation({
    mutationFn: () => api<{ session: SessionView }>(`${path}/cancel`, { method: 'POST', body: {} }),
    onSuccess: () => { setConfirming(false); setNote('Session cancelled.'); void refresh(); },
  });
  const ended = session.status === 'succeeded' || session.status === 'failed' || session.status === 'cancelled';
  const pending = session.pending;
  return (
    <div className="session-actions">
      {note ? <p role="status" className="session-note">{note}</p> : null}
      {pending?.kind === 'decision' && session.status === 'awaiting_decision' ? (
        <DecisionBox key={pending.id} session={session} pending={pending} onDone={(text) => { setNote(text); void refresh(); }} />
      ) : null}
      {session.status === 'awaiting_input' ? (
        <form className="session-card" onSubmit={(e) => { e.preventDefault(); if (reply.trim()) send.mutate(); }}>
          {pending?.kind === 'input' ? <p>{pending.reason}{pending.until ? <> (resumes <RelativeTime at={pending.until} />)</> : null}</p> : null}
          <TextArea label="Reply" value={reply} onChange={(e) => setReply(e.target.value)} rows={3} />
          <Button kind="primary" type="submit" busy={send.isPending} disabled={!reply.trim()}>Send reply</Button>
          {send.isError ? <ErrorMessage error={send.error} title="Could not send the reply" /> : null}
        </form>
      ) : null}
      {!ended ? (
        <div className="session-cancel">
          {confirming ? (
            <>
              <span>Cancel this session and its child sessions? This cannot be undone.</span>
              <Button kind="danger" busy={cancel.isPending} onClick={() => cancel.mutate()}>Yes, cancel session</Button>
              <Button onClick={() => setConfirming(false)}>Keep it</Button>
            </>
          ) : <Button kind="danger" onClick={() => setConfirming(true)}>Cancel session</Button>}
          {cancel.isError ? <ErrorMessage error={cancel.error} title="Could not cancel" /> : null}
        </div>
      ) : null}
    </div>
  );
}

const asText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value, null, 2) ?? '');

/** The thread: user and assistant texts, each tool call with its status (ok, error, or waiting for its result). */
function Messages({ messages }: { messages: MessageView[] }) {
  const results = new Map<string, ToolResultView>();
  for (const m of messages) if (m.message.role === 'tool') for (const r of m.message.results) results.set(r.callId, r);
  const shown = messages.filter((m) => m.message.role !== 'tool' && m.message.role !== 'system');
  if (shown.length === 0) return <p className="muted">No messages yet.</p>;
  return (
    <ol className="session-messages" aria-label="Messages">
      {shown.map((m) => {
        if (m.message.role === 'tool') return null;
        const { role, content, toolCalls = [] } = m.message;
        return (
          <li key={m.seq} className={`session-message session-message-${role}`}>
            <div className="session-message-head"><strong>{role}</strong> <span className="muted">in {m.state} · <RelativeTime at={m.at} /></span></div>
            {content ? <p className="session-message-text">{content}</p> : null}
            {toolCalls.length > 0 ? (
              <ul className="session-tool-calls" aria-label="Tool calls">
                {toolCalls.map((call) => {
                  const result = results.get(call.id);
                  const status = !result ? 'pending' : result.isError ? 'error' : 'ok';
                  return (
                    <li key={call.id}>
                      <details>
                        <summary><code>{call.name}</code> <span className={status === 'ok' ? 'badge badge-ok' : status === 'error' ? 'badge badge-error' : 'badge'}>{status}</span></summary>
                        <pre className="session-pre">{asText(call.input)}</pre>
                        {result ? <pre className="session-pre">{asText(result.output)}</pre> : null}
                      </details>
                    </li>
                  );
                })}
              </ul>
            ) : null}
          </li>
        );
      })}
    </ol>
  );
}

