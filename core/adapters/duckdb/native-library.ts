/**
 * DuckDB's native library inside a compiled executable (bun build --compile).
 *
 * The compiled semantic-mcp embeds `libduckdb.so` as a file asset (scripts/build). The embedded
 * `duckdb.node` binding needs that library but the loader cannot read it from the executable, so at
 * start this module writes it once into a cache directory, under its content-addressed asset name
 * (concurrent starts rename complete files into place), and loads it with bun:ffi. The binding,
 * imported afterwards, then finds the library already loaded (same SONAME).
 *
 * Under Node and under Bun running sources there is no embedded library: a no-op.
 *
 * Source: ../shared/TOOLCHAIN.md § Bun single-file executables.
 */
import { randomUUID } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** What the preload did. */
export type NativeLibraryPreload =
  | { loaded: false; reason: string }
  | { loaded: true; path: string; version: string; written: boolean; ms: number };

/** Options of {@link preloadDuckDbLibrary}. */
export interface NativeLibraryOptions {
  /** Directory for the extracted library; default `<os tmpdir>/cairn-native-<uid>`. Created 0700. */
  cacheDir?: string;
}

interface EmbeddedBlob extends Blob {
  name: string;
}
interface BunGlobal {
  embeddedFiles?: readonly EmbeddedBlob[];
  write(destination: string, input: Blob): Promise<number>;
}
interface FfiModule {
  dlopen(
    path: string,
    symbols: Record<string, { args: string[]; returns: string }>,
  ): { symbols: Record<string, () => unknown>; close(): void };
}

/** Matches the embedded asset name scripts/build gives the library (`libduckdb-<hash>.so`). */
export const embeddedLibraryPattern = /^libduckdb(?:-[A-Za-z0-9]+)?\.(?:so|dylib|dll)$/;

/** Handles kept for the life of the process so the library is never unloaded. */
const handles: unknown[] = [];

/** The embedded DuckDB library of this executable, if any. */
export function embeddedDuckDbLibrary(): EmbeddedBlob | undefined {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  return bun?.embeddedFiles?.find((file) => embeddedLibraryPattern.test(basename(file.name)));
}

/**
 * Writes the embedded library to the cache directory (unless already there) and loads it.
 * Call before the first (dynamic) import of `@duckdb/node-api`.
 * @throws Error naming the cache directory when it cannot be used (not ours, writable by others)
 */
export async function preloadDuckDbLibrary(options: NativeLibraryOptions = {}): Promise<NativeLibraryPreload> {
  const bun = (globalThis as { Bun?: BunGlobal }).Bun;
  if (!bun) return { loaded: false, reason: 'not running on Bun' };
  const blob = embeddedDuckDbLibrary();
  if (!blob) return { loaded: false, reason: 'no embedded DuckDB library (not a compiled executable)' };
  const started = performance.now();
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const dir = options.cacheDir ?? join(tmpdir(), `cairn-native-${uid ?? 'user'}`);
  ensurePrivateDirectory(dir, uid);
  const path = join(dir, basename(blob.name));
  let written = false;
  if (!isComplete(path, blob.size)) {
    const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
    try {
      await bun.write(temporary, blob);
      chmodSync(temporary, 0o500);
      renameSync(temporary, path);
      written = true;
    } catch (error) {
      rmSync(temporary, { force: true });
      throw new Error(`Could not write the DuckDB library to ${dir}: ${(error as Error).message}`);
    }
  }
  const ffi = (await import('bun:ffi' as string)) as FfiModule;
  const library = ffi.dlopen(path, { duckdb_library_version: { args: [], returns: 'cstring' } });
  handles.push(library);
  const version = String(library.symbols.duckdb_library_version());
  return { loaded: true, path, version, written, ms: Math.round(performance.now() - started) };
}

function isComplete(path: string, size: number): boolean {
  try {
    return statSync(path).size === size;
  } catch {
    return false;
  }
}

/** Creates `dir` (0700) and refuses a directory another user owns or others may write to. */
function ensurePrivateDirectory(dir: string, uid: number | undefined): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new Error(`The native library cache directory ${dir} cannot be created: ${(error as Error).message}`);
  }
  const info = lstatSync(dir);
  if (!info.isDirectory()) throw new Error(`The native library cache directory ${dir} is not a directory.`);
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(`The native library cache directory ${dir} belongs to another user.`);
  }
  if ((info.mode & 0o022) !== 0) {
    throw new Error(`The native library cache directory ${dir} is writable by other users.`);
  }
}
