/**
 * Chat (`/chat`, `/chat/<threadId>`): members talk to published workflows. The start view lists the workflows the
 * member may use (workflows:use) as cards with their chat examples (a click puts the example in the composer,
 * unsent); the conversation streams over AG-UI through `@ag-ui/client` (conversation.ts); a pending decision shows
 * its options inline; a wait shows what it waits for and until when; child sessions are collapsible sub-workflow
 * blocks, never mixed into the assistant's text. The history panel lists the member's own chats; opening one shows
 * its messages (`GET /api/sessions/:id`) and its thread id continues it. The composer stays usable while the
 * workflow works (docs/decisions.md D27: each message sent meanwhile is its own run, queued or stopping the running
 * turn as the chat's trigger says); a message the chat refuses comes back to the composer.
 *
 * Source: docs/decisions.md D10 § Chat, D27 § 1; spec/platform-service.md § What the service does, § Stream and custom events; docs/endpoints.md § AG-UI.
 */
import './chat.css';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore, type FormEvent, type Ref } from 'react';
import { Link, useLocation } from 'wouter';
import { api } from '../../../api/client.ts';
import type { ChatHistoryItem, ChatHistoryList, ChatWorkflowList, ChatWorkflowView } from '../../../../../core/session/chat-views.ts';
import type { SessionDetailView } from '../../../../../core/session/session-views.ts';
import { Button, ErrorMessage, Loading, PageHeader, RelativeTime } from '../../../ui/kit.tsx';
import { Conversation, conversationOf, remember } from './conversation.ts';
import { chatEnded, fromStoredMessages, pendingDecision } from './transcript.ts';
import { TranscriptEntry } from './TranscriptEntry.tsx';

/** Query keys of the chat page. */
const chatKeys = {
  workflows: ['chat', 'workflows'] as const,
  history: (offset: number) => ['chat', 'history', offset] as const,
  thread: (threadId: string) => ['chat', 'thread', threadId] as const,
};

/** Chats per page of the history panel. */
const historyPageSize = 10;

/** The Chat page: the start view without `threadId`, the conversation with it; the history panel beside. */
export function ChatPage({ threadId }: { threadId?: string }) {
  return (
    <div className="chat-layout">
      <section className="chat-main" aria-label="Conversation">
        {threadId ? <ThreadView key={threadId} threadId={threadId} /> : <StartView />}
      </section>
      <HistoryPanel current={threadId} />
    </div>
  );
}

/** The workflows to chat with, and the composer for the first message. */
function StartView() {
  const workflows = useQuery({ queryKey: chatKeys.workflows, queryFn: () => api<ChatWorkflowList>('/api/chat/workflows') });
  const [chosen, setChosen] = useState<ChatWorkflowView | undefined>();
  const [text, setText] = useState('');
  const [conversation, setConversation] = useState<Conversation | undefined>();
  const [, navigate] = useLocation();
  const queryClient = useQueryClient();
  const composer = useRef<HTMLTextAreaElement>(null);
  const available = workflows.data?.workflows.filter((w) => w.endpoint) ?? [];
  const selected = chosen ?? (available.length === 1 ? available[0] : undefined);

  if (conversation) return <ConversationView conversation={conversation} />;
  const start = (event: FormEvent) => {
    event.preventDefault();
    if (!selected?.endpoint || !text.trim()) return;
    const started = new Conversation({ title: selected.title, endpoint: selected.endpoint });
    started.onThread = (id) => {
      remember(id, started);
      void queryClient.invalidateQueries({ queryKey: ['chat', 'history'] });
      navigate(`/chat/${id}`, { replace: true });
    };
    setConversation(started);
    void started.send(text.trim());
  };
  const pick = (workflow: ChatWorkflowView, example?: string) => {
    setChosen(workflow);
    if (example !== undefined) setText(example);
    composer.current?.focus();
  };
  return (
    <>
      <PageHeader title="Chat" />
      {workflows.isPending ? <Loading what="Loading the workflows you can chat with" /> : null}
      {workflows.error ? <ErrorMessage error={workflows.error} retry={() => void workflows.refetch()} title="Could not load the workflows" /> : null}
      {workflows.data && workflows.data.workflows.length === 0 ? (
        <p className="empty">No published workflow you may use has a chat trigger. Chatting needs the User role (workflows:use) on an agent whose published build declares a chat trigger.</p>
      ) : null}
      <ul className="chat-cards" aria-label="Workflows">
        {workflows.data?.workflows.map((w) => {
          const key = workflowKey(w);
          const isSelected = selected !== undefined && workflowKey(selected) === key;
          return <WorkflowCard key={key} workflow={w} isSelected={isSelected} onPick={pick} />;
        })}
      </ul>
      {available.length > 0 ? (
        <Composer
          ref={composer} text={text} onText={setText} onSubmit={start} disabled={!selected}
          hint={selected ? `To: ${selected.title} (${selected.agent.name}, ${selected.environment})` : 'Choose a workflow above first.'}
        />
      ) : null}
    </>
  );
}

