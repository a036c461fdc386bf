/**
 * Skill registries: the public git repositories of `skills/<slug>/SKILL.md` bundles a deployment follows (the config's
 * `skillRegistries`, or the platform's own registry without the key). They are cloned in the background at startup
 * (a process never waits for them) and fast-forwarded on later boots; a registry that cannot be reached logs a warning
 * and is served from its last clone. Each registry's state (its commit, its skill count, its last failure) is what
 * `GET /api/skill-registries` answers; its skills (name, description, whether they validate) are what an agent's
 * maintainer picks from, and a skill is copied into an environment's draft whole (./registry-skills.ts).
 *
 * Source: spec/platform-service.md § Rules 16, § Endpoints (GET /api/skill-registries); issue "Skill registries, and
 * collections with per-organization credentials and OAuth apps" § Skill registries.
 */
import type { AgentFile } from '../agent/documents.ts';
import { checkSkillFile } from '../agent/documents.ts';
import { isProblem, parseYamlSource, splitFrontMatter } from '../agent/yaml-source.ts';
import type { Clock } from '../ports/clock.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { MirroredRegistry, SkillRegistryMirror } from '../ports/skill-registry-mirror.ts';

/** The most bytes of one registry's skills read at once (16 MiB): files past it are left out. */
export const MAX_REGISTRY_BYTES = 16 * 1024 * 1024;

/** The most files and folders of one registry's `skills/` walked (10,000): the walk stops past it. */
export const MAX_REGISTRY_ENTRIES = 10_000;

/** One registry's state. */
export interface SkillRegistryStatus {
  id: string;
  url: string;
  /** `cloning` until its first update of this process ends; then `ready`, or `failed` (serving the last clone). */
  state: 'cloning' | 'ready' | 'failed';
  /** The commit served (the last clone's), or null while there is none. */
  commit: string | null;
  /** Skills of the commit served (folders `skills/<slug>/` holding a SKILL.md). */
  skills: number;
  /** ISO time of the last successful clone or fast-forward by this process, or null. */
  updatedAt: string | null;
  /**
   * The last update that failed (when, and why: the error's message), or null. An update whose clone had files left
   * out (symbolic links, which are never followed; files past {@link MAX_REGISTRY_BYTES} or
   * {@link MAX_REGISTRY_ENTRIES}) is `ready` with this naming them.
   */
  lastFailure: { at: string; message: string } | null;
}

/** A skill of a registry, as a maintainer picks it. */
export interface RegistrySkill {
  registry: string;
  /** The folder's slug: `skills/<slug>/`. */
  slug: string;
  /** Front matter `name` and `description` (empty when the SKILL.md does not say). */
  name: string;
  description: string;
  /** Files of the bundle (SKILL.md and the rest). */
  files: number;
  /** Problems of its SKILL.md as the agent validator finds them (`file:line:col message`); empty when it is valid. */
  problems: string[];
}

/** What the registries need. */
export interface SkillRegistryDeps {
  mirror: SkillRegistryMirror;
  clock: Clock;
  /** Receives `[skills]` lines (warnings for unreachable registries). */
  log(line: string, level: 'info' | 'warn'): void;
}

/** The registries of a process: their states, their skills, and the background update. */
export interface SkillRegistries {
  /** Updates every registry, one after another (the returned promise ends when all have; it never rejects). */
  update(): Promise<void>;
  /** Every registry's state, in the config's order. */
  status(): SkillRegistryStatus[];
  /** The skills of registry `id` (or of every registry), by slug. @throws PlatformError `registry_not_found` (404) */
  skills(id?: string): Promise<RegistrySkill[]>;
  /**
   * The files of skill `slug` of registry `id` as agent files (`skills/<slug>/…`, UTF-8 text).
   * @throws PlatformError `registry_not_found`, `skill_not_found` (404) naming the skills there; `skill_not_text`
   *   (422) naming a file that is not UTF-8 text
   */
  skillFiles(id: string, slug: string): Promise<{ commit: string; files: AgentFile[] }>;
}

