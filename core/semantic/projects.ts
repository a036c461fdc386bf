/**
 * Semantic projects: creation, lookup by slug, and the indexes every semantic collection needs.
 *
 * Source: ../shared/spec/semantic-query-service.md § Resources (project), § Endpoints.
 */
import { Value } from '@sinclair/typebox/value';
import type { DocumentStore } from '../ports/document-store.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { callLogRetentionDays, collections, defaultPageSize, ProjectSlug, semanticSchemaVersion, type ProjectRecord } from './records.ts';

/** Declares the indexes of the semantic collections (idempotent; run at boot). */
export async function ensureSemanticIndexes(docs: DocumentStore): Promise<void> {
  await docs.collection(collections.projects).createIndex({ slug: 1 }, { unique: true });
  await docs.collection(collections.tokens).createIndex({ tokenHash: 1 }, { unique: true });
  await docs.collection(collections.tokens).createIndex({ projectId: 1 });
  await docs.collection(collections.callLog).createIndex({ at: 1 }, { expireAfterSeconds: callLogRetentionDays * 86_400 });
  await docs.collection(collections.callLog).createIndex({ projectId: 1, at: -1 });
  await docs.collection(collections.storedQueries).createIndex({ projectId: 1 });
  await docs.collection(collections.improvements).createIndex({ projectId: 1, createdAt: -1 });
}

/** Input of {@link createProject}. */
export interface CreateProjectInput {
  slug: string;
  /** Display name; defaults to the slug. */
  name?: string;
  /** Items per digest page; default 25, 1–200. */
  pageSize?: number;
}

/**
 * Creates a project.
 * @throws PlatformError `invalid_argument` (400) for a bad slug or page size, `conflict` (409) when the slug exists
 */
export async function createProject(deps: SemanticDeps, input: CreateProjectInput): Promise<ProjectRecord> {
  if (!Value.Check(ProjectSlug, input.slug)) {
    throw new PlatformError('invalid_argument', `Project slug "${input.slug}" is not valid: use 1–63 lower-case letters, digits and hyphens, starting with a letter or digit.`, { status: 400 });
  }
  const pageSize = checkPageSize(input.pageSize ?? defaultPageSize);
  const record: ProjectRecord = {
    _id: deps.ids.newId(),
    schemaVersion: semanticSchemaVersion,
    slug: input.slug,
    name: input.name?.trim() || input.slug,
    pageSize,
    createdAt: deps.clock.now(),
    sourceRevision: 0,
  };
  try {
    await deps.docs.collection<ProjectRecord>(collections.projects).insertOne(record);
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) {
      throw new PlatformError('conflict', `A project with slug "${input.slug}" already exists.`, { status: 409 });
    }
    throw error;
  }
  return record;
}

/**
 * The project named by `slug`.
 * @throws PlatformError `not_found` (404)
 */
export async function getProject(deps: Pick<SemanticDeps, 'docs'>, slug: string): Promise<ProjectRecord> {
  const project = await findProject(deps, slug);
  if (!project) throw new PlatformError('not_found', `No semantic project "${slug}": create it first (cairn semantic import <dir> --project ${slug}).`, { status: 404 });
  return project;
}

/** The project named by `slug`, or null. */
export async function findProject(deps: Pick<SemanticDeps, 'docs'>, slug: string): Promise<ProjectRecord | null> {
  return deps.docs.collection<ProjectRecord>(collections.projects).findOne({ slug });
}

/** Every project, by slug. */
export async function listProjects(deps: Pick<SemanticDeps, 'docs'>): Promise<ProjectRecord[]> {
  return deps.docs.collection<ProjectRecord>(collections.projects).find({}, { sort: { slug: 1 } });
}

/**
 * Changes a project's display name or digest page size.
 * @throws PlatformError `invalid_argument` (400) for a page size outside 1–200, `not_found` (404)
 */
export async function updateProject(deps: Pick<SemanticDeps, 'docs'>, slug: string, change: { name?: string; pageSize?: number }): Promise<ProjectRecord> {
  const project = await getProject(deps, slug);
  const set: Record<string, unknown> = {};
  if (change.pageSize !== undefined) set.pageSize = checkPageSize(change.pageSize);
  if (change.name !== undefined && change.name.trim()) set.name = change.name.trim();
  if (Object.keys(set).length > 0) await deps.docs.collection<ProjectRecord>(collections.projects).updateOne({ _id: project._id }, { $set: set });
  return { ...project, ...set };
}

function checkPageSize(pageSize: number): number {
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 200) {
    throw new PlatformError('invalid_argument', 'pageSize must be a whole number from 1 to 200.', { status: 400 });
  }
  return pageSize;
}
