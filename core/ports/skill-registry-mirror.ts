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
   * @throws Error when the registry cannot be reached or read (the clone there, if any, is left as it was), or when
   *   it passes the adapter's caps on the clone's size (the clone is then removed: the message names the cap)
   */
  update(registry: MirroredRegistry): Promise<string>;
  /** The commit of the registry's clone, or undefined when its directory holds no clone of its URL. */
  current(registry: MirroredRegistry): Promise<string | undefined>;
  /**
   * The files of the registry's clone under folder `prefix` (e.g. `skills/`), path → bytes, within `caps`; empty
   * without a clone. Nothing outside the clone is read: a symbolic link (the folder itself, a sub-folder, a file) is
   * never followed but named in `leftOut`, as are the files past a cap (a file's size is known before it is read).
   */
  files(registry: MirroredRegistry, prefix: string, caps: RegistryReadCaps): Promise<MirroredFiles>;
}

/** The caps of one read of a registry's files. */
export interface RegistryReadCaps {
  /** Bytes read in all; the file that would pass it, and the files after it (by path), are left out. */
  maxBytes: number;
  /** Files and folders walked under the prefix; past it the walk stops. */
  maxEntries: number;
}

/** What {@link SkillRegistryMirror.files} read: the files, and what was left out and why (one line each). */
export interface MirroredFiles {
  files: Map<string, Uint8Array>;
  leftOut: string[];
}