/** The registries `registries` over `deps`; nothing is cloned until {@link SkillRegistries.update} runs. */
export function createSkillRegistries(deps: SkillRegistryDeps, registries: MirroredRegistry[]): SkillRegistries {
  const followed: Followed = {
    deps,
    registries,
    states: new Map(registries.map((r) => [r.id, {
      id: r.id,
      url: r.url,
      state: 'cloning',
      commit: null,
      skills: 0,
      updatedAt: null,
      lastFailure: null,
    }])),
    read: new Map(),
  };
  return {
    update: async () => {
      for (const registry of registries) await updateOne(followed, registry);
    },
    status: () => registries.map((r) => ({ ...followed.states.get(r.id)! })),
    skills: async (id) => {
      const chosen = id === undefined ? registries : [registryOf(followed, id)];
      const out: RegistrySkill[] = [];
      for (const registry of chosen) {
        const { bundles } = await bundlesAt(followed, registry);
        for (const [slug, files] of bundles) out.push(describeSkill(registry.id, slug, files));
      }
      return out;
    },
    skillFiles: (id, slug) => skillFilesOf(followed, id, slug),
  };
}

/** What the registries' methods share: their deps, the registries followed, their states and bundles read. */
interface Followed {
  deps: SkillRegistryDeps;
  registries: MirroredRegistry[];
  /** Each registry's state, by id. */
  states: Map<string, SkillRegistryStatus>;
  /** The bundles of each registry's clone, read once per commit (every listing and copy reads them). */
  read: Map<string, ClonedBundles>;
}

/** The registry `id`. @throws PlatformError `registry_not_found` (404) naming the registries followed */
function registryOf(followed: Followed, id: string): MirroredRegistry {
  const { registries } = followed;
  const found = registries.find((r) => r.id === id);
  if (found) return found;
  const known = registries.map((r) => r.id).join(', ') || '(none)';
  throw new PlatformError(
    'registry_not_found',
    `No skill registry "${id}" is followed here; the registries: ${known}.`,
    {
      status: 404,
    },
  );
}

/** The bundles of `registry`'s current clone (none without one), read again only when its commit changed. */
async function bundlesAt(followed: Followed, registry: MirroredRegistry): Promise<ClonedBundles> {
  const { deps, read } = followed;
  const commit = await deps.mirror.current(registry);
  if (commit === undefined) return { commit: null, bundles: new Map(), leftOut: [] };
  const known = read.get(registry.id);
  if (known?.commit === commit) return known;
  const mirrored = await deps.mirror.files(registry, 'skills/', caps);
  const fresh = { commit, bundles: bundlesOf(mirrored.files), leftOut: mirrored.leftOut };
  read.set(registry.id, fresh);
  return fresh;
}

/** Clones or fast-forwards `registry` and sets its state; a failure warns and serves the last clone. */
async function updateOne(followed: Followed, registry: MirroredRegistry): Promise<void> {
  const { deps } = followed;
  const state = followed.states.get(registry.id)!;
  const at = deps.clock.now().toISOString();
  try {
    await deps.mirror.update(registry);
    const served = await bundlesAt(followed, registry);
    const lastFailure = served.leftOut.length > 0 ? { at, message: leftOutMessage(served.leftOut) } : null;
    const skills = served.bundles.size;
    Object.assign(state, { state: 'ready', updatedAt: at, commit: served.commit, skills, lastFailure });
    deps.log(`[skills] registry ${registry.id} at ${served.commit?.slice(0, 12)}: ${state.skills} skill(s)`, 'info');
    if (lastFailure) deps.log(`[skills] registry ${registry.id}: ${lastFailure.message}`, 'warn');
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const none: ClonedBundles = { commit: null, bundles: new Map(), leftOut: [] };
    const last = await bundlesAt(followed, registry).catch(() => none);
    const lastFailure = { at, message };
    Object.assign(state, { state: 'failed', commit: last.commit, skills: last.bundles.size, lastFailure });
    const served = last.commit ? `serving its last clone at ${last.commit.slice(0, 12)}` : 'no clone to serve yet';
    deps.log(
      `[skills] registry ${registry.id} (${registry.url}) could not be updated: ${message}; ${served}`,
      'warn',
    );
  }
}