/** Which workflow a card is: agent, environment and workflow. */
const workflowKey = (w: ChatWorkflowView) => `${w.agent.id}/${w.environment}/${w.workflow}`;

/** A workflow's card: its title, agent, environment, description, examples (a click puts one in the composer) and Chat with. */
function WorkflowCard({ workflow: w, isSelected, onPick }: {
  workflow: ChatWorkflowView; isSelected: boolean; onPick(workflow: ChatWorkflowView, example?: string): void;
}) {
  return (
    <li className={`card chat-card${isSelected ? ' chat-card-selected' : ''}`}>
      <h2>{w.title}</h2>
      <p className="muted small">{w.agent.name} · {w.environment} · {w.workflow}</p>
      {w.description ? <p className="chat-card-description">{w.description}</p> : null}
      {w.endpoint ? (
        <>
          {w.examples.length > 0 ? (
            <div className="chat-examples" role="group" aria-label={`Examples for ${w.title}`}>
              {w.examples.map((example) => <Button key={example} className="chat-example" onClick={() => onPick(w, example)}>{example}</Button>)}
            </div>
          ) : null}
          {isSelected ? <p className="small chat-chosen">Chatting with this workflow.</p> : <Button onClick={() => onPick(w)}>Chat with {w.title}</Button>}
        </>
      ) : <p className="notice small">{w.unavailableMessage ?? 'This workflow cannot be chatted with now.'}</p>}
    </li>
  );
}

/** A chat by thread id: this tab's conversation, else the stored one read from history. */
function ThreadView({ threadId }: { threadId: string }) {
  const live = conversationOf(threadId);
  const stored = useQuery({
    queryKey: chatKeys.thread(threadId), enabled: !live,
    queryFn: async () => {
      const chat = await api<ChatHistoryItem>(`/api/chat/history/${encodeURIComponent(threadId)}`);
      const detail = await api<SessionDetailView>(`/api/sessions/${encodeURIComponent(chat.sessionId)}`);
      return { chat, detail };
    },
  });
  const [conversation, setConversation] = useState<Conversation | undefined>(live);
  useEffect(() => {
    if (conversation || !stored.data) return;
    const { chat, detail } = stored.data;
    const made = new Conversation({ title: chat.workflow, endpoint: chat.endpoint, transcript: fromStoredMessages(detail.messages, detail.session, threadId) });
    remember(threadId, made);
    setConversation(made);
  }, [conversation, stored.data, threadId]);
  if (conversation) return <ConversationView conversation={conversation} />;
  if (stored.error) return <ErrorMessage error={stored.error} retry={() => void stored.refetch()} title="Could not open this chat" />;
  return <Loading what="Loading the chat" />;
}

