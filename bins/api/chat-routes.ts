/**
 * JSON routes of the Chat page (signed-in members):
 * - `GET /api/chat/workflows` → {@link ChatWorkflowList}: the published workflows with a chat trigger in every agent
 *   environment on which the caller's role holds workflows:use (User or above), with their examples (≤ 6) and the
 *   AG-UI endpoint path (`/api/agui/<address>`) the page chats through, or why one cannot be chatted with
 * - `GET /api/chat/history?offset=&limit=` → {@link ChatHistoryList}: the caller's own chats (threads the AG-UI
 *   endpoints issued to them as a member), newest first, paged (limit 1–100, default 20)
 * - `GET /api/chat/history/:threadId` → {@link ChatHistoryItem}: one of them (404 `chat_not_found` for any other thread)
 * The conversation itself goes through the AG-UI endpoint with the member's own sign-in (bins/api/agui-routes.ts).
 *
 * Source: spec/platform-service.md § What the service does (chat), § Incoming connection authentication rules 1–2;
 * docs/decisions.md D10 § Chat.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { chatHistory, chatOf, chatWorkflows, MAX_CHAT_PAGE, type ChatDeps } from '../../core/connection/member-chats.ts';
import type { ChatHistoryItem, ChatWorkflowList } from '../../core/session/chat-views.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { errorToResponse, json } from './http-helpers.ts';
import { readQuery, wholeNumberParam } from './query-params.ts';

/** What the chat routes need: the stores and build cache, and the signed-in caller. */
export interface ChatRouteDeps extends CallerRouteDeps<{ subject: string }> {
  deps: ChatDeps;
}

const HistoryQuery = Type.Object({
  offset: wholeNumberParam({ minimum: 0, maximum: 100_000, default: 0 }),
  limit: wholeNumberParam({ minimum: 1, maximum: MAX_CHAT_PAGE, default: 20 }),
}, { additionalProperties: false });

/** Mounts the routes (behind the request rules). */
export function chatRoutes(env: ChatRouteDeps) {
  const route = callerRoutes(env);
  return new Elysia()
    .get('/api/chat/workflows', route(async ({ caller }) => json({ workflows: await chatWorkflows(env.deps, caller.subject) } satisfies ChatWorkflowList)))
    .get('/api/chat/history/:threadId', route<{ threadId: string }>(async ({ params, caller }) => json(await chatOf(env.deps, caller.subject, params.threadId))))
    .get('/api/chat/history', async ({ request }) => {
      try {
        const query = readQuery(request, HistoryQuery);
        const caller = env.callerOf(request);
        await env.prepare(caller);
        return json(await chatHistory(env.deps, caller.subject, { offset: query.offset ?? 0, limit: query.limit ?? 20 }));
      } catch (error) {
        return errorToResponse(error, env.logger);
      }
    });
}
