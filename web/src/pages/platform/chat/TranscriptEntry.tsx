/**
 * The entries of the Chat page's transcript (ChatPage.tsx): the member's messages (with their place while queued
 * behind a running turn), the assistant's, tool calls folded with their input and result, sub-workflow blocks,
 * notices (a turn stopped by a new message as a quiet note), errors, a wait, and a decision with its options.
 * Entries of a turn a rollback discarded are greyed and say so: their messages are gone from the session.
 *
 * Source: docs/decisions.md D10 § Chat, D27 § 1; spec/platform-service.md § Stream and custom events.
 */
import { useState } from 'react';
import { Button, RelativeTime, TextField } from '../../../ui/kit.tsx';
import type { Conversation, ConversationState } from './conversation.ts';
import { queuedLabel } from './runs.ts';
import { pendingDecision, type SubWorkflowBlock, type TranscriptItem } from './transcript.ts';

/**
 * One entry of the transcript. An entry a rollback discarded is greyed (class `chat-discarded`) and a message says
 * "discarded" beside who wrote it.
 */
export function TranscriptEntry({ item, state, conversation }: { item: TranscriptItem; state: ConversationState; conversation: Conversation }) {
  const cls = (base: string) => (item.discarded ? `${base} chat-discarded` : base);
  const who = (name: string) => <span className="chat-who">{name}{item.discarded ? <span className="chat-discarded-tag"> · discarded</span> : null}</span>;
  switch (item.kind) {
    case 'user': return (
      <li className={cls('chat-msg chat-msg-user')}>
        {who('You')}
        {item.queued ? <> <span className="badge chat-queued" role="status">{queuedLabel(item.queued)}</span></> : null}
        <p className="pre-wrap">{item.text}</p>
      </li>
    );
    case 'assistant': return <li className={cls('chat-msg chat-msg-assistant')} aria-busy={item.streaming || undefined}>{who(state.title)}<p className="pre-wrap">{item.text}</p></li>;
    case 'tool': return <li className={cls('chat-tool small')}><ToolCall item={item} /></li>;
    case 'sub': return <li className={cls('chat-sub-item')}><SubBlock block={item.block} /></li>;
    case 'notice': return <li className={item.stopped ? 'chat-stopped small' : 'notice small'} role={item.stopped ? 'status' : undefined}>{item.text}</li>;
    case 'error': return <li className="error-box" role="alert"><strong>Error{item.code ? ` (${item.code})` : ''}</strong><p className="pre-wrap">{item.message}</p></li>;
    case 'wait': return (
      <li className="chat-wait notice">
        <strong>Waiting</strong>: {item.message}
        {item.expiresAt ? <> · until <time dateTime={item.expiresAt}>{new Date(item.expiresAt).toLocaleString()}</time> (<RelativeTime at={item.expiresAt} />)</> : null}
        <span className="small muted"> · a message answers it.</span>
      </li>
    );
    case 'decision': return <DecisionEntry item={item} state={state} conversation={conversation} />;
  }
}

/**
 * A tool call, folded: its name and state; opened, its input (an SQL query shown as SQL) and its result, so a
 * member sees the semantic queries behind an answer.
 */
function ToolCall({ item }: { item: Extract<TranscriptItem, { kind: 'tool' }> }) {
  const input = parsed(item.args);
  const sql = input && typeof input === 'object' && typeof (input as { sql?: unknown }).sql === 'string' ? (input as { sql: string }).sql : undefined;
  const state = !item.done ? 'running' : item.isError ? 'failed' : 'done';
  return (
    <details>
      <summary>Tool <code>{item.name}</code> <span className={`badge${state === 'failed' ? ' badge-error' : ''}`}>{state}</span></summary>
      {sql ? <><p className="chat-tool-caption">SQL</p><pre className="chat-tool-sql" aria-label="SQL">{sql}</pre></> : null}
      <p className="chat-tool-caption">Input</p>
      <pre className="chat-tool-io" aria-label="Input">{input === undefined ? item.args : JSON.stringify(input, null, 2)}</pre>
      {item.result !== undefined ? <><p className="chat-tool-caption">Result</p><pre className="chat-tool-io" aria-label="Result">{item.result}</pre></> : null}
    </details>
  );
}

function parsed(text: string): unknown {
  try { return JSON.parse(text); } catch { return undefined; }
}

/** A decision of the transcript: its options as buttons, with an optional comment, while it is pending. */
function DecisionEntry({ item, state, conversation }: { item: Extract<TranscriptItem, { kind: 'decision' }>; state: ConversationState; conversation: Conversation }) {
  const [comment, setComment] = useState('');
  const isPending = pendingDecision(state)?.key === item.key;
  const note = state.decisionNote?.interruptId === item.interruptId ? state.decisionNote.text : undefined;
  return (
    <li className="chat-decision card">
      <strong>{note ? 'Decision' : 'Decision needed'}</strong>
      {/* The options are listed below with their descriptions: the message's own list of them is left out. */}
      <p>{item.options.length > 0 && item.message.includes(':') ? `${item.message.split(':')[0]}.` : item.message}</p>
      {isPending && !note ? (
        <>
          <TextField label="Comment (optional)" value={comment} maxLength={10000} onChange={(e) => setComment(e.target.value)} hint="Recorded with the decision in the session's trail." />
          <ul className="chat-options" aria-label="Options">
            {item.options.map((o) => (
              <li key={o.to}>
                <Button kind="primary" busy={state.deciding === item.interruptId} onClick={() => void conversation.decide(item.interruptId, o.to, comment.trim() || undefined)}>{o.to}</Button>
                {o.description ? <span className="small">{o.description}</span> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {note ? <p className="small" role="status">{note}</p> : null}
    </li>
  );
}

/** A child session as a collapsible block, its children nested. */
function SubBlock({ block }: { block: SubWorkflowBlock }) {
  return (
    <details className="chat-sub">
      <summary>
        Sub-workflow {block.workflow} <span className="muted small">(dispatch {block.dispatchId})</span>{' '}
        <span className={`badge${block.result?.status === 'succeeded' ? ' badge-ok' : ''}`}>{block.result ? block.result.status : 'running'}</span>
      </summary>
      <ol className="chat-sub-frames" aria-label={`Messages of sub-workflow ${block.workflow}`}>
        {block.frames.map((f, i) => <li key={i} className="small"><span className="chat-who">{f.role}</span> <span className="pre-wrap">{f.text}</span></li>)}
      </ol>
      {block.children.map((child) => <SubBlock key={child.dispatchId} block={child} />)}
      {block.result?.message ? <p className="small">Result: {block.result.message}</p> : null}
    </details>
  );
}

