/**
 * Who may see and change a semantic project: the one authorization of every /api/semantic/* route.
 *
 * A project belongs to one organization. Its members hold a role on it as on an agent (the organization's
 * group grants, keyed by the project's id or `*`): Reader reads (sources, digest, changes, validation, tokens
 * list, call log, stats, improvements), User also queries through the playground, Maintainer edits, uploads,
 * publishes, creates and revokes tokens and marks improvement requests done. Creating a project needs the
 * `agents:create` permission. Anyone who is not a member of the project's organization gets the answer of a
 * project that does not exist ({@link projectNotFound}): no slug, no organization id in it.
 *
 * The organization checks come from core/org through {@link SemanticAuthority} (wired in
 * core/boot/semantic-authority.ts; a domain does not import another).
 *
 * Source: docs/decisions.md D17 § 1; spec/platform-service.md § Authentication rule 8 (roles).
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { createProject, type CreateProjectInput, listProjects, projectNotFound } from './projects.ts';
import { collections, type ProjectRecord } from './records.ts';

/** Roles on a project, lowest first (core/org's agent roles). */
export type ProjectRole = 'reader' | 'user' | 'maintainer' | 'administrator';

/** The signed-in member acting (core/org's caller). */
export interface SemanticCaller {
  subject: string;
  email: string;
  name?: string;
}

/**
 * The organization checks of the semantic routes, given by the process from core/org. Errors are core/org's
 * `not_found` (404) for an organization the caller is not in (its message is never shown for a project),
 * `permission_required` (403), and `project_role_required` (403) naming the role needed.
 */
export interface SemanticAuthority {
  /** Ids of the organizations the caller is a member of. */
  orgIdsOf(caller: SemanticCaller): Promise<string[]>;
  /** Requires `agents:create` of the caller in `orgId`. */
  requireCreate(caller: SemanticCaller, orgId: string): Promise<void>;
  /** Requires at least `role` on `project` (of `project.orgId`). */
  requireRole(caller: SemanticCaller, project: ProjectRef, role: ProjectRole): Promise<void>;
  /** The caller's role on each project of `orgId` (undefined: none). */
  rolesIn(caller: SemanticCaller, orgId: string): Promise<(projectId: string) => ProjectRole | undefined>;
}

/** The parts of a project the role check reads. */
export type ProjectRef = Pick<ProjectRecord, '_id' | 'orgId' | 'slug'>;

/** What the access checks need. */
export type ProjectAccessDeps = Pick<SemanticDeps, 'docs'> & { authority: SemanticAuthority };

/**
 * The project `slug` after checking the caller holds at least `role` on it.
 * @throws PlatformError `not_found` (404, {@link projectNotFound}) when there is no such project or the caller is
 *   not a member of its organization; `project_role_required` (403) when their role is too low
 */
export async function loadProject(
  deps: ProjectAccessDeps,
  caller: SemanticCaller,
  slug: string,
  role: ProjectRole,
): Promise<ProjectRecord> {
  const project = await deps.docs.collection<ProjectRecord>(collections.projects).findOne({ slug });
  if (!project) throw projectNotFound();
  try {
    await deps.authority.requireRole(caller, project, role);
  } catch (error) {
    if (isPlatformError(error, 'not_found')) throw projectNotFound();
    throw error;
  }
  return project;
}

/** The organization filter of a project list (`?orgId=`) that names none of the caller's. */
function noSuchOrganization(): PlatformError {
  const message = 'No such organization among yours; GET /api/orgs lists the organizations you are a member of.';
  return new PlatformError('not_found', message, { status: 404 });
}

/**
 * The projects the caller holds at least Reader on, in their organizations (or in `orgId` only), by slug.
 * @throws PlatformError `not_found` (404) when `orgId` is not one of the caller's organizations (no id in it)
 */
export async function listProjectsFor(
  deps: ProjectAccessDeps,
  caller: SemanticCaller,
  orgId?: string,
): Promise<ProjectRecord[]> {
  const mine = await deps.authority.orgIdsOf(caller);
  if (orgId !== undefined && !mine.includes(orgId)) throw noSuchOrganization();
  const orgIds = orgId === undefined ? mine : [orgId];
  const roleOf = async (id: string) => [id, await deps.authority.rolesIn(caller, id)] as const;
  const roles = new Map(await Promise.all(orgIds.map(roleOf)));
  return (await listProjects(deps, orgIds)).filter((p) => roles.get(p.orgId)?.(p._id) !== undefined);
}

/**
 * The organization a new project goes to: `orgId` when given (one of the caller's), else the caller's only one.
 * @throws PlatformError `not_found` (404) for an `orgId` that is not the caller's; `ambiguous_organization` (409)
 *   when the caller is in several and named none; `no_organization` (409) when they are in none
 */
export async function organizationForNewProject(
  deps: ProjectAccessDeps,
  caller: SemanticCaller,
  orgId?: string,
): Promise<string> {
  const mine = await deps.authority.orgIdsOf(caller);
  if (orgId !== undefined) {
    if (!mine.includes(orgId)) throw noSuchOrganization();
    return orgId;
  }
  if (mine.length === 1) return mine[0]!;
  if (mine.length === 0) {
    const message = 'You are not a member of any organization yet: create one (POST /api/orgs) or accept an ' +
      'invitation, then create the project.';
    throw new PlatformError('no_organization', message, { status: 409 });
  }
  const message =
    `You are a member of ${mine.length} organizations: name the one the project belongs to with "orgId" ` +
    'in the body (GET /api/orgs lists them; cairn semantic import takes --org).';
  throw new PlatformError('ambiguous_organization', message, { status: 409 });
}

/** Input of {@link createProjectFor}: {@link CreateProjectInput} with `orgId` optional. */
export type NewProjectInput = Omit<CreateProjectInput, 'orgId'> & { orgId?: string };

/**
 * Creates a project in `input.orgId` (or the caller's only organization) after checking `agents:create` there.
 * @throws PlatformError as {@link organizationForNewProject}; `permission_required` (403); as {@link createProject}
 */
export async function createProjectFor(
  deps: ProjectAccessDeps & SemanticDeps,
  caller: SemanticCaller,
  input: NewProjectInput,
): Promise<ProjectRecord> {
  const orgId = await organizationForNewProject(deps, caller, input.orgId);
  await deps.authority.requireCreate(caller, orgId);
  return createProject(deps, { ...input, orgId });
}
