/**
 * Where the application's files (proxy/Caddyfile, web/, config.yaml) are: CAIRN_APP_DIR when given;
 * for a compiled executable (bun build --compile) the directory above its own (e.g. /app for /app/bin/api);
 * from sources the repository root.
 */
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** True when running as a compiled executable rather than `bun`/`node` on sources. */
export function isCompiledExecutable(execPath: string): boolean {
  return !['bun', 'bun.exe', 'node', 'node.exe'].includes(basename(execPath));
}

/**
 * The app directory.
 * @param binMainUrl - `import.meta.url` of a `bins/<name>/main.ts`
 * @param explicit - CAIRN_APP_DIR, when set
 */
export function appDirectory(binMainUrl: string, execPath: string, explicit?: string): string {
  if (explicit) return explicit;
  return isCompiledExecutable(execPath)
    ? resolve(dirname(execPath), '..')
    : resolve(dirname(fileURLToPath(binMainUrl)), '../..');
}
