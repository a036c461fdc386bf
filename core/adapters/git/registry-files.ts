/**
 * Reading a skill registry's clone without leaving it: only folders and regular files are followed, never a symbolic
 * link (the folder read itself, a skill folder or a file: each is left out and named), every path is checked to
 * resolve inside the clone, a file is opened without following a link and its size is known before a byte is read,
 * and the entries walked and the bytes read are capped.
 *
 * Source: spec/platform-service.md § Rules 16 (skill registries).
 */
import { constants } from 'node:fs';
import { lstat, open, readdir, realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import type { MirroredFiles, RegistryReadCaps } from '../../ports/skill-registry-mirror.ts';

/** Paths (with `/`) relative to the clone. */
const rel = (root: string, full: string) => relative(root, full).split(sep).join('/');

/**
 * The regular files of the clone at `dir` under folder `prefix`, path → bytes, within `caps`; what was left out, and
 * why, in `leftOut`.
 */
export async function readRegistryFiles(dir: string, prefix: string, caps: RegistryReadCaps): Promise<MirroredFiles> {
  const root = await realpath(dir);
  const out: MirroredFiles = { files: new Map(), leftOut: [] };
  // No trailing slash: `skills/` would be followed by lstat when it is a link.
  const { paths, leftOut } = await walk(root, join(root, prefix.replace(/\/+$/, '')), caps.maxEntries);
  out.leftOut.push(...leftOut);
  let total = 0;
  for (const path of paths) {
    const read = await readInside(root, path, caps.maxBytes - total);
    if (read instanceof Uint8Array) {
      total += read.byteLength;
      out.files.set(path, read);
    } else if (read === 'too large') {
      out.leftOut.push(`${path} and the files after it: a registry's files are read up to ${sizeText(caps.maxBytes)}`);
      break;
    } else out.leftOut.push(read);
  }
  return out;
}

const sizeText = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB in all` : `${bytes} bytes in all`;

const linkNote = (path: string) =>
  `${path} is a symbolic link: registries are read without following links (put the files themselves there)`;

/** Paths of the regular files under `from`, sorted, `.git` left out; links and what passed the cap in `leftOut`. */
async function walk(root: string, from: string, maxEntries: number): Promise<{ paths: string[]; leftOut: string[] }> {
  const found: string[] = [];
  const leftOut: string[] = [];
  let entries = 0;
  const visit = async (folder: string): Promise<void> => {
    let listed;
    try {
      listed = await readdir(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      if (entry.name === '.git') continue;
      entries += 1;
      if (entries > maxEntries) {
        leftOut.push(`entries past the first ${maxEntries} (a registry holds at most that many files and folders)`);
        return;
      }
      const full = join(folder, entry.name);
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile()) found.push(rel(root, full));
      else if (entry.isSymbolicLink()) leftOut.push(linkNote(rel(root, full)));
      if (entries > maxEntries) return;
    }
  };
  const top = await lstat(from).catch(() => undefined);
  const path = rel(root, from);
  if (top?.isSymbolicLink()) leftOut.push(linkNote(path));
  else if (top?.isDirectory() && (await resolvesTo(root, path))) await visit(from);
  return { paths: found.sort(), leftOut };
}

/** True when `path` of the clone at `root` resolves to itself: no link anywhere on its way. */
async function resolvesTo(root: string, path: string): Promise<boolean> {
  const real = await realpath(join(root, path)).catch(() => undefined);
  return real === join(root, path);
}

/**
 * The bytes of file `path` of the clone at `root`, read only when it is a regular file inside the clone of at most
 * `room` bytes (its size is known before a byte is read); `too large` past `room`; otherwise why it is left out.
 */
async function readInside(root: string, path: string, room: number): Promise<Uint8Array | string> {
  if (!(await resolvesTo(root, path))) return linkNote(path);
  let handle;
  try {
    handle = await open(join(root, path), constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return linkNote(path);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return `${path} is not a regular file`;
    if (stat.size > room) return 'too large';
    const bytes = new Uint8Array(stat.size);
    const { bytesRead } = await handle.read(bytes, 0, stat.size, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
