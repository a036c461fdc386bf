/**
 * One conversation of the Chat page, kept outside React so it survives the page's move from /chat to
 * /chat/<threadId> once the platform issues the thread id: an `@ag-ui/client` HttpAgent against the workflow's
 * AG-UI endpoint (`/api/agui/<address>`, the same endpoint outside callers use) with the member's own sign-in
 * (the page's origin; `authHeaders()` under OIDC sign-in), and the transcript built from its events.
 *
 * Only the last user message is read by the endpoint (history is not replayed), so each run sends the one new
 * message. A decision is sent as the resume entry `{interruptId, status: "resolved", payload: {to}}`, after
 * checking the session still waits for that very decision (a second click, or another tab that decided first,
 * is told what happened instead of provoking a 409).
 *
 * Source: docs/endpoints.md § AG-UI; spec/platform-service.md § Stream and custom events, § Errors (409); docs/decisions.md D10 § Chat.
 */
import './zod-jitless.ts';
import { HttpAgent } from '@ag-ui/client';
import { api, authHeaders } from '../../../api/client.ts';
import type { SessionDetailView } from '../../../../../core/session/session-views.ts';
import { awaitsDecision } from '../sessions/session-queries.ts';
import { applyEvent, emptyTranscript, type ChatEvent, type Transcript, type TranscriptItem } from './transcript.ts';

/** What the page shows of a conversation. */
export interface ConversationState extends Transcript {
  /** The workflow chatted with, for the heading. */
  title: string;
  endpoint: string;
  /** What happened to the last decision clicked, when it was not sent (already taken elsewhere). */
  decisionNote?: { interruptId: string; text: string };
  /** The decision being sent. */
  deciding?: string;
}

let nextId = 0;

/** A conversation: subscribe to its state; send messages and decisions. */
export class Conversation {
  readonly id = `c${(nextId += 1)}`;
  private state: ConversationState;
  private readonly listeners = new Set<() => void>();
  private agent?: HttpAgent;

  constructor(init: { title: string; endpoint: string; transcript?: Transcript }) {
    this.state = { ...(init.transcript ?? emptyTranscript()), title: init.title, endpoint: init.endpoint };
  }

  /** The current state (a new object after every change). */
  snapshot = (): ConversationState => this.state;

  /** Calls `listener` after every change; returns the unsubscribe function. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Called once with the thread id the platform issued (the page moves to /chat/<threadId>). */
  onThread?: (threadId: string) => void;

  private set(next: ConversationState): void {
    this.state = next;
    for (const listener of this.listeners) listener();
  }

  private push(item: TranscriptItem): void {
    this.set({ ...this.state, items: [...this.state.items, item] });
  }

  private agentFor(): HttpAgent {
    this.agent ??= new HttpAgent({ url: this.state.endpoint, headers: authHeaders(), ...(this.state.threadId ? { threadId: this.state.threadId } : {}) });
    this.agent.headers = authHeaders();
    if (this.state.threadId) this.agent.threadId = this.state.threadId;
    return this.agent;
  }

  /** Runs the agent once with `parameters`, folding every event into the transcript. */
  private async run(parameters: Parameters<HttpAgent['runAgent']>[0]): Promise<void> {
    const agent = this.agentFor();
    const hadThread = this.state.threadId;
    this.set({ ...this.state, running: true });
    try {
      await agent.runAgent(parameters, {
        onEvent: ({ event }) => {
          const next = applyEvent(this.state, event as unknown as ChatEvent);
          this.set({ ...this.state, ...next });
          if (event.type === 'RUN_STARTED' && next.threadId) {
            agent.threadId = next.threadId;
            if (next.threadId !== hadThread) this.onThread?.(next.threadId);
          }
        },
      });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.set({ ...this.state, running: false });
      this.push({ kind: 'error', key: `err-${Date.now()}`, message: `The message could not be sent: ${message}` });
    } finally {
      if (this.state.running) this.set({ ...this.state, running: false });
    }
  }

  /** Sends `text` as the next user message (a fresh chat when there is no thread yet, or the chat has ended). */
  async send(text: string): Promise<void> {
    const agent = this.agentFor();
    agent.messages = [];
    agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
    this.push({ kind: 'user', key: `u-${Date.now()}`, text });
    await this.run({});
  }

  /**
   * Decides the pending decision `interruptId` with option `to`: first reads the session; when it no longer waits
   * for that decision, says so (no request that would be refused), else sends the resume entry.
   */
  async decide(interruptId: string, to: string, comment?: string): Promise<void> {
    if (this.state.deciding || this.state.running) return;
    this.set({ ...this.state, deciding: interruptId, decisionNote: undefined });
    try {
      const sessionId = this.state.sessionId;
      if (sessionId) {
        const detail = await api<SessionDetailView>(`/api/sessions/${encodeURIComponent(sessionId)}`);
        if (!awaitsDecision(detail.session, interruptId)) {
          const decided = [...detail.session.trail].reverse().find((t) => t.via === 'decision');
          const text = `This decision was already taken${decided ? `: ${decided.state}` : ''}. The chat is now ${detail.session.status.replace(/_/g, ' ')}.`;
          this.set({ ...this.state, deciding: undefined, status: detail.session.status, decisionNote: { interruptId, text } });
          return;
        }
      }
      this.set({ ...this.state, decisionNote: { interruptId, text: `Decided: ${to}.` } });
      await this.run({ resume: [{ interruptId, status: 'resolved', payload: { to, ...(comment ? { comment } : {}) } }] });
    } catch (error) {
      this.push({ kind: 'error', key: `err-${Date.now()}`, message: `The decision could not be sent: ${error instanceof Error ? error.message : String(error)}` });
    } finally {
      this.set({ ...this.state, deciding: undefined });
    }
  }
}

/** Conversations of this tab by thread id (and the new ones by their own id until the platform names the thread). */
const conversations = new Map<string, Conversation>();

/** The conversation of thread `threadId`, if this tab holds it. */
export const conversationOf = (threadId: string): Conversation | undefined => conversations.get(threadId);

/** Keeps `conversation` under `threadId`. */
export function remember(threadId: string, conversation: Conversation): void {
  conversations.set(threadId, conversation);
}
