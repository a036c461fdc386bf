/**
 * SkillRegistryMirror on the local disk with isomorphic-git over https (no git binary): one directory per registry
 * id under `root`. A directory whose clone's `remote.origin.url` is another URL, or which holds no clone, is removed
 * and cloned again; an existing clone is fetched and fast-forwarded on its default branch (shallow: depth 1). The
 * trust store is Node's (NODE_EXTRA_CA_CERTS adds a private CA, as a mirror behind one needs). A registry is a
 * stranger's repository: its clone is capped while it is written and never written outside its directory
 * (./registry-clone-limits.ts), and its files are read without following a symbolic link (./registry-files.ts).
 *
 * Source: spec/platform-service.md § Rules 16; § Deployment settings (PLATFORM_SKILL_REGISTRIES_DIR).
 */
import * as fs from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import git from 'isomorphic-git';
import type { MirroredRegistry, SkillRegistryMirror } from '../../ports/skill-registry-mirror.ts';
import {
  cappedGitIo,
  cloneUsage,
  REGISTRY_CLONE_CAPS,
  type RegistryCloneCaps,
  RegistryRefused,
} from './registry-clone-limits.ts';
import { readRegistryFiles } from './registry-files.ts';

/**
 * The mirror of registries under directory `root` (created when missing).
 * @param caps - the caps of each clone (bytes downloaded and held, entries held); default
 *   {@link REGISTRY_CLONE_CAPS} (64 MiB, 20,000 entries). A fast-forward that passes one (or that isomorphic-git
 *   refuses for the registry's history: {@link CLONE_AGAIN}) is tried again as a fresh clone; a fresh clone that
 *   passes one is removed, and the clone that was there too (the update throws, naming the cap).
 */
export function createSkillRegistryMirror(
  root: string,
  caps: RegistryCloneCaps = REGISTRY_CLONE_CAPS,
): SkillRegistryMirror {
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
  const fastForward = async (dir: string): Promise<boolean> => {
    try {
      await git.fastForward({ ...cappedGitIo(dir, caps, await cloneUsage(dir)), dir, singleBranch: true });
      return true;
    } catch (error) {
      if (error instanceof RegistryRefused || CLONE_AGAIN.includes((error as { code?: string }).code ?? '')) {
        return false;
      }
      throw error;
    }
  };
  return {
    current,
    update: async (registry) => {
      const dir = dirOf(registry);
      if ((await current(registry)) !== undefined && (await fastForward(dir))) {
        return git.resolveRef({ fs, dir, ref: 'HEAD' });
      }
      await freshClone(registry.url, dir, caps);
      return git.resolveRef({ fs, dir, ref: 'HEAD' });
    },
    files: async (registry, prefix, readCaps) => {
      if ((await current(registry)) === undefined) return { files: new Map(), leftOut: [] };
      return readRegistryFiles(dirOf(registry), prefix, readCaps);
    },
  };
}

/**
 * isomorphic-git's refusals of a fast-forward the registry's own history causes, a fresh clone gets past: a path
 * through what was a symbolic link in the clone, a local change in the way, a history rewritten (force-pushed).
 */
const CLONE_AGAIN = ['UnsafeFilepathError', 'CheckoutConflictError', 'FastForwardError', 'MergeNotSupportedError'];

/**
 * Clones `url` into a fresh directory beside `dir`, then swaps it in: a failed clone leaves what was there, unless it
 * was refused ({@link RegistryRefused}: what is there may be a fast-forward cut short, so it goes too).
 */
async function freshClone(url: string, dir: string, caps: RegistryCloneCaps): Promise<void> {
  const fresh = `${dir}.cloning`;
  await rm(fresh, { recursive: true, force: true });
  await mkdir(fresh, { recursive: true });
  try {
    await git.clone({ ...cappedGitIo(fresh, caps), dir: fresh, url, singleBranch: true, depth: 1 });
  } catch (error) {
    await rm(fresh, { recursive: true, force: true });
    if (error instanceof RegistryRefused) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  await rm(dir, { recursive: true, force: true });
  await fs.promises.rename(fresh, dir);
}
