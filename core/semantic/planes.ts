/**
 * Published builds and the two planes the endpoints read: production reads the last published
 * build (immutable, swapped atomically on Publish); test assembles the latest saved sources on every request.
 *
 * Source: spec/semantic-query-service.md § What the service does (2), § States (production build), § Endpoints.
 */
import type { DataFile, DataSet } from '../ports/query-engine.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import type { SemanticModel } from './model.ts';
import { loadModels, type ModelProblem } from './osi/load-models.ts';
import { collections, type Plane, type ProjectRecord } from './records.ts';
import { readSourceSnapshot, sourceKeys, type SourceSnapshot } from './sources.ts';

/** A published build: the sources of one revision, frozen. */
export interface PublishedBuild extends SourceSnapshot {
  buildId: string;
  publishedAt: string;
}

/** What one endpoint serves: parsed models, their problems, and the data catalog. */
export interface AssembledPlane {
  plane: Plane;
  /** Cache key: equal keys mean equal content. */
  key: string;
  revision: number;
  models: SemanticModel[];
  problems: ModelProblem[];
  data: DataSet;
}

/**
 * Publishes the latest saved sources: validates every model, writes an immutable build, then swaps
 * the project's published build in one document update.
 * @throws PlatformError `publish_invalid` (422) listing every model problem (file, path, reason);
 *   `publish_empty` (422) when there is nothing saved
 */
export async function publish(deps: SemanticDeps, project: ProjectRecord): Promise<PublishedBuild> {
  const snapshot = await readSourceSnapshot(deps, project);
  if (Object.keys(snapshot.models).length === 0) {
    throw new PlatformError(
      'publish_empty',
      `Project "${project.slug}" has no saved models to publish: import or save models first.`,
      { status: 422 },
    );
  }
  const { problems } = loadModels(modelFiles(snapshot));
  if (problems.length > 0) {
    throw new PlatformError(
      'publish_invalid',
      `Publish refused: ${problems.length} model problem(s):\n${formatProblems(problems)}`,
      { status: 422 },
    );
  }
  const publishedAt = deps.clock.now();
  const buildId = `r${snapshot.revision}-${deps.ids.newId()}`;
  const build: PublishedBuild = { ...snapshot, buildId, publishedAt: publishedAt.toISOString() };
  const key = sourceKeys.build(project._id, buildId);
  await deps.objects.put(key, new TextEncoder().encode(JSON.stringify(build)), { contentType: 'application/json' });
  await deps.docs.collection<ProjectRecord>(collections.projects).updateOne(
    { _id: project._id },
    { $set: { publishedBuildKey: key, publishedAt, publishedRevision: snapshot.revision } },
  );
  return build;
}

/** One line per problem: `file path: reason`. */
export function formatProblems(problems: ModelProblem[]): string {
  return problems.map((p) => `- ${p.file}${p.path ? ` ${p.path}` : ''}: ${p.reason}`).join('\n');
}

/**
 * Reads what `plane` serves for `project`. Production with nothing published yields no models.
 * `cache` (optional) keeps parsed planes by content key; production builds are immutable, so a
 * cached production plane is served without reading the build again (the test plane reads its
 * sources on every request, as the spec asks, and reuses the parse when they are unchanged).
 */
export async function assemblePlane(
  deps: Pick<SemanticDeps, 'objects' | 'ids'>,
  project: ProjectRecord,
  plane: Plane,
  cache?: Map<string, AssembledPlane>,
): Promise<AssembledPlane> {
  // A published build is immutable and named by its key: a cached production plane needs no read at all.
  const buildKey = plane === 'production' && project.publishedBuildKey
    ? `${project._id}:production:${project.publishedBuildKey}`
    : undefined;
  const built = buildKey ? cache?.get(buildKey) : undefined;
  if (built) return built;
  const snapshot = plane === 'test' ? await readSourceSnapshot(deps, project) : await readBuild(deps, project);
  const key = buildKey ?? `${project._id}:${plane}:${snapshot.revision}:${snapshot.commitId}`;
  const cached = cache?.get(key);
  if (cached) return cached;
  const { models, problems } = loadModels(modelFiles(snapshot));
  const assembled: AssembledPlane = {
    plane,
    key,
    revision: snapshot.revision,
    models,
    problems,
    data: await dataSetOf(deps, snapshot.data),
  };
  if (cache) {
    if (cache.size >= 64) cache.delete(cache.keys().next().value as string);
    cache.set(key, assembled);
  }
  return assembled;
}

async function readBuild(deps: Pick<SemanticDeps, 'objects'>, project: ProjectRecord): Promise<SourceSnapshot> {
  return (await readPublishedBuild(deps, project)) ??
    { revision: 0, commitId: 'unpublished', models: {}, data: [], savedAt: project.createdAt.toISOString() };
}

/**
 * The project's published build; undefined when nothing was published.
 * @throws PlatformError `build_missing` (500) when the build the project names is not in the object store
 */
export async function readPublishedBuild(
  deps: Pick<SemanticDeps, 'objects'>,
  project: ProjectRecord,
): Promise<PublishedBuild | undefined> {
  if (!project.publishedBuildKey) return undefined;
  const bytes = await deps.objects.get(project.publishedBuildKey);
  if (!bytes) {
    throw new PlatformError(
      'build_missing',
      `The published build of "${project.slug}" is missing from the object store: publish again.`,
      { status: 500 },
    );
  }
  return JSON.parse(new TextDecoder().decode(bytes)) as PublishedBuild;
}

/** Model files (file name → YAML) in the order Publish and the planes load them: sorted by name. */
export function modelFiles(snapshot: Pick<SourceSnapshot, 'models'>): { fileName: string; text: string }[] {
  return Object.entries(snapshot.models).sort(([a], [b]) => a.localeCompare(b)).map(([fileName, text]) => ({
    fileName,
    text,
  }));
}

/** The data catalog of a snapshot; its key is the SHA-256 over sorted `name:sha256` lines. */
export async function dataSetOf(deps: Pick<SemanticDeps, 'ids'>, files: DataFile[]): Promise<DataSet> {
  const sorted = [...files].sort((a, b) => a.name.localeCompare(b.name));
  const key = await deps.ids.sha256Hex(sorted.map((f) => `${f.name}:${f.sha256}`).join('\n'));
  return { key, files: sorted };
}
