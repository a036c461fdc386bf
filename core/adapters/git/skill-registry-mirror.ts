/**
 * SkillRegistryMirror on the local disk with isomorphic-git over https (no git binary): one directory per registry
 * id under `root`. A directory whose clone's `remote.origin.url` is another URL, or which holds no clone, is removed
 * and cloned again; an existing clone is fetched and fast-forwarded on its default branch (shallow: depth 1). The
 * trust store is Node's (NODE_EXTRA_CA_CERTS adds a private CA, as a mirror behind one needs).
 *
 * Source: spec/platform-service.md § Rules 16; § Deployment settings (PLATFORM_SKILL_REGISTRIES_DIR).
 */
import * as fs from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import type { MirroredRegistry, SkillRegistryMirror } from '../../ports/skill-registry-mirror.ts';

/** The mirror of registries under directory `root` (created when missing). */
export function createSkillRegistryMirror(root: string): SkillRegistryMirror {
  const dirOf = (registry: MirroredRegistry) => join(root, registry.id);
  const originOf = async (dir: string): Promise<string | undefined> => {
    try {
      return await git.getConfig({ fs, dir, path: 'remote.origin.url' }) as string | undefined;
    } catch {
      return undefined;
    }
  };
  const current = async (registry: MirroredRegistry): Promise<string | undefined> => {
    const dir = dirOf(registry);
    if ((await originOf(dir)) !== registry.url) return undefined;
    try {
      return await git.resolveRef({ fs, dir, ref: 'HEAD' });
    } catch {
      return undefined;
    }
  };
  return {
    current,
    update: async (registry) => {
      const dir = dirOf(registry);
      if ((await current(registry)) !== undefined) {
        await git.fastForward({ fs, http, dir, singleBranch: true });
        return git.resolveRef({ fs, dir, ref: 'HEAD' });
      }
      // Cloned into a fresh directory beside it, then swapped in: a failed clone leaves what was there.
      const fresh = `${dir}.cloning`;
      await rm(fresh, { recursive: true, force: true });
      await mkdir(fresh, { recursive: true });
      try {
        await git.clone({ fs, http, dir: fresh, url: registry.url, singleBranch: true, depth: 1 });
      } catch (error) {
        await rm(fresh, { recursive: true, force: true });
        throw error;
      }
      await rm(dir, { recursive: true, force: true });
      await fs.promises.rename(fresh, dir);
      return git.resolveRef({ fs, dir, ref: 'HEAD' });
    },
    files: async (registry, prefix, maxBytes) => {
      const out = new Map<string, Uint8Array>();
      if ((await current(registry)) === undefined) return out;
      const dir = dirOf(registry);
      let total = 0;
      for (const path of await walk(dir, join(dir, prefix))) {
        const bytes = await readFile(join(dir, path));
        total += bytes.byteLength;
        if (total > maxBytes) break;
        out.set(path, new Uint8Array(bytes));
      }
      return out;
    },
  };
}

/** Paths (with `/`) of the regular files under `from`, relative to `dir`, sorted; `.git` left out. */
async function walk(dir: string, from: string): Promise<string[]> {
  const found: string[] = [];
  const visit = async (folder: string) => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name === '.git') continue;
      const full = join(folder, entry.name);
      if (entry.isDirectory()) await visit(full);
      // A symbolic link is neither: nothing outside the clone is read through one.
      else if (entry.isFile()) found.push(relative(dir, full).split(sep).join('/'));
    }
  };
  await visit(from);
  return found.sort();
}
