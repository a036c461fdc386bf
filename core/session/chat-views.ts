/**
 * The JSON shapes of the Chat routes (bins/api/chat-routes.ts) that the web app's Chat page reads: the published
 * workflows a member may chat with, and the member's own chats. Times are ISO 8601 strings (UTC).
 *
 * Source: spec/platform-service.md § What the service does (chat), § Incoming connection authentication rules 1–2
 * (a member calling an AG-UI endpoint with their own sign-in, role holding workflows:use), § Trigger declarations
 * (chat examples); docs/decisions.md D10 § Chat.
 */

/** Most examples shown per workflow (the first ones declared). */
export const MAX_CHAT_EXAMPLES = 6;

/** Why a chat workflow cannot be chatted with now; absent when it can. */
export type ChatUnavailable =
  /** The chat trigger names no connection. */
  | 'no_connection'
  /** The named connection is not registered in the environment, or is not an AG-UI connection. */
  | 'connection_missing'
  /** Another trigger of the build names the same connection (a deployment error: the endpoint answers 503). */
  | 'connection_conflict'
  /** The workflow is out of service (`disabled: true`). */
  | 'workflow_disabled';

/** One published workflow with a chat trigger, in an environment the member holds workflows:use on. */
export interface ChatWorkflowView {
  agent: { id: string; slug: string; name: string };
  environment: string;
  /** The workflow's slug. */
  workflow: string;
  /** The workflow's title (its slug when it declares none). */
  title: string;
  /** The chat trigger's state title, or the workflow's instructions, when there is one (up to 300 characters). */
  description?: string;
  /** The chat trigger's examples, at most {@link MAX_CHAT_EXAMPLES}. */
  examples: string[];
  /** The connection the chat trigger names (its identifier), if any. */
  connection?: string;
  /** Path of the AG-UI endpoint serving it (`/api/agui/<address>`); absent when it cannot be chatted with. */
  endpoint?: string;
  /** Why it cannot be chatted with, with `unavailableMessage` saying what to do. */
  unavailable?: ChatUnavailable;
  unavailableMessage?: string;
}

/** `GET /api/chat/workflows`: every chat workflow the member may use, by agent slug, environment and workflow. */
export interface ChatWorkflowList {
  workflows: ChatWorkflowView[];
}

/** One chat of the member: a thread the AG-UI endpoints issued to them as a member (never one opened by an endpoint
 * caller). */
export interface ChatHistoryItem {
  /** The thread id: send it as `threadId` to continue the chat. */
  threadId: string;
  sessionId: string;
  agent: { id: string; slug: string; name: string };
  environment: string;
  workflow: string;
  /** The connection's identifier. */
  connection: string;
  /** Path of the AG-UI endpoint of the chat's connection (`/api/agui/<address>`). */
  endpoint: string;
  /** The session's status (`running`, `awaiting_input`, `awaiting_decision`, `succeeded`, …). */
  status: string;
  /** The first user message, up to 200 characters. */
  firstMessage?: string;
  /** ISO: when the chat opened, and when its session last changed. */
  startedAt: string;
  lastActivityAt: string;
}

/** `GET /api/chat/history?offset=&limit=`: the member's chats, newest first; `hasMore` when an older page exists. */
export interface ChatHistoryList {
  chats: ChatHistoryItem[];
  hasMore: boolean;
}
