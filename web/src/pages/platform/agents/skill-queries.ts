/**
 * Server state of an environment's Skills tab: the skill registries the deployment follows (their state, commit and
 * skill count), their skills (name, description, files, problems), and copying a skill into the environment's draft.
 * The draft's files are read with the Design tab's query (./design-queries.ts useDraftFiles), so a copy refreshes
 * both tabs.
 *
 * Source: spec/platform-service.md § Rules 16, § Endpoints (GET /api/skill-registries); issue "Skill registries, and
 * collections with per-organization credentials and OAuth apps" § Skill registries.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { RegistrySkill, SkillRegistryStatus } from '../../../../../core/skill/registries.ts';
import { api } from '../../../api/client.ts';
import { designKeys } from './design-queries.ts';
import { agentKeys, environmentPath } from './queries.ts';

export type { RegistrySkill, SkillRegistryStatus };

/** What POST …/skills answers (the environment itself is left out: the tab does not show it). */
export interface SkillCopyAnswer {
  registryCommit: string;
  written: string[];
  deleted: string[];
}

/** A skill to copy: its registry's id and its slug. */
export interface SkillRef {
  registry: string;
  skill: string;
}

/** Query keys of the registries (not an agent's: every environment shows the same). */
export const skillKeys = {
  registries: ['skill-registries'] as const,
  skills: ['skill-registries', 'skills'] as const,
};

/** How often the registries are asked again while one is still being cloned, in ms. */
export const cloningPollMs = 2000;

/** GET /api/skill-registries, asked again every two seconds while a registry is still `cloning`. */
export function useSkillRegistries() {
  return useQuery({
    queryKey: skillKeys.registries,
    queryFn: () => api<{ registries: SkillRegistryStatus[] }>('/api/skill-registries').then((r) => r.registries),
    refetchInterval: (query) => (query.state.data?.some((r) => r.state === 'cloning') ? cloningPollMs : false),
  });
}

/**
 * GET /api/skill-registries/skills: every followed registry's skills, once the registries are known. `served` names
 * the commits served ({@link servedCommits}), so a registry whose clone moved on is read again.
 */
export function useRegistrySkills(served: string | undefined) {
  return useQuery({
    queryKey: [...skillKeys.skills, served ?? ''] as const,
    queryFn: () => api<{ skills: RegistrySkill[] }>('/api/skill-registries/skills').then((r) => r.skills),
    enabled: served !== undefined,
  });
}

/** The commits the registries serve, as one key (`id@commit`, `-` while a registry has no clone). */
export const servedCommits = (registries: SkillRegistryStatus[]): string =>
  registries.map((r) => `${r.id}@${r.commit ?? '-'}`).join(' ');

/** The slugs of the skills the draft holds (a `skills/<slug>/SKILL.md` among its files). */
export function draftSkillSlugs(paths: string[]): Set<string> {
  const slugs = new Set<string>();
  for (const path of paths) {
    const match = /^skills\/([^/]+)\/SKILL\.md$/.exec(path);
    if (match) slugs.add(match[1]!);
  }
  return slugs;
}

/** POST …/skills: copies a registry's skill into the draft of `env`; the draft's files and changes are read again. */
export function useCopySkill(agent: string, env: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ref: SkillRef) =>
      api<SkillCopyAnswer>(environmentPath(agent, env, '/skills'), { method: 'POST', body: ref }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: designKeys.files(agent, env) });
      void client.invalidateQueries({ queryKey: designKeys.changes(agent, env) });
      void client.invalidateQueries({ queryKey: agentKeys.environment(agent, env), exact: true });
    },
  });
}
