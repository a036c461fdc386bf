/**
 * The steps of importing a project directory from the browser (ImportProject.tsx): the chosen files classified as the
 * CLI does (core/semantic/api/import-files.ts `classifyImportPath`), a dropped folder walked, then create the project
 * (POST /api/semantic/projects), upload each data file (PUT …/blobs/:name) and save every file (POST …/sources with
 * replace), keeping what was done in the run so a retry continues from the failed step; and what a failure leaves.
 *
 * Source: spec/semantic-query-service.md § What the service does (2); docs/decisions.md D9 (Projects: import a project directory).
 */
import type { Dispatch, SetStateAction } from 'react';
import { classifyImportPath, type ClassifiedFile } from '../../../../core/semantic/api/import-files.ts';
import type { CreateProjectBody, ProjectView, SavedSourcesView, SaveSourcesBody } from '../../../../core/semantic/api/projects.ts';
import { api, ApiError, projectPath } from '../../api/client.ts';
import { formatBytes, maxDataFileBytes, uploadDataFile } from './editor/upload.ts';

/** A file as picked or dropped: its path relative to what was chosen, and the file. */
export interface PickedFile { path: string; file: File }

/** A chosen file: its path relative to what was chosen, the file, and what it counts as. */
export interface Chosen extends ClassifiedFile { path: string; file: File }

/** Where an import stands: what was done (kept for a retry) and what is happening or failed. */
export interface Run {
  createdSlug?: string;
  /** Data file name → SHA-256 answered by the upload. */
  uploaded: Record<string, string>;
  doing?: string;
  progress?: { name: string; sent: number; total: number };
  failed?: { step: string; error: unknown };
}

/** One import: the project's slug (trimmed), name and organization, the files, and where its progress goes. */
export interface ImportJob {
  target: string;
  name: string;
  orgId: string | undefined;
  models: Chosen[];
  data: Chosen[];
  setRun: Dispatch<SetStateAction<Run>>;
  /** Called once the project is created (not on a retry that finds it created). */
  onCreated(): void;
}

/** Classifies `files` (path, file) in order; a later file with the name of an earlier one of its kind is ignored. */
export function classifyAll(files: PickedFile[]): Chosen[] {
  const seen = new Map<string, string>();
  return files.map(({ path, file }) => {
    const classified = classifyImportPath(path);
    if (classified.kind === 'ignored') return { ...classified, path, file };
    const key = `${classified.kind}:${classified.name}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) return { kind: 'ignored', name: classified.name, reason: `same name as ${earlier}`, path, file };
    if (classified.kind === 'data' && file.size > maxDataFileBytes) return { kind: 'ignored', name: classified.name, reason: `${formatBytes(file.size)} is over the 20 MiB upload limit: split it or convert it to Parquet`, path, file };
    seen.set(key, path);
    return { ...classified, path, file };
  });
}

/**
 * Runs the import from where `run` stands (a retry of the same slug skips the project created and the files
 * uploaded); answers what the save answered. Throws the failing step's error, which the run keeps (run.failed).
 */
export async function runImport(job: ImportJob, run: Run): Promise<SavedSourcesView | undefined> {
  let state = run.createdSlug === job.target ? run : { uploaded: {} } as Run;
  if (state.createdSlug !== job.target) state = await createProject(job, state);
  for (const d of job.data) {
    if (state.uploaded[d.name]) continue;
    state = await uploadData(job, state, d);
  }
  return saveFiles(job, state);
}

/** Runs `work` as the step `label`: shown while it runs; a failure is kept in the run (for a retry) and thrown again. */
async function step(setRun: ImportJob['setRun'], label: string, work: () => Promise<void>): Promise<void> {
  setRun((r) => ({ ...r, doing: label, failed: undefined }));
  try {
    await work();
  } catch (error) {
    setRun((r) => ({ ...r, doing: undefined, progress: undefined, failed: { step: label, error } }));
    throw error;
  }
}

/** Step 1: creates the project; answers the run with it created. */
async function createProject(job: ImportJob, state: Run): Promise<Run> {
  await step(job.setRun, `Creating project ${job.target}`, async () => {
    const orgId = job.orgId ? { orgId: job.orgId } : {};
    const body: CreateProjectBody = { slug: job.target, ...orgId, ...(job.name.trim() ? { name: job.name.trim() } : {}) };
    await api<ProjectView>('/api/semantic/projects', { body });
  });
  const created: Run = { ...state, createdSlug: job.target, uploaded: {} };
  job.setRun(created);
  job.onCreated();
  return created;
}

/** Step 2, per data file: uploads `d` with its progress; answers the run with its SHA-256 kept. */
async function uploadData(job: ImportJob, state: Run, d: Chosen): Promise<Run> {
  let next = state;
  await step(job.setRun, `Uploading ${d.name}`, async () => {
    const progress = (sent: number, total: number) => job.setRun((r) => ({ ...r, progress: { name: d.name, sent, total } }));
    const stored = await uploadDataFile(job.target, d.name, d.file, progress);
    next = { ...state, uploaded: { ...state.uploaded, [d.name]: stored.sha256 } };
    job.setRun((r) => ({ ...r, uploaded: next.uploaded, progress: undefined }));
  });
  return next;
}

/** Step 3: saves every model file and the uploaded data files, replacing the project's files. */
async function saveFiles(job: ImportJob, state: Run): Promise<SavedSourcesView | undefined> {
  let saved: SavedSourcesView | undefined;
  await step(job.setRun, 'Saving the files', async () => {
    const texts = await Promise.all(job.models.map(async (m) => [m.name, await m.file.text()] as const));
    const body: SaveSourcesBody = { models: Object.fromEntries(texts), data: job.data.map((d) => ({ name: d.name, sha256: state.uploaded[d.name] })), replace: true, message: 'Import from the web app' };
    saved = await api<SavedSourcesView>(projectPath(job.target, '/sources'), { body });
  });
  return saved;
}

/** What a failed import leaves behind and what to do next. */
export function failureAdvice(error: unknown, created: string | undefined, uploaded: string[]): string {
  if (!created) {
    if (error instanceof ApiError && error.code === 'conflict') return 'Nothing was created: a project with this slug exists. Choose another slug and import again.';
    return 'Nothing was created. Fix what the message says and import again.';
  }
  const files = uploaded.length > 0 ? ` and ${uploaded.length} data file${uploaded.length === 1 ? '' : 's'} (${uploaded.join(', ')}) uploaded` : '';
  return `Project ${created} was created${files}, but its files are not saved yet. Retry the import to continue from the failed step (nothing is created twice), or open the project and add files in the Editor.`;
}

/** Every file under a dropped entry, with its path (no leading slash). */
export async function walk(entry: FileSystemEntry): Promise<PickedFile[]> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    return [{ path: entry.fullPath.replace(/^\/+/, ''), file }];
  }
  if (!entry.isDirectory) return [];
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const children: FileSystemEntry[] = [];
  // readEntries answers at most about 100 entries per call: read until it answers none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    children.push(...batch);
  }
  return (await Promise.all(children.map(walk))).flat();
}
