/**
 * Server state of an environment's Design tab: whether a design agent is configured (else what to set) with the
 * member's own design chats, the draft's files, its unpublished changes, an earlier chat's messages; and the tab's
 * conversations, kept outside React (as the Chat page's are) so a chat survives a move to another tab and back, and
 * the first message the agent creation form hands the tab ("Describe what it should do").
 *
 * Source: issue "The design agent" § Front doors; docs/decisions.md D21.
 */
import { useQuery } from '@tanstack/react-query';
import type { DraftChanges } from '../../../../../core/agent/draft-changes.ts';
import type { DesignChatView } from '../../../../../core/design/design-views.ts';
import type { SessionDetailView } from '../../../../../core/session/session-views.ts';
import { api } from '../../../api/client.ts';
import { Conversation } from '../chat/conversation.ts';
import { fromStoredMessages } from '../chat/transcript.ts';
import { environmentPath } from './queries.ts';

export type { DesignChatView, DraftChanges };
export type { DraftChangedFile } from '../../../../../core/agent/draft-changes.ts';

/** GET …/design: the design agent's model, or what to set; the member's design chats on the environment. */
export type DesignInfo =
  | { configured: true; model: string; chats: DesignChatView[] }
  | { configured: false; setup: string; chats: DesignChatView[] };

/** A draft file as GET …/files answers it. */
export interface DraftFile { path: string; text: string }

/** Query keys, under the agent's (./queries.ts agentKeys), so a finished operation refreshes them too. */
export const designKeys = {
  design: (agent: string, env: string) => ['agent', agent, 'env', env, 'design'] as const,
  changes: (agent: string, env: string) => ['agent', agent, 'env', env, 'design', 'changes'] as const,
  files: (agent: string, env: string) => ['agent', agent, 'env', env, 'files'] as const,
};

/** The AG-UI endpoint of the environment's design chats. */
export const designEndpoint = (agent: string, env: string): string => environmentPath(agent, env, '/design');

/** GET …/design (404 below Maintainer: the tab is not offered then). */
export function useDesign(agent: string, env: string) {
  return useQuery({
    queryKey: designKeys.design(agent, env),
    queryFn: () => api<DesignInfo>(designEndpoint(agent, env)),
  });
}

/** GET …/files: the draft's files, by path. */
export function useDraftFiles(agent: string, env: string) {
  return useQuery({
    queryKey: designKeys.files(agent, env),
    queryFn: () => api<{ files: DraftFile[] }>(environmentPath(agent, env, '/files'))
      .then((r) => [...r.files].sort((a, b) => a.path.localeCompare(b.path))),
  });
}

/** GET …/design/changes: what a publish would change. */
export function useDraftChanges(agent: string, env: string) {
  return useQuery({
    queryKey: designKeys.changes(agent, env),
    queryFn: () => api<DraftChanges>(environmentPath(agent, env, '/design/changes')),
  });
}

/** The title design conversations carry. */
export const designTitle = 'Design agent';

/** A new design conversation on the environment (its first message opens a chat). */
export const newDesignConversation = (agent: string, env: string): Conversation =>
  new Conversation({ title: designTitle, endpoint: designEndpoint(agent, env) });

/** The earlier chat `threadId` (the design session's id) as a conversation its next message continues. */
export async function openDesignChat(agent: string, env: string, threadId: string): Promise<Conversation> {
  const detail = await api<SessionDetailView>(`/api/sessions/${encodeURIComponent(threadId)}`);
  const transcript = fromStoredMessages(detail.messages, detail.session, threadId);
  return new Conversation({ title: designTitle, endpoint: designEndpoint(agent, env), transcript });
}

const place = (agent: string, env: string) => `${agent}\u0000${env}`;

/** The conversation each environment's Design tab shows in this browser tab. */
const current = new Map<string, Conversation>();

/** The conversation the Design tab of `env` showed last, if any. */
export const currentDesignConversation = (agent: string, env: string): Conversation | undefined =>
  current.get(place(agent, env));

/** Remembers (or, undefined, forgets) the conversation the Design tab of `env` shows. */
export function rememberDesignConversation(agent: string, env: string, conversation: Conversation | undefined): void {
  if (conversation) current.set(place(agent, env), conversation);
  else current.delete(place(agent, env));
}

/** First messages handed to a Design tab (by the agent creation form), each taken once. */
const firstMessages = new Map<string, string>();

/** Hands `text` to the Design tab of `env` of `agent`, which sends it as the first message of a new chat. */
export function handFirstMessage(agent: string, env: string, text: string): void {
  firstMessages.set(place(agent, env), text);
}

/** The first message handed to the Design tab of `env`, once (it is forgotten as it is taken). */
export function takeFirstMessage(agent: string, env: string): string | undefined {
  const text = firstMessages.get(place(agent, env));
  firstMessages.delete(place(agent, env));
  return text;
}
