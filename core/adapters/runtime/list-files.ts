/**
 * The regular files below a directory, for reading a project or agent directory from disk (the
 * `cairn` command, the agent template): `.git` and symbolic links are skipped, so a link can never
 * pull in a file from outside the directory.
 *
 * Source: docs/agent-format.md (repository layout).
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Absolute paths of every regular file below `dir`, depth first, unsorted.
 * @throws the file system's error when `dir` cannot be read (e.g. ENOENT)
 */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map(async (entry) => {
    if (entry.name === '.git' || entry.isSymbolicLink()) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : entry.isFile() ? [path] : [];
  }));
  return nested.flat();
}
