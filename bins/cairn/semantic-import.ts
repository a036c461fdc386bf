/**
 * `cairn semantic import <dir> --project <slug> [--org <id>] [--publish]`: saves a project directory
 * (models/*.yaml, data/*) as the project's sources, creating the project when it is new: in organization
 * `--org`, or the caller's only one (the API answers 409 `ambiguous_organization` when they are in several).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { callApi, CliError, uploadBytes, type ApiTarget } from './api-client.ts';

/** Upload limit per data file, bytes (the API's 20 MiB upload limit). */
const maxFileBytes = 20 * 1024 * 1024;
/** Files at least this large show progress. */
const progressFromBytes = 1024 * 1024;

/** Options of {@link importProject}. */
export interface ImportOptions {
  dir: string;
  slug: string;
  /** The organization a new project goes to; omitted: the caller's only one. Ignored for an existing project. */
  orgId?: string;
  publish: boolean;
  /** Digest page size to set on the project (1–200); unchanged when omitted. */
  pageSize?: number;
  /** Writes progress lines (stderr in the CLI). */
  progress: (line: string) => void;
}

/** Imports the directory; returns a summary. @throws CliError naming what is wrong */
export async function importProject(target: ApiTarget, options: ImportOptions) {
  const models = await readModels(options.dir);
  const dataFiles = await listDataFiles(options.dir);
  const created = await ensureProject(target, options.slug, options.orgId);
  if (options.pageSize !== undefined) await callApi(target, 'PATCH', `/api/semantic/projects/${options.slug}`, { pageSize: options.pageSize });
  const data: { name: string; sha256: string }[] = [];
  for (const file of dataFiles) data.push(await uploadDataFile(target, options, file));
  const saved = await callApi<{ revision: number; commitId: string; models: string[] }>(target, 'POST', `/api/semantic/projects/${options.slug}/sources`,
    { models, data, replace: true, message: `Import from ${basename(options.dir)}` });
  const published = options.publish ? await callApi<{ buildId: string; revision: number }>(target, 'POST', `/api/semantic/projects/${options.slug}/publish`) : undefined;
  return { project: options.slug, created, revision: saved.revision, commitId: saved.commitId, models: saved.models, data: data.map((d) => d.name), published: published ?? null };
}

async function readModels(dir: string): Promise<Record<string, string>> {
  const modelsDir = join(dir, 'models');
  const names = await readdir(modelsDir).catch(() => { throw new CliError(`${modelsDir} does not exist: a project directory holds models/*.yaml and data/*.`); });
  const models: Record<string, string> = {};
  for (const name of names.filter((n) => /\.ya?ml$/.test(n)).sort()) models[name] = await readFile(join(modelsDir, name), 'utf8');
  if (Object.keys(models).length === 0) throw new CliError(`${modelsDir} holds no .yaml files.`);
  return models;
}

async function listDataFiles(dir: string): Promise<{ name: string; path: string; size: number }[]> {
  const dataDir = join(dir, 'data');
  const names = await readdir(dataDir).catch(() => [] as string[]);
  const files = [];
  for (const name of names.sort()) {
    const info = await stat(join(dataDir, name));
    if (!info.isFile()) continue;
    if (info.size > maxFileBytes) throw new CliError(`data/${name} is ${(info.size / 1048576).toFixed(1)} MiB; the upload limit is 20 MiB per file. Split it or convert it to Parquet.`);
    files.push({ name, path: join(dataDir, name), size: info.size });
  }
  return files;
}

async function ensureProject(target: ApiTarget, slug: string, orgId: string | undefined): Promise<boolean> {
  try {
    await callApi(target, 'GET', `/api/semantic/projects/${slug}`);
    return false;
  } catch (error) {
    if (!(error instanceof CliError) || !/\(not_found\)$/.test(error.message)) throw error;
  }
  await callApi(target, 'POST', '/api/semantic/projects', { slug, ...(orgId ? { orgId } : {}) });
  return true;
}

async function uploadDataFile(target: ApiTarget, options: ImportOptions, file: { name: string; path: string; size: number }) {
  const bytes = new Uint8Array(await readFile(file.path));
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const show = file.size >= progressFromBytes;
  let lastShown = -1;
  const onProgress = (sent: number) => {
    const percent = Math.floor((sent / file.size) * 100);
    if (show && percent >= lastShown + 10) { lastShown = percent; options.progress(`uploading data/${file.name}: ${percent}% of ${(file.size / 1048576).toFixed(1)} MiB`); }
  };
  const stored = await uploadBytes<{ sha256: string }>(target, `/api/semantic/projects/${options.slug}/blobs/${encodeURIComponent(file.name)}`, bytes, onProgress);
  if (stored.sha256 !== sha256) throw new CliError(`data/${file.name}: the server stored different bytes (digest mismatch); try again.`);
  return { name: file.name, sha256 };
}
