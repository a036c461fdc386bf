/**
 * Server state of the semantic pages (TanStack Query keys and readers), so every page reads a project
 * the same way and a change invalidates what it touched.
 *
 * Source: docs/decisions.md D9 (the semantic service's pages).
 */
import { useQuery } from '@tanstack/react-query';
import type { ProjectDetail, ProjectList } from '../../../../core/semantic/api/projects.ts';
import { api, projectPath } from '../../api/client.ts';

/** Query keys: `['projects']` (the list) and `['project', slug, …]` (one project and what hangs off it). */
export const keys = {
  projects: ['projects'] as const,
  project: (slug: string) => ['project', slug] as const,
};

/** GET /api/semantic/projects. */
export function useProjects() {
  return useQuery({ queryKey: keys.projects, queryFn: () => api<ProjectList>('/api/semantic/projects').then((r) => r.projects) });
}

/** GET /api/semantic/projects/:slug. */
export function useProject(slug: string) {
  return useQuery({ queryKey: keys.project(slug), queryFn: () => api<ProjectDetail>(projectPath(slug)) });
}
