/**
 * Model sources of a project: a git repository per project (models/*.yaml plus data/manifest.json)
 * and a source snapshot in the object store that the test endpoint reads on every request.
 * Data file bytes are content-addressed blobs in the object store (`data/manifest.json` points at them).
 *
 * Source: spec/semantic-query-service.md § What the service does (2), § States (source files: save).
 */
import type { GitRepo } from '../ports/git-repo.ts';
import { dataFileNamePattern, modelFileNamePattern } from './api/import-files.ts';
import type { DataFile } from '../ports/query-engine.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { collections, type ProjectRecord } from './records.ts';

/** The source files of a project at one revision. */
export interface SourceSnapshot {
  revision: number;
  commitId: string;
  /** Model file name (e.g. `flights.yaml`) → YAML text. */
  models: Record<string, string>;
  data: DataFile[];
  savedAt: string;
}

/** Object keys of a project, one place. */
export const sourceKeys = {
  snapshot: (projectId: string) => `semantic/${projectId}/source.json`,
  blob: (projectId: string, sha256: string) => `semantic/${projectId}/blobs/${sha256}`,
  build: (projectId: string, buildId: string) => `semantic/${projectId}/builds/${buildId}.json`,
};

const sha256Pattern = /^[0-9a-f]{64}$/;

/**
 * Stores a data file's bytes as a content-addressed blob and returns its manifest entry.
 * @throws PlatformError `invalid_argument` (400) for a bad name or a digest that does not match the bytes
 */
export async function putDataBlob(
  deps: SemanticDeps,
  project: ProjectRecord,
  name: string,
  bytes: Uint8Array,
): Promise<DataFile> {
  checkDataFileName(name);
  const sha256 = await deps.ids.sha256Hex(bytes);
  const objectKey = sourceKeys.blob(project._id, sha256);
  if (!(await deps.objects.head(objectKey))) await deps.objects.put(objectKey, bytes);
  return { name, objectKey, sha256, size: bytes.byteLength };
}

/** Input of {@link saveSources}. */
export interface SaveSourcesInput {
  /** Model files to write (file name → YAML). */
  models: Record<string, string>;
  /** Data files to reference; each blob must already be stored (see {@link putDataBlob}). */
  data: { name: string; sha256: string }[];
  /** When true the given files replace every existing one; otherwise they are merged in. */
  replace: boolean;
  /** Model and data file names to delete (merge mode). */
  deletes?: string[];
  message: string;
  author: { name: string; email: string };
}

/**
 * Saves sources: one git commit, a new snapshot, and the project's revision advanced.
 * @throws PlatformError `invalid_argument` (400) naming a bad file name or a data blob not uploaded
 */
export async function saveSources(
  deps: SemanticDeps & { git: GitRepo },
  project: ProjectRecord,
  input: SaveSourcesInput,
): Promise<SourceSnapshot> {
  for (const name of Object.keys(input.models)) checkModelFileName(name);
  const previous = await readSourceSnapshot(deps, project);
  const models = input.replace ? {} as Record<string, string> : { ...previous.models };
  const data = new Map(input.replace ? [] : previous.data.map((f) => [f.name, f] as const));
  for (const name of input.deletes ?? []) {
    delete models[name];
    data.delete(name);
  }
  Object.assign(models, input.models);
  for (const entry of input.data) data.set(entry.name, await dataFileFor(deps, project, entry));
  const manifest = [...data.values()].sort((a, b) => a.name.localeCompare(b.name));
  const files: Record<string, string> = { 'data/manifest.json': JSON.stringify(manifest, null, 2) + '\n' };
  for (const [name, text] of Object.entries(models)) files[`models/${name}`] = text;
  const existing = await deps.git.readFiles(project._id);
  const deletes = [...existing.keys()].filter((path) => !(path in files));
  const { commitId } = await deps.git.commit(project._id, {
    files,
    deletes,
    message: input.message,
    author: input.author,
  });
  const projects = deps.docs.collection<ProjectRecord>(collections.projects);
  await projects.updateOne({ _id: project._id }, { $inc: { sourceRevision: 1 } });
  const updated = await projects.findOne({ _id: project._id });
  const snapshot: SourceSnapshot = {
    revision: updated?.sourceRevision ?? previous.revision + 1,
    commitId,
    models,
    data: manifest,
    savedAt: deps.clock.now().toISOString(),
  };
  await deps.objects.put(sourceKeys.snapshot(project._id), new TextEncoder().encode(JSON.stringify(snapshot)), {
    contentType: 'application/json',
  });
  return snapshot;
}

/** The latest saved sources (an empty snapshot before the first save). */
export async function readSourceSnapshot(
  deps: Pick<SemanticDeps, 'objects'>,
  project: ProjectRecord,
): Promise<SourceSnapshot> {
  const bytes = await deps.objects.get(sourceKeys.snapshot(project._id));
  if (!bytes) return { revision: 0, commitId: '', models: {}, data: [], savedAt: project.createdAt.toISOString() };
  return JSON.parse(new TextDecoder().decode(bytes)) as SourceSnapshot;
}

async function dataFileFor(
  deps: SemanticDeps,
  project: ProjectRecord,
  entry: { name: string; sha256: string },
): Promise<DataFile> {
  checkDataFileName(entry.name);
  if (!sha256Pattern.test(entry.sha256)) {
    throw new PlatformError('invalid_argument', `Data file "${entry.name}": sha256 must be 64 lower-case hex digits.`, {
      status: 400,
    });
  }
  const objectKey = sourceKeys.blob(project._id, entry.sha256);
  const head = await deps.objects.head(objectKey);
  if (!head) {
    throw new PlatformError(
      'invalid_argument',
      `Data file "${entry.name}" (sha256 ${entry.sha256}) was not uploaded: upload its bytes first.`,
      { status: 400 },
    );
  }
  return { name: entry.name, objectKey, sha256: entry.sha256, size: head.size };
}

function checkModelFileName(name: string): void {
  if (!modelFileNamePattern.test(name)) {
    throw new PlatformError(
      'invalid_argument',
      `Model file name "${name}" is not valid: use letters, digits, "_", "-", "." ending in .yaml (the name ` +
        `without .yaml is the model name).`,
      { status: 400 },
    );
  }
}

function checkDataFileName(name: string): void {
  if (!dataFileNamePattern.test(name)) {
    throw new PlatformError(
      'invalid_argument',
      `Data file name "${name}" is not valid: use letters, digits, "_", "-", "." ending in .parquet, .csv, .tsv, ` +
        `.json, .jsonl, .ndjson or .duckdb.`,
      { status: 400 },
    );
  }
}
