/**
 * Skill registries (./registries.ts) over a fake mirror (the SkillRegistryMirror port): a registry is `cloning` until
 * its update ends, then `ready` with its commit and skill count; a failed update keeps serving the last clone (or
 * says there is none) with the failure and a warning; skills are read as the validator reads SKILL.md; a bundle
 * with a file that is not UTF-8 text is refused whole.
 * Source: spec/platform-service.md § Rules 16.
 */
import { describe, expect, it } from 'vitest';
import { isPlatformError } from '../ports/platform-error.ts';
import type { MirroredRegistry, SkillRegistryMirror } from '../ports/skill-registry-mirror.ts';
import { createSkillRegistries } from './registries.ts';

const text = (value: string) => new TextEncoder().encode(value);
const skill = (name: string) => text(`---\nname: ${name}\ndescription: Does ${name}.\n---\nBody.\n`);

/**
 * A mirror whose clones are `clones` (id → commit, files and what a read leaves out); `reachable` says whether an
 * update succeeds.
 */
function fakeMirror(
  clones: Map<string, { commit: string; files: Map<string, Uint8Array>; leftOut?: string[] }>,
  reachable: Set<string>,
) {
  const mirror: SkillRegistryMirror = {
    update: async (registry: MirroredRegistry) => {
      if (!reachable.has(registry.id)) throw new Error('connect ECONNREFUSED 127.0.0.1:1');
      return clones.get(registry.id)!.commit;
    },
    current: async (registry) => clones.get(registry.id)?.commit,
    files: async (registry, prefix) => ({
      files: new Map([...(clones.get(registry.id)?.files ?? [])].filter(([path]) => path.startsWith(prefix))),
      leftOut: clones.get(registry.id)?.leftOut ?? [],
    }),
  };
  return mirror;
}

describe('skill registries', () => {
  const clones = new Map([
    ['team', {
      commit: 'a'.repeat(40),
      files: new Map([
        ['skills/plan/SKILL.md', skill('plan')],
        ['skills/plan/assets/logo.bin', new Uint8Array([0xff, 0xfe, 0x00])],
        ['skills/notes/SKILL.md', skill('notes')],
        ['skills/empty/readme.txt', text('no SKILL.md: not a skill')],
      ]),
    }],
    ['down', { commit: 'b'.repeat(40), files: new Map([['skills/old/SKILL.md', skill('old')]]) }],
  ]);
  const registries = [
    { id: 'team', url: 'https://t.example/s.git' },
    { id: 'down', url: 'https://d.example/s.git' },
    { id: 'never', url: 'https://n.example/s.git' },
  ];

  it('moves from cloning to ready or failed, serving the last clone and warning', async () => {
    const lines: [string, string][] = [];
    const deps = {
      mirror: fakeMirror(clones, new Set(['team'])),
      clock: { now: () => new Date(Date.UTC(2026, 10, 27, 12)) },
      log: (line: string, level: 'info' | 'warn') => void lines.push([level, line]),
    };
    const skills = createSkillRegistries(deps, registries);
    expect(skills.status().map((s) => s.state)).toEqual(['cloning', 'cloning', 'cloning']);
    await skills.update();
    const [team, down, never] = skills.status();
    expect(team).toMatchObject({ state: 'ready', commit: 'a'.repeat(40), skills: 2, lastFailure: null });
    expect(team!.updatedAt).toBe('2026-11-27T12:00:00.000Z');
    expect(down).toMatchObject({ state: 'failed', commit: 'b'.repeat(40), skills: 1, updatedAt: null });
    expect(down!.lastFailure).toEqual({ at: '2026-11-27T12:00:00.000Z', message: 'connect ECONNREFUSED 127.0.0.1:1' });
    expect(never).toMatchObject({ state: 'failed', commit: null, skills: 0 });
    expect(lines.filter(([level]) => level === 'warn').map(([, line]) => line)).toEqual([
      '[skills] registry down (https://d.example/s.git) could not be updated: connect ECONNREFUSED 127.0.0.1:1; ' +
      'serving its last clone at bbbbbbbbbbbb',
      '[skills] registry never (https://n.example/s.git) could not be updated: connect ECONNREFUSED 127.0.0.1:1; ' +
      'no clone to serve yet',
    ]);
    expect((await skills.skills()).map((s) => `${s.registry}/${s.slug}`)).toEqual([
      'team/notes',
      'team/plan',
      'down/old',
    ]);
  });

  it('refuses a bundle with a file that is not text, an unknown skill and an unknown registry', async () => {
    const skills = createSkillRegistries({
      mirror: fakeMirror(clones, new Set()),
      clock: { now: () => new Date(0) },
      log: () => undefined,
    }, registries);
    const binary = await skills.skillFiles('team', 'plan').catch((e: unknown) => e);
    expect(isPlatformError(binary, 'skill_not_text') && binary.status).toBe(422);
    expect((binary as Error).message).toContain('skills/plan/assets/logo.bin');
    expect((await skills.skillFiles('team', 'notes')).files.map((f) => f.path)).toEqual(['skills/notes/SKILL.md']);
    const missing = await skills.skillFiles('team', 'empty').catch((e: unknown) => e);
    expect(isPlatformError(missing, 'skill_not_found') && (missing as Error).message).toContain(
      'its skills: notes, plan',
    );
    const unknown = await skills.skills('nope').catch((e: unknown) => e);
    expect(isPlatformError(unknown, 'registry_not_found') && unknown.status).toBe(404);
  });

  it('is ready with what its read left out as the last failure, and a warning', async () => {
    const link = 'skills/evil is a symbolic link: registries are read without following links';
    const leaky = new Map([['team', { ...clones.get('team')!, leftOut: [link] }]]);
    const lines: string[] = [];
    const skills = createSkillRegistries({
      mirror: fakeMirror(leaky, new Set(['team'])),
      clock: { now: () => new Date(0) },
      log: (line, level) => void (level === 'warn' && lines.push(line)),
    }, [registries[0]!]);
    await skills.update();
    const [team] = skills.status();
    expect(team).toMatchObject({ state: 'ready', skills: 2 });
    expect(team!.lastFailure?.message).toBe(`Left out of the registry: ${link}.`);
    expect(lines).toEqual([`[skills] registry team: Left out of the registry: ${link}.`]);
  });
});