/** The files of skill `slug` of registry `id` (see {@link SkillRegistries.skillFiles}). */
async function skillFilesOf(
  followed: Followed,
  id: string,
  slug: string,
): Promise<{ commit: string; files: AgentFile[] }> {
  const registry = registryOf(followed, id);
  const { commit, bundles } = await bundlesAt(followed, registry);
  const found = bundles.get(slug);
  if (!commit || !found) {
    const names = [...bundles.keys()].join(', ') || '(none yet)';
    throw new PlatformError('skill_not_found', `Registry "${id}" has no skill "${slug}"; its skills: ${names}.`, {
      status: 404,
    });
  }
  return { commit, files: found.map((f) => textOf(f, id)) };
}

interface RawFile {
  path: string;
  bytes: Uint8Array;
}

/** A clone's commit (null: no clone), its bundles (slug → files) and what its read left out. */
interface ClonedBundles {
  commit: string | null;
  bundles: Map<string, RawFile[]>;
  leftOut: string[];
}

const caps = { maxBytes: MAX_REGISTRY_BYTES, maxEntries: MAX_REGISTRY_ENTRIES };

/** The state's message for files left out of a clone: each one and why (the first 5, then how many more). */
function leftOutMessage(leftOut: string[]): string {
  const more = leftOut.length > 5 ? `; and ${leftOut.length - 5} more` : '';
  return `Left out of the registry: ${leftOut.slice(0, 5).join('; ')}${more}.`;
}

/** The bundles of a registry's `skills/` files: slug → files, only folders holding a SKILL.md. */
function bundlesOf(files: Map<string, Uint8Array>): Map<string, RawFile[]> {
  const bySlug = new Map<string, RawFile[]>();
  for (const [path, bytes] of files) {
    const slug = path.split('/')[1];
    if (!slug || path.split('/').length < 3) continue;
    bySlug.set(slug, [...(bySlug.get(slug) ?? []), { path, bytes }]);
  }
  for (const [slug, list] of bySlug) if (!list.some((f) => f.path === `skills/${slug}/SKILL.md`)) bySlug.delete(slug);
  return new Map([...bySlug].sort(([a], [b]) => a.localeCompare(b)));
}

const decoder = new TextDecoder('utf-8', { fatal: true });

function textOf(file: RawFile, registry: string): AgentFile {
  try {
    return { path: file.path, text: decoder.decode(file.bytes) };
  } catch {
    throw new PlatformError(
      'skill_not_text',
      `${file.path} of registry "${registry}" is not UTF-8 text; an agent repository holds text files only.`,
      { status: 422 },
    );
  }
}

/** A bundle's name, description and problems (its SKILL.md read as the agent validator reads it). */
function describeSkill(registry: string, slug: string, files: RawFile[]): RegistrySkill {
  const skillFile = files.find((f) => f.path === `skills/${slug}/SKILL.md`)!;
  const text = new TextDecoder().decode(skillFile.bytes);
  const file = { path: skillFile.path, text };
  const problems = checkSkillFile(file, slug).map((p) => `${p.file}:${p.line}:${p.column} ${p.message}`);
  const front = splitFrontMatter(text);
  const parsed = front ? parseYamlSource(skillFile.path, front.yaml) : undefined;
  const data = parsed && !isProblem(parsed) ? parsed.data as Record<string, unknown> | null : null;
  const field = (key: string) => (typeof data?.[key] === 'string' ? data[key] as string : '');
  return { registry, slug, name: field('name'), description: field('description'), files: files.length, problems };
}
