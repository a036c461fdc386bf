/**
 * The skill registries' routes:
 * - `GET /api/skill-registries` (no sign-in, as the spec's table says): `{registries: [{id, url, state, commit,
 *   skills, updatedAt, lastFailure}]}`, each registry's commit served, its skill count and its last failure
 * - `GET /api/skill-registries/skills?registry=<id>` (signed in): `{skills: [{registry, slug, name, description,
 *   files, problems}]}`, every followed registry's skills or one registry's (404 `registry_not_found`)
 * - `POST /api/agents/:agent/environments/:env/skills` `{registry, skill}` (Maintainer): copies the skill into the
 *   environment's draft (core/skill/registry-skills.ts); answers the environment and what was written and deleted
 *
 * Source: spec/platform-service.md § Rules 16, § Endpoints (GET /api/skill-registries); issue "Skill registries, and
 * collections with per-organization credentials and OAuth apps" § Skill registries.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import { type AgentCaller, type AgentDeps } from '../../core/agent/hosting.ts';
import type { SkillRegistries } from '../../core/skill/registries.ts';
import { copyRegistrySkill } from '../../core/skill/registry-skills.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { errorToResponse, json, readJson } from './http-helpers.ts';
import { readQuery } from './query-params.ts';

/** What the skill routes need. */
export interface SkillRouteDeps extends CallerRouteDeps<AgentCaller> {
  registries: SkillRegistries;
  hosting: AgentDeps;
}

const Slug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' });
const CopyBody = Type.Object({ registry: Slug, skill: Slug }, { additionalProperties: false });
const SkillsQuery = Type.Object({ registry: Type.Optional(Slug) }, { additionalProperties: false });

/** Mounts the routes (behind the request rules). */
export function skillRoutes(env: SkillRouteDeps) {
  const route = callerRoutes(env);
  return new Elysia()
    .get('/api/skill-registries', () => json({ registries: env.registries.status() }))
    .get('/api/skill-registries/skills', async ({ request }) => {
      try {
        const query = readQuery(request, SkillsQuery);
        await env.prepare(env.callerOf(request));
        return json({ skills: await env.registries.skills(query.registry) });
      } catch (error) {
        return errorToResponse(error, env.logger);
      }
    })
    .post('/api/agents/:agent/environments/:env/skills', route<{ agent: string; env: string }>(async ({ request, params, caller }) => {
      const body = await readJson(request, CopyBody);
      const copied = await copyRegistrySkill({ hosting: env.hosting, registries: env.registries }, caller, {
        agentId: params.agent, envName: params.env, registry: body.registry, skill: body.skill,
      });
      return json(copied);
    }), { parse: 'none' });
}
