/**
 * Tar archives of a bare git directory, the form in which a repository is kept in the object store,
 * and the scratch directories the repository is restored into for one call.
 *
 * Source: core/ports/git-repo.ts (repositories persisted through the object store).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { create, extract } from 'tar';

/**
 * Runs `fn` with a fresh directory `<scratchDir>/<name>-<random>` and removes it afterwards,
 * whether `fn` resolves or throws.
 */
export async function withScratchDir<R>(scratchDir: string, name: string, fn: (dir: string) => Promise<R>): Promise<R> {
  await mkdir(scratchDir, { recursive: true });
  const dir = join(scratchDir, `${name}-${randomBytes(6).toString('hex')}`);
  await mkdir(dir);
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * Packs the contents of `gitdir` into a tar archive (portable headers: no owner ids), staging it at
 * `tarPath`, which must lie outside `gitdir`.
 * @returns the archive bytes
 */
export async function packGitDir(gitdir: string, tarPath: string): Promise<Uint8Array> {
  await create({ cwd: gitdir, file: tarPath, portable: true }, ['.']);
  const buffer = await readFile(tarPath);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** Restores an archive made by {@link packGitDir} into `gitdir` (created), staging it at `tarPath`. */
export async function unpackGitDir(archive: Uint8Array, gitdir: string, tarPath: string): Promise<void> {
  await writeFile(tarPath, archive);
  await mkdir(gitdir, { recursive: true });
  await extract({ cwd: gitdir, file: tarPath, strict: true });
}

/** True when both archives hold the same bytes (or both are missing). */
export function sameArchive(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
