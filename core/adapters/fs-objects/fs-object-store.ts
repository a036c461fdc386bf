/**
 * The embedded {@link ObjectStore}: one file per object under a root directory, key segments as
 * folders. Writes go to a temporary file in the target folder, are flushed, then renamed over the
 * target, so readers see the old or the new object, never a mix.
 *
 * Source: docs/architecture.md § Processes (OBJSTORE_ENDPOINT=file:///data/objects); core/ports/object-store.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ObjectStore } from '../../ports/object-store.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { compareKeys, invalidKey, keyConflict, objectKeySegments, TEMP_FILE_PREFIX } from './object-key.ts';

/** Options of {@link createFsObjectStore}. */
export interface FsObjectStoreOptions {
  /** Directory holding the objects; created on first write. */
  root: string;
}

const MISSING = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

function errorCode(error: unknown): string | undefined {
  return (error as { code?: string }).code;
}

/**
 * An object store on the directory `options.root`. `contentType` is not kept (files have none).
 * Keys follow the rules of `objectKeySegments` (`invalid_key`); a key cannot be both an object and a
 * folder of other objects (S3 allows `a` and `a/b`; here the second put fails with `key_conflict`).
 * `list` walks the folder of the prefix recursively and sorts keys by UTF-8 bytes.
 */
export function createFsObjectStore(options: FsObjectStoreOptions): ObjectStore {
  const root = resolve(options.root);
  const pathOf = (key: string) => join(root, ...objectKeySegments(key));
  return {
    async put(key, body) {
      await putAtomically(pathOf(key), key, body);
    },
    async get(key) {
      const buffer = await orNullWhenMissing(readFile(pathOf(key)));
      return buffer === null ? null : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    },
    async head(key) {
      const info = await orNullWhenMissing(stat(pathOf(key)));
      return info?.isFile() === true ? { size: info.size } : null;
    },
    async delete(key) {
      const path = pathOf(key);
      try {
        await unlink(path);
      } catch (error) {
        if (MISSING.has(errorCode(error) ?? '') || errorCode(error) === 'EPERM') return;
        throw error;
      }
      await pruneEmptyFolders(root, dirname(path));
    },
    async list(prefix) {
      return listKeys(root, prefix);
    },
  };
}

/** The result of `pending`, or null when it fails because the path does not exist (or is not a file). */
async function orNullWhenMissing<T>(pending: Promise<T>): Promise<T | null> {
  try {
    return await pending;
  } catch (error) {
    if (MISSING.has(errorCode(error) ?? '')) return null;
    throw error;
  }
}

async function putAtomically(path: string, key: string, body: Uint8Array): Promise<void> {
  const folder = dirname(path);
  const temp = join(folder, `${TEMP_FILE_PREFIX}${randomBytes(8).toString('hex')}`);
  for (let attempt = 1;; attempt++) {
    try {
      await mkdir(folder, { recursive: true });
      await writeFlushed(temp, body);
      await rename(temp, path);
      return;
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      const code = errorCode(error);
      if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR') throw keyConflict(key);
      if (code === 'ENAMETOOLONG') throw invalidKey(key, 'a segment is too long for the filesystem');
      // A concurrent delete may have pruned the folder between mkdir and rename: try again.
      if (code !== 'ENOENT' || attempt >= 3) throw error;
    }
  }
}

async function writeFlushed(path: string, body: Uint8Array): Promise<void> {
  const handle = await open(path, 'wx');
  try {
    await handle.writeFile(body);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes now-empty folders from `folder` up to (not including) `root`; stops at the first non-empty one. */
async function pruneEmptyFolders(root: string, folder: string): Promise<void> {
  let current = folder;
  while (current.length > root.length && current.startsWith(root)) {
    try {
      await rmdir(current);
    } catch {
      return;
    }
    current = dirname(current);
  }
}

async function listKeys(root: string, prefix: string): Promise<string[]> {
  const folderPart = prefix.slice(0, prefix.lastIndexOf('/') + 1);
  const start = folderPart === '' ? root : join(root, ...objectKeySegments(folderPart.slice(0, -1)));
  const keys: string[] = [];
  await walk(start, folderPart, keys);
  return keys.filter((key) => key.startsWith(prefix)).sort(compareKeys);
}

async function walk(folder: string, keyPrefix: string, into: string[]): Promise<void> {
  let entries;
  try {
    entries = await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (MISSING.has(errorCode(error) ?? '')) return;
    throw error;
  }
  for (const entry of entries) {
    if (entry.name.startsWith(TEMP_FILE_PREFIX)) continue;
    if (entry.isDirectory()) await walk(join(folder, entry.name), `${keyPrefix}${entry.name}/`, into);
    else if (entry.isFile()) into.push(`${keyPrefix}${entry.name}`);
  }
}

/**
 * The root directory named by an `OBJSTORE_ENDPOINT` file URL, e.g. `file:///data/objects` → `/data/objects`.
 * @throws PlatformError `invalid_config` when `url` is not an absolute `file:` URL
 */
export function fsObjectStoreRootFromUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    throw new PlatformError('invalid_config', 'OBJSTORE_ENDPOINT is not a URL.', { cause: error });
  }
  if (parsed.protocol !== 'file:') {
    throw new PlatformError('invalid_config', 'OBJSTORE_ENDPOINT for the filesystem store must be a file:/// URL.');
  }
  try {
    return fileURLToPath(parsed);
  } catch (error) {
    throw new PlatformError('invalid_config', 'OBJSTORE_ENDPOINT must name an absolute local path (file:///…).', {
      cause: error,
    });
  }
}
