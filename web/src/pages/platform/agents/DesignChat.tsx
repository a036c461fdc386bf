/**
 * The Design tab's chat with the design agent, over AG-UI like the Chat page (../chat/conversation.ts against
 * `POST …/design`): the agent's text, one compact line per tool call (its name and the file it works on, e.g.
 * "design_write_file workflows/chat/workflow.yaml"; a validation says whether the draft is valid), errors; a message
 * box (Enter sends, Shift+Enter adds a line). "New chat" starts afresh; "Chat" picks one of the member's earlier
 * chats on the environment, whose messages are read back (`GET /api/sessions/:id`) and whose thread the next message
 * continues. `onRunEnded` runs after every run, so the files and changes are read again.
 *
 * Source: issue "The design agent" § Front doors; docs/endpoints.md § AG-UI; docs/decisions.md D21.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore, type FormEvent } from 'react';
import { Button, ErrorMessage, Loading } from '../../../ui/kit.tsx';
import type { Conversation } from '../chat/conversation.ts';
import { emptyTranscript, type TranscriptItem } from '../chat/transcript.ts';
import {
  type DesignChatView, designKeys, type DesignInfo, newDesignConversation, openDesignChat,
} from './design-queries.ts';

type ConfiguredInfo = Extract<DesignInfo, { configured: true }>;

/** The chat of `env` of `agent`: `conversation` is the one shown (none: a new chat opens on the first message). */
export function DesignChat({ agent, env, info, conversation, onChoose, onRunEnded }: {
  agent: string; env: string; info: ConfiguredInfo; conversation: Conversation | undefined;
  onChoose(conversation: Conversation | undefined): void; onRunEnded(): void;
}) {
  const client = useQueryClient();
  const { opening, open } = useOpenChat(agent, env, onChoose);
  const state = useSyncExternalStore(
    conversation?.subscribe ?? noSubscribe,
    conversation?.snapshot ?? noSnapshot,
  );
  useRunEnded(state.running, onRunEnded);
  useEffect(() => {
    if (!conversation) return;
    conversation.onThread = () => void client.invalidateQueries({ queryKey: designKeys.design(agent, env) });
  }, [conversation, agent, env, client]);

  const send = (text: string) => {
    const target = conversation ?? newDesignConversation(agent, env);
    if (!conversation) onChoose(target);
    void target.send(text);
  };
  const threadId = opening?.threadId ?? state.threadId ?? '';
  return (
    <>
      <div className="design-chat-head">
        <h2 id="design-chat-heading">Design chat</h2>
        <span className="muted small">model <code>{info.model}</code></span>
      </div>
      <div className="design-chat-controls">
        <ChatPicker chats={info.chats} value={threadId} onPick={(id) => void open(id)} disabled={state.running} />
        <Button onClick={() => void open('')} disabled={state.running || (!conversation && !opening)}>New chat</Button>
      </div>
      {opening?.error ? (
        <ErrorMessage
          error={opening.error} title="Could not open this chat" retry={() => void open(opening.threadId)}
        />
      ) : null}
      {opening && !opening.error ? <Loading what="Loading the chat" /> : null}
      {!opening ? <DesignTranscript items={state.items} running={state.running} onSend={send} /> : null}
    </>
  );
}

/** Opening an earlier chat by thread id (`''`: a new chat): the chat being opened, or why it could not be. */
function useOpenChat(agent: string, env: string, onChoose: (conversation: Conversation | undefined) => void) {
  const [opening, setOpening] = useState<{ threadId: string; error?: unknown } | undefined>();
  const open = async (threadId: string) => {
    if (!threadId) {
      onChoose(undefined);
      return;
    }
    setOpening({ threadId });
    try {
      onChoose(await openDesignChat(agent, env, threadId));
      setOpening(undefined);
    } catch (error) {
      setOpening({ threadId, error });
    }
  };
  return { opening, open };
}

/** Calls `onRunEnded` when a run ends (`running` goes from true to false). */
function useRunEnded(running: boolean, onRunEnded: () => void) {
  const wasRunning = useRef(running);
  useEffect(() => {
    if (wasRunning.current && !running) onRunEnded();
    wasRunning.current = running;
  }, [running, onRunEnded]);
}

/** The transcript (or what to ask, before the first message), the working line, and the message box. */
function DesignTranscript({ items, running, onSend }: {
  items: TranscriptItem[]; running: boolean; onSend(text: string): void;
}) {
  return (
    <>
      {items.length === 0 ? (
        <p className="muted small">
          Ask the design agent to build or change this environment’s draft: it reads and writes the files and
          validates them. Nothing is published until you publish.
        </p>
      ) : null}
      <ol className="chat-transcript design-transcript" aria-label="Design chat messages" aria-live="polite">
        {items.map((item) => <Entry key={item.key} item={item} />)}
        {running ? <li className="chat-running"><Loading what="The design agent is working" /></li> : null}
      </ol>
      <DesignComposer running={running} onSend={onSend} />
    </>
  );
}

