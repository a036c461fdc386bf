/**
 * The limits of a skill registry's clone while isomorphic-git writes it: a registry is a stranger's repository, so the
 * bytes it downloads, the bytes and entries it writes (its `.git` and its checkout together) are capped, and nothing
 * is written outside the clone's own directory (a path through a symbolic link the checkout made is refused). Past a
 * cap the update fails with {@link RegistryRefused}, whose message says which cap and what to do.
 *
 * Source: spec/platform-service.md § Rules 16 (skill registries).
 */
import { promises as fsp } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import http from 'isomorphic-git/http/node';

/** The caps of one registry's clone. */
export interface RegistryCloneCaps {
  /** Bytes an update may download, and bytes its clone may hold on disk (`.git` and checkout). Default 64 MiB. */
  maxBytes: number;
  /** Files, folders and links the clone may hold (`.git` and checkout). Default 20,000. */
  maxEntries: number;
}

/** The default caps: 64 MiB, 20,000 entries. */
export const REGISTRY_CLONE_CAPS: RegistryCloneCaps = { maxBytes: 64 * 1024 * 1024, maxEntries: 20_000 };

/** An update refused: it passed a cap of {@link RegistryCloneCaps}, or tried to write outside its clone. */
export class RegistryRefused extends Error {}

const MIB = 1024 * 1024;
const sizeText = (bytes: number) => bytes >= MIB ? `${Math.round(bytes / MIB)} MiB` : `${bytes} bytes`;

/**
 * What isomorphic-git is given for one update of the clone at `root`: its fs and http, counting against `caps` from
 * `held` (what the clone holds already: {@link cloneUsage}; zero for a fresh clone).
 */
export function cappedGitIo(root: string, caps: RegistryCloneCaps, held = { bytes: 0, entries: 0 }) {
  const update: CloneUpdate = { root, caps, counts: { downloaded: 0, written: held.bytes, entries: held.entries } };
  return { fs: cappedFs(update), http: cappedHttp(update) };
}

/** One update of a clone: its directory, its caps, and what it downloaded and holds so far. */
interface CloneUpdate {
  root: string;
  caps: RegistryCloneCaps;
  counts: { downloaded: number; written: number; entries: number };
  /** The clone's directory with its links resolved, read on the first write. */
  base?: string;
}

/** The refusal of an update past a cap (`cap` as the message says it, `what` the count that passed it). */
function tooLarge(what: string, cap: string): RegistryRefused {
  return new RegistryRefused(
    `The registry's clone passed ${cap} (${what}); a skill registry holds skills/<slug>/ bundles of text. ` +
      'Keep the repository under that, or follow a smaller one.',
  );
}

/** Refuses a write of `path` whose folder resolves outside the clone. @throws RegistryRefused */
async function assertInside(update: CloneUpdate, path: string): Promise<void> {
  update.base ??= await fsp.realpath(update.root);
  const rel = relative(update.base, await fsp.realpath(dirname(resolve(path))));
  if (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel)) return;
  throw new RegistryRefused(
    'The registry writes through a symbolic link to outside its clone; it is refused. Remove the link from it.',
  );
}

/** Runs `write` of `path` once it stays inside and within the caps; a write that fails counts nothing. */
async function guarded<T>(update: CloneUpdate, path: string, bytes: number, write: () => Promise<T>): Promise<T> {
  const { counts, caps } = update;
  await assertInside(update, path);
  counts.written += bytes;
  counts.entries += 1;
  try {
    if (counts.written > caps.maxBytes) throw tooLarge('bytes written', sizeText(caps.maxBytes));
    if (counts.entries > caps.maxEntries) throw tooLarge('files and folders', `${caps.maxEntries} entries`);
    return await write();
  } catch (error) {
    counts.written -= bytes;
    counts.entries -= 1;
    throw error;
  }
}

/** Bytes of a file's content or a link's target as written. */
const byteLength = (data: string | Uint8Array) =>
  typeof data === 'string' ? new TextEncoder().encode(data).byteLength : data.byteLength;

/** The fs isomorphic-git writes through: folders, files and links counted and kept inside the clone. */
function cappedFs(update: CloneUpdate) {
  return {
    promises: {
      mkdir: (path: string) => guarded(update, path, 0, () => fsp.mkdir(path)),
      writeFile: (path: string, data: string | Uint8Array, options?: Parameters<typeof fsp.writeFile>[2]) =>
        guarded(update, path, byteLength(data), () => fsp.writeFile(path, data, options)),
      symlink: (target: string, path: string) =>
        guarded(update, path, byteLength(target), () => fsp.symlink(target, path)),
      readFile: fsp.readFile,
      rmdir: fsp.rmdir,
      unlink: fsp.unlink,
      stat: fsp.stat,
      lstat: fsp.lstat,
      readdir: fsp.readdir,
      readlink: fsp.readlink,
      rm: fsp.rm,
    },
  };
}

/** The http isomorphic-git downloads through: the bytes of every answer's body counted against the cap. */
function cappedHttp(update: CloneUpdate) {
  const { counts, caps } = update;
  return {
    request: async (request: Parameters<typeof http.request>[0]) => {
      const answer = await http.request(request);
      if (!answer.body) return answer;
      const source = answer.body;
      const body = (async function* () {
        for await (const chunk of source) {
          counts.downloaded += chunk.byteLength;
          if (counts.downloaded > caps.maxBytes) throw tooLarge('bytes downloaded', sizeText(caps.maxBytes));
          yield chunk;
        }
      })();
      return { ...answer, body };
    },
  };
}

/** The bytes and entries (files, folders, links; links not followed) under `dir`, `.git` included. */
export async function cloneUsage(dir: string): Promise<{ bytes: number; entries: number }> {
  const usage = { bytes: 0, entries: 0 };
  const visit = async (folder: string): Promise<void> => {
    for (const entry of await fsp.readdir(folder, { withFileTypes: true })) {
      const full = `${folder}${sep}${entry.name}`;
      usage.entries += 1;
      if (entry.isDirectory()) await visit(full);
      else usage.bytes += (await fsp.lstat(full)).size;
    }
  };
  await visit(dir);
  return usage;
}
