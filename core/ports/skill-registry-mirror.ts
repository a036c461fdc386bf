/**
 * SkillRegistryMirror port: the local clones of skill registries (public git repositories of
 * `skills/<slug>/SKILL.md` bundles), one directory per registry id under PLATFORM_SKILL_REGISTRIES_DIR. The adapter
 * (core/adapters/git/skill-registry-mirror.ts) clones and fast-forwards over https with isomorphic-git (no git
 * binary).
 *
 * Source: spec/platform-service.md § Rules 16 (skill registries), § Deployment settings
 * (PLATFORM_SKILL_REGISTRIES_DIR).
 */

/** A registry as the config names it: its id (the directory's name) and its https URL. */
export interface MirroredRegistry {
  id: string;
  url: string;
}

/** The local clones of skill registries. */
export interface SkillRegistryMirror {
  /**
   * Clones the registry into its directory, or fetches and fast-forwards the clone there. A missing directory, or one
   * holding no clone or a clone of another URL, is cloned again (what was there is removed first).
   * @returns the commit checked out
   * @throws Error when the registry cannot be reached or read (the clone there, if any, is left as it was)
   */
  update(registry: MirroredRegistry): Promise<string>;
  /** The commit of the registry's clone, or undefined when its directory holds no clone of its URL. */
  current(registry: MirroredRegistry): Promise<string | undefined>;
  /**
   * The files of the registry's clone under folder `prefix` (e.g. `skills/`), path → bytes, at most `maxBytes` in
   * all (files past it are left out). Empty without a clone.
   */
  files(registry: MirroredRegistry, prefix: string, maxBytes: number): Promise<Map<string, Uint8Array>>;
}
