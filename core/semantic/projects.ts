/**
 * Semantic projects: creation, lookup by slug, and the indexes every semantic collection needs.
 *
 * Source: spec/semantic-query-service.md § Resources (project), § Endpoints.
 */
import { Value } from '@sinclair/typebox/value';
import type { DocumentStore } from '../ports/document-store.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import {
  callLogRetentionDays,
  collections,
  defaultPageSize,
  type ProjectRecord,
  projectSchemaVersion,
  ProjectSlug,
} from './records.ts';
import { ensureStoredQueryIndexes } from './stored-queries.ts';

/** Declares the indexes of the semantic collections (idempotent; run at boot). */
export async function ensureSemanticIndexes(docs: DocumentStore): Promise<void> {
  await docs.collection(collections.projects).createIndex({ slug: 1 }, { unique: true });
  await docs.collection(collections.projects).createIndex({ orgId: 1, slug: 1 });
  // semantic-mcp reads the projects published since it last looked (publish-watch.ts).
  await docs.collection(collections.projects).createIndex({ publishedAt: 1 });
  await docs.collection(collections.tokens).createIndex({ tokenHash: 1 }, { unique: true });
  await docs.collection(collections.tokens).createIndex({ projectId: 1 });
  await docs.collection(collections.callLog).createIndex({ at: 1 }, {
    expireAfterSeconds: callLogRetentionDays * 86_400,
  });
  await docs.collection(collections.callLog).createIndex({ projectId: 1, at: -1 });
  await ensureStoredQueryIndexes(docs);
  await docs.collection(collections.improvements).createIndex({ projectId: 1, createdAt: -1 });
}

/** Input of {@link createProject}. */
export interface CreateProjectInput {
  /** The organization that owns it (checked by the caller: core/semantic/project-access.ts). */
  orgId: string;
  slug: string;
  /** Display name; defaults to the slug. */
  name?: string;
  /** Items per digest page; default 25, 1–200. */
  pageSize?: number;
}

/**
 * Creates a project.
 * @throws PlatformError `invalid_argument` (400) for a bad slug or page size, `conflict` (409) when the slug is taken
 *   (slugs are unique across the deployment: the MCP endpoint URL names one; the message names no organization)
 */
export async function createProject(deps: SemanticDeps, input: CreateProjectInput): Promise<ProjectRecord> {
  if (!Value.Check(ProjectSlug, input.slug)) {
    throw new PlatformError(
      'invalid_argument',
      `Project slug "${input.slug}" is not valid: use 1–63 lower-case letters, digits and hyphens, starting with a ` +
        `letter or digit.`,
      { status: 400 },
    );
  }
  const pageSize = checkPageSize(input.pageSize ?? defaultPageSize);
  const record: ProjectRecord = {
    _id: deps.ids.newId(),
    schemaVersion: projectSchemaVersion,
    orgId: input.orgId,
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
      const message = `The project slug "${input.slug}" is taken: choose another slug.`;
      throw new PlatformError('conflict', message, { status: 409 });
    }
    throw error;
  }
  return record;
}

/**
 * The one refusal of a project that does not exist or that the caller may not see (the two read the same:
 * no slug, no organization; docs/decisions.md D17 § 1).
 */
export function projectNotFound(): PlatformError {
  const message = "No such semantic project among your organizations' projects: GET /api/semantic/projects lists " +
    'them, and cairn semantic import <dir> --project <slug> creates one.';
  return new PlatformError('not_found', message, { status: 404 });
}

/** The project named by `slug`, or null. */
export async function findProject(deps: Pick<SemanticDeps, 'docs'>, slug: string): Promise<ProjectRecord | null> {
  return deps.docs.collection<ProjectRecord>(collections.projects).findOne({ slug });
}

/** The projects of the organizations `orgIds`, by slug. */
export async function listProjects(
  deps: Pick<SemanticDeps, 'docs'>,
  orgIds: readonly string[],
): Promise<ProjectRecord[]> {
  if (orgIds.length === 0) return [];
  const projects = deps.docs.collection<ProjectRecord>(collections.projects);
  return projects.find({ orgId: { $in: [...orgIds] } }, { sort: { slug: 1 } });
}

/**
 * Changes a project's display name or digest page size (the caller's role was checked by its loader).
 * @throws PlatformError `invalid_argument` (400) for a page size outside 1–200
 */
export async function updateProject(
  deps: Pick<SemanticDeps, 'docs'>,
  project: ProjectRecord,
  change: { name?: string; pageSize?: number },
): Promise<ProjectRecord> {
  const set: Record<string, unknown> = {};
  if (change.pageSize !== undefined) set.pageSize = checkPageSize(change.pageSize);
  if (change.name !== undefined && change.name.trim()) set.name = change.name.trim();
  if (Object.keys(set).length > 0) {
    await deps.docs.collection<ProjectRecord>(collections.projects).updateOne({ _id: project._id }, { $set: set });
  }
  return { ...project, ...set };
}

function checkPageSize(pageSize: number): number {
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 200) {
    throw new PlatformError('invalid_argument', 'pageSize must be a whole number from 1 to 200.', { status: 400 });
  }
  return pageSize;
}
