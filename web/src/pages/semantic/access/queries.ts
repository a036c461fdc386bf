/**
 * Server state of the MCP Access and Improvement requests pages: query keys and readers.
 *
 * Source: docs/decisions.md D9 (MCP Access, Improvement requests).
 */
import { useQuery } from '@tanstack/react-query';
import type { ImprovementList, ImprovementStatusFilter, TokenList } from '../../../../../core/semantic/api/access.ts';
import { api, projectPath } from '../../../api/client.ts';

/** Query keys under the project's key, so invalidating `['project', slug]` refreshes them too. */
export const accessKeys = {
  tokens: (slug: string) => ['project', slug, 'tokens'] as const,
  improvements: (slug: string) => ['project', slug, 'improvements'] as const,
  improvementsBy: (slug: string, status: ImprovementStatusFilter) => ['project', slug, 'improvements', status] as const,
};

/** GET …/tokens: the project's tokens, newest first. */
export function useTokens(slug: string) {
  return useQuery({ queryKey: accessKeys.tokens(slug), queryFn: () => api<TokenList>(projectPath(slug, '/tokens')).then((r) => r.tokens) });
}

/** Most improvement requests the page asks for (the API's ceiling, 500); the page pages through them. */
export const improvementsLimit = 500;

/** GET …/improvements/list?status=: the newest requests of that status. */
export function useImprovements(slug: string, status: ImprovementStatusFilter) {
  return useQuery({
    queryKey: accessKeys.improvementsBy(slug, status),
    queryFn: () => api<ImprovementList>(projectPath(slug, `/improvements/list?status=${status}&limit=${improvementsLimit}`)).then((r) => r.improvements),
  });
}
