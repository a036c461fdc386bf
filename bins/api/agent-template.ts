/**
 * The files a new agent is seeded with: the PLATFORM_TEMPLATE_REPO directory read on each creation, or
 * the built-in template when the directory is missing or holds no file.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_TEMPLATE_REPO: seeds every new
 * agent repository; built-in file set when missing or empty).
 */
import { readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { builtinTemplate } from '../../core/agent/hosting.ts';
import type { AgentFile } from '../../core/agent/index.ts';
import { listFiles } from '../../core/adapters/runtime/list-files.ts';

/** Largest template file read, bytes; larger files and more than {@link maxTemplateFiles} are refused. */
const maxTemplateFileBytes = 1024 * 1024;
const maxTemplateFiles = 2000;


/**
 * The template reader of directory `dir` (`''`: none).
 * @returns a function giving the template's files (every regular file under `dir` but `.git` and symbolic
 *   links, as UTF-8 text), or the built-in template when `dir` is unset, missing or empty
 * @throws Error naming the file when the template has a file over 1 MiB or more than 2000 files
 */
export function templateFiles(dir: string): () => Promise<AgentFile[]> {
  return async () => {
    if (!dir) return builtinTemplate();
    const paths = await listFiles(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return [];
      throw error;
    });
    if (paths.length === 0) return builtinTemplate();
    if (paths.length > maxTemplateFiles) throw new Error(`PLATFORM_TEMPLATE_REPO ${dir} holds more than ${maxTemplateFiles} files; keep only the agent's files there.`);
    return Promise.all(paths.map(async (path) => {
      const bytes = await readFile(path);
      if (bytes.byteLength > maxTemplateFileBytes) throw new Error(`Template file ${path} is larger than 1 MiB; remove it from PLATFORM_TEMPLATE_REPO.`);
      return { path: relative(dir, path).split(sep).join('/'), text: bytes.toString('utf8') };
    }));
  };
}