const noSubscribe = () => () => undefined;
const idle = { ...emptyTranscript(), title: '', endpoint: '' };
const noSnapshot = () => idle;

/** The member's earlier chats on the environment (newest first), and "New chat". */
function ChatPicker({ chats, value, onPick, disabled }: {
  chats: DesignChatView[]; value: string; onPick(threadId: string): void; disabled: boolean;
}) {
  const listed = chats.some((c) => c.threadId === value);
  return (
    <div className="field design-chat-picker">
      <label htmlFor="design-chat-picker">Chat</label>
      <select id="design-chat-picker" value={value} disabled={disabled} onChange={(e) => onPick(e.target.value)}>
        <option value="">New chat</option>
        {value && !listed ? <option value={value}>This chat</option> : null}
        {chats.map((c) => <option key={c.threadId} value={c.threadId}>{chatLabel(c)}</option>)}
      </select>
    </div>
  );
}

function chatLabel(chat: DesignChatView): string {
  const status = chat.status.replace(/_/g, ' ');
  return `${new Date(chat.startedAt).toLocaleString()} · ${status} · $${chat.costUsd.toFixed(4)}`;
}

/** One entry of the transcript: user and agent text, a tool call as one line, a notice or an error. */
function Entry({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case 'user':
      return (
        <li className="chat-msg chat-msg-user">
          <span className="chat-who">You</span><p className="pre-wrap">{item.text}</p>
        </li>
      );
    case 'assistant':
      return (
        <li className="chat-msg chat-msg-assistant" aria-busy={item.streaming || undefined}>
          <span className="chat-who">Design agent</span><p className="pre-wrap">{item.text}</p>
        </li>
      );
    case 'tool':
      return <li className="design-tool"><ToolLine item={item} /></li>;
    case 'notice':
      return <li className="notice small">{item.text}</li>;
    case 'error':
      return (
        <li className="error-box" role="alert">
          <strong>Error{item.code ? ` (${item.code})` : ''}</strong><p className="pre-wrap">{item.message}</p>
        </li>
      );
    default:
      return null;
  }
}

/** "design_write_file workflows/chat/workflow.yaml", with how it went. */
function ToolLine({ item }: { item: Extract<TranscriptItem, { kind: 'tool' }> }) {
  const input = parsed(item.args) as { path?: unknown } | undefined;
  const path = typeof input?.path === 'string' ? input.path : undefined;
  const outcome = !item.done ? { text: 'running', cls: '' }
    : item.isError || failed(item.result) ? { text: 'failed', cls: ' badge-error' }
    : { text: validation(item) ?? 'done', cls: ' badge-ok' };
  return (
    <>
      <code>{item.name}</code>{path ? <> <span className="design-tool-path">{path}</span></> : null}
      {' '}<span className={`badge${outcome.cls}`}>{outcome.text}</span>
    </>
  );
}

/** A validation's verdict ("valid", "3 problems"), when the result says. */
function validation(item: Extract<TranscriptItem, { kind: 'tool' }>): string | undefined {
  if (item.name !== 'design_validate') return undefined;
  const result = parsed(item.result ?? '') as { ok?: unknown; problems?: unknown[] } | undefined;
  if (result?.ok === true) return 'valid';
  if (result?.ok === false) {
    const count = result.problems?.length ?? 0;
    return `${count} problem${count === 1 ? '' : 's'}`;
  }
  return undefined;
}

/** Whether a tool's result is an error answer (`{error: {code, message}}`). */
function failed(result: string | undefined): boolean {
  const value = parsed(result ?? '') as { error?: unknown } | undefined;
  return typeof value?.error === 'object' && value.error !== null;
}

function parsed(text: string): unknown {
  try { return JSON.parse(text); } catch { return undefined; }
}

/** The message box: Enter sends (not while a run goes), Shift+Enter adds a line. */
function DesignComposer({ running, onSend }: { running: boolean; onSend(text: string): void }) {
  const [text, setText] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (running || !text.trim()) return;
    onSend(text.trim());
    setText('');
  };
  return (
    <form className="chat-composer" onSubmit={submit}>
      <label htmlFor="design-message">Message to the design agent</label>
      <textarea
        id="design-message" rows={3} value={text} onChange={(e) => setText(e.target.value)} aria-keyshortcuts="Enter"
        placeholder="Add a workflow that…"
        onKeyDown={(e) => {
          if (e.key !== 'Enter' || e.shiftKey || e.altKey || e.nativeEvent.isComposing) return;
          e.preventDefault();
          if (!running && text.trim()) e.currentTarget.form?.requestSubmit();
        }}
      />
      <div className="actions">
        <span className="hint">Enter sends · Shift+Enter adds a line</span>
        <Button kind="primary" type="submit" disabled={running || !text.trim()} busy={running}>Send</Button>
      </div>
    </form>
  );
}
