/**
 * `cairn skill list [--registry <id>]`: the skills of the followed registries (registry/slug, description, and
 * problems when a SKILL.md does not validate), with each registry's commit; `cairn skill add <agent> --env <name>
 * <registry>/<skill>`: copies a registry's skill into the environment's draft (Maintainer), printing what was
 * written and deleted. Publish the draft to use it.
 *
 * Source: issue "Skill registries, and collections with per-organization credentials and OAuth apps" § Skill
 * registries (cairn skill list|add).
 */
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';

/** Options of the skill commands, as given on the command line. */
export interface SkillOptions {
  env?: string;
  registry?: string;
}

const usage = 'cairn skill list [--registry <id>] | cairn skill add <agent> --env <name> <registry>/<skill>';

interface Registry { id: string; url: string; state: string; commit: string | null; skills: number; lastFailure: { message: string } | null }
interface Skill { registry: string; slug: string; description: string; problems: string[] }

/** Runs `cairn skill <args>`. @throws CliError with a one-line reason (exit 2 on a usage error) */
export async function runSkill(target: ApiTarget, args: string[], options: SkillOptions): Promise<CommandOutput> {
  const [command, ...rest] = args;
  if (command === 'list' && rest.length === 0) return list(target, options.registry);
  if (command === 'add' && rest.length === 2 && options.env) {
    const [agent, ref] = rest as [string, string];
    const [registry, skill, more] = ref.split('/');
    if (!registry || !skill || more !== undefined) throw new CliError(`name the skill as <registry>/<skill>, not "${ref}"; usage: ${usage}`, 2);
    const path = `/api/agents/${encodeURIComponent(agent)}/environments/${encodeURIComponent(options.env)}/skills`;
    const copied = await callApi<{ registryCommit: string; written: string[]; deleted: string[] }>(target, 'POST', path, { registry, skill });
    const lines = [
      `copied ${registry}/${skill} (registry commit ${copied.registryCommit.slice(0, 12)}) into the ${options.env} draft of ${agent}:`,
      ...copied.written.map((p) => `  wrote ${p}`), ...copied.deleted.map((p) => `  deleted ${p}`),
      'publish the draft to use it',
    ];
    return { data: copied, human: lines.join('\n') };
  }
  throw new CliError(`usage: ${usage}`, 2);
}

async function list(target: ApiTarget, registry: string | undefined): Promise<CommandOutput> {
  const { registries } = await callApi<{ registries: Registry[] }>(target, 'GET', '/api/skill-registries');
  const query = registry ? `?registry=${encodeURIComponent(registry)}` : '';
  const { skills } = await callApi<{ skills: Skill[] }>(target, 'GET', `/api/skill-registries/skills${query}`);
  const lines: string[] = [];
  for (const r of registries.filter((r) => !registry || r.id === registry)) {
    const failure = r.lastFailure ? `; last update failed: ${r.lastFailure.message}` : '';
    lines.push(`${r.id} ${r.url} ${r.state} at ${r.commit?.slice(0, 12) ?? '(no clone)'}: ${r.skills} skill(s)${failure}`);
    for (const s of skills.filter((s) => s.registry === r.id)) {
      lines.push(`  ${r.id}/${s.slug}  ${s.description}${s.problems.length > 0 ? `  [does not validate: ${s.problems.join('; ')}]` : ''}`);
    }
  }
  return { data: { registries, skills }, human: lines.join('\n') || 'no skill registry is followed' };
}
