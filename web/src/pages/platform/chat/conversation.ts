/**
 * One conversation of the Chat page, kept outside React so it survives the page's move from /chat to
 * /chat/<threadId> once the platform issues the thread id: `@ag-ui/client` HttpAgents against the workflow's
 * AG-UI endpoint (`/api/agui/<address>`, the same endpoint outside callers use) with the member's own sign-in
 * (the page's origin; `authHeaders()` under OIDC sign-in), and the transcript built from their events.
 *
 * Only the last user message is read by the endpoint (history is not replayed), so each run sends the one new
 * message. A message sent while a run is in flight starts a run of its own (docs/decisions.md D27 § 1: the chat
 * queues it, or stops the running turn for it, as its trigger's `multitask` says): every run has its own HttpAgent
 * on the thread (an agent holds one run's abort controller and state, so a second run on it would disturb the
 * first), and its events are applied to the transcript under the run's own key. A refused message (409, e.g.
 * `turn_running` of a `reject` chat) is shown as the platform's notice and handed back to the caller to put in the
 * composer again. A decision is sent as the resume entry `{interruptId, status: "resolved", payload: {to}}`, after
 * checking the session still waits for that very decision (a second click, or another tab that decided first,
 * is told what happened instead of provoking a 409).
 *
 * Source: docs/endpoints.md § AG-UI; spec/platform-service.md § Stream and custom events, § Errors (409); docs/decisions.md D10 § Chat, D27 § 1.
 */
import './zod-jitless.ts';
import { HttpAgent } from '@ag-ui/client';
import { api, authHeaders } from '../../../api/client.ts';
import type { SessionDetailView } from '../../../../../core/session/session-views.ts';
import { awaitsDecision } from '../sessions/session-queries.ts';
import { beginRun, endRun, refuseRun } from './runs.ts';
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

/** How a send went: `refused` (the platform's message) when the message was not taken; the caller keeps its text. */
export interface SendOutcome { refused?: string }

/** An HTTP error of `@ag-ui/client` (`HTTP <status>: <body>`), with the status and the parsed JSON body it carries. */
interface HttpRunError extends Error { status?: number; payload?: { error?: { code?: string; message?: string } } }

let nextId = 0;

/** A conversation: subscribe to its state; send messages and decisions. */
export class Conversation {
  readonly id = `c${(nextId += 1)}`;
  private state: ConversationState;
  private readonly listeners = new Set<() => void>();
  private runs = 0;

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

  /** A fresh agent for one run, on the chat's thread once it has one. */
  private agentFor(): HttpAgent {
    return new HttpAgent({ url: this.state.endpoint, headers: authHeaders(), ...(this.state.threadId ? { threadId: this.state.threadId } : {}) });
  }

  /**
   * Runs `agent` once as run `run` with `parameters`, folding every event into the transcript under the run's key.
   * @returns the platform's message when it refused the request with a 409 (shown as a notice), else nothing
   */
  private async run(agent: HttpAgent, run: string, parameters: Parameters<HttpAgent['runAgent']>[0]): Promise<SendOutcome> {
    const hadThread = this.state.threadId;
    let failure: HttpRunError | undefined;
    try {
      await agent.runAgent(parameters, {
        onEvent: ({ event }) => {
          const next = applyEvent(this.state, event as unknown as ChatEvent, run);
          this.set({ ...this.state, ...next });
          if (event.type === 'RUN_STARTED' && next.threadId && next.threadId !== hadThread) this.onThread?.(next.threadId);
        },
        // Taken here, so the client neither logs it as a console error nor throws it (its onError honours this).
        onRunFailed: ({ error }) => {
          failure = error as HttpRunError;
          const handled: object = { stopPropagation: true };
          return handled;
        },
      });
    } catch (error) {
      failure = error as HttpRunError;
    }
    const refused = failure?.status === 409 ? failure.payload?.error?.message : undefined;
    if (refused) {
      this.set({ ...this.state, ...refuseRun(this.state, run, refused) });
      return { refused };
    }
    this.set({ ...this.state, ...endRun(this.state, run) });
    if (failure) this.push({ kind: 'error', key: `err-${this.id}-${run}`, run, message: `The message could not be sent: ${failure.message ?? String(failure)}` });
    return {};
  }

  /**
   * Sends `text` as the next user message (a fresh chat when there is no thread yet, or the chat has ended), shown
   * at once; while another run is in flight it gets a run of its own.
   */
  async send(text: string): Promise<SendOutcome> {
    const agent = this.agentFor();
    agent.addMessage({ id: crypto.randomUUID(), role: 'user', content: text });
    const run = `r${(this.runs += 1)}`;
    this.set({ ...this.state, ...beginRun(this.state, run, text) });
    return this.run(agent, run, {});
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
      const run = `r${(this.runs += 1)}`;
      this.set({ ...this.state, ...beginRun(this.state, run) });
      await this.run(this.agentFor(), run, { resume: [{ interruptId, status: 'resolved', payload: { to, ...(comment ? { comment } : {}) } }] });
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