/** The transcript, the decision or wait, and the composer of one conversation. */
function ConversationView({ conversation }: { conversation: Conversation }) {
  const state = useSyncExternalStore(conversation.subscribe, conversation.snapshot);
  const [text, setText] = useState('');
  const queryClient = useQueryClient();
  const ended = chatEnded(state);
  const decision = pendingDecision(state);
  const wasRunning = useRef(state.running);
  useEffect(() => {
    if (wasRunning.current && !state.running) void queryClient.invalidateQueries({ queryKey: ['chat', 'history'] });
    wasRunning.current = state.running;
  }, [state.running, queryClient]);
  // Not before the platform named the thread (a second message would open another chat), nor while a decision waits.
  const blocked = Boolean(decision) || (state.running && !state.threadId);
  const send = async (event: FormEvent) => {
    event.preventDefault();
    if (!text.trim() || blocked) return;
    const message = text.trim();
    setText('');
    const outcome = await conversation.send(message);
    // Refused (a reject chat whose turn runs): the message goes back to the composer, before anything typed since.
    if (outcome.refused) setText((now) => (now.trim() ? `${message}\n${now}` : message));
  };
  return (
    <>
      <PageHeader title={<>Chat: {state.title} {state.status ? <span className="badge">{state.status.replace(/_/g, ' ')}</span> : null}</>}>
        <Link href="/chat" className="btn btn-secondary">New chat</Link>
      </PageHeader>
      <ol className="chat-transcript" aria-label="Messages" aria-live="polite">
        {state.items.map((item) => <TranscriptEntry key={item.key} item={item} state={state} conversation={conversation} />)}
        {state.running ? <li className="chat-running"><Loading what="The workflow is working" /></li> : null}
      </ol>
      {ended ? (
        <p className="notice chat-ended" role="status">This chat has ended ({state.status?.replace(/_/g, ' ')}). <Link href="/chat">Start a new chat</Link></p>
      ) : (
        <Composer
          text={text} onText={setText} onSubmit={(event) => void send(event)} disabled={blocked}
          hint={decision ? 'Decide above before sending a message.' : state.running ? 'The workflow is still answering; you can send another message now.' : undefined}
        />
      )}
    </>
  );
}

/**
 * The message box and Send: Enter sends (as Send would: not while disabled or empty), Shift+Enter adds a line, and
 * an Enter that ends an input method's composition only ends it.
 */
function Composer({ text, onText, onSubmit, disabled, busy, hint, ref }: {
  text: string; onText(text: string): void; onSubmit(event: FormEvent): void; disabled?: boolean; busy?: boolean; hint?: string;
  ref?: Ref<HTMLTextAreaElement>;
}) {
  return (
    <form className="chat-composer" onSubmit={onSubmit}>
      <label htmlFor="chat-message">Message</label>
      <textarea
        id="chat-message" ref={ref} rows={3} value={text} onChange={(e) => onText(e.target.value)} aria-describedby={hint ? 'chat-message-hint' : undefined}
        aria-keyshortcuts="Enter" onKeyDown={(e) => {
          if (e.key !== 'Enter' || e.shiftKey || e.altKey || e.nativeEvent.isComposing) return;
          e.preventDefault();
          if (!disabled && text.trim()) e.currentTarget.form?.requestSubmit();
        }}
      />
      {hint ? <span id="chat-message-hint" className="hint">{hint}</span> : null}
      <div className="actions">
        <span className="hint">Enter sends · Shift+Enter adds a line</span>
        <Button kind="primary" type="submit" disabled={disabled || !text.trim()} busy={busy}>Send</Button>
      </div>
    </form>
  );
}

/** The member's own chats, newest first, paged. */
function HistoryPanel({ current }: { current?: string }) {
  const [offset, setOffset] = useState(0);
  const history = useQuery({ queryKey: chatKeys.history(offset), queryFn: () => api<ChatHistoryList>(`/api/chat/history?offset=${offset}&limit=${historyPageSize}`) });
  return (
    <aside className="chat-history panel" aria-labelledby="chat-history-title">
      <h2 id="chat-history-title">Your chats</h2>
      {history.isPending ? <Loading what="Loading your chats" /> : null}
      {history.error ? <ErrorMessage error={history.error} retry={() => void history.refetch()} title="Could not load your chats" /> : null}
      {history.data && history.data.chats.length === 0 && offset === 0 ? <p className="muted small">No chats yet.</p> : null}
      <ul className="chat-history-list" aria-label="Your chats">
        {history.data?.chats.map((c) => (
          <li key={c.threadId}>
            <Link href={`/chat/${c.threadId}`} aria-current={c.threadId === current ? 'page' : undefined} className={c.threadId === current ? 'active' : ''}>
              <span className="chat-history-text">{c.firstMessage ?? '(no message)'}</span>
              <span className="small muted">{c.workflow} · <span className="badge">{c.status.replace(/_/g, ' ')}</span> · <RelativeTime at={c.lastActivityAt} /></span>
            </Link>
          </li>
        ))}
      </ul>
      {history.data && (offset > 0 || history.data.hasMore) ? (
        <nav className="pager" aria-label="Pages of your chats">
          <Button onClick={() => setOffset(Math.max(0, offset - historyPageSize))} disabled={offset === 0}>Newer</Button>
          <Button onClick={() => setOffset(offset + historyPageSize)} disabled={!history.data.hasMore}>Older</Button>
        </nav>
      ) : null}
    </aside>
  );
}
