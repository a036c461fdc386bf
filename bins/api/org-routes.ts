/**
 * JSON routes of organizations under /api/orgs/… : the caller's organizations, members, groups with
 * their permissions and agent roles, and group memberships. Every route checks the caller's place in
 * the organization (403 with `permission_required` when they lack organization:manage; 404 naming no
 * identifier when they are not a member), takes no query parameters, and checks bodies with TypeBox (400 naming
 * the field). Nobody is added without their consent: members join through invitations (spec rule 7).
 *
 * Source: spec/platform-service.md § Authentication rule 8, § Errors; docs/decisions.md D7 § Organizations
 * and roles.
 */
import type { GroupView, MemberView, OrganizationDetail, OrganizationListAnswer, OrganizationView } from '../../core/org/api-views.ts';
import { Type, type Static } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import {
  addToGroup, AgentRoleGrant, createGroup, createOrganization, deleteGroup, ensureDefaultOrganization,
  getGroup, getMember, listGroups, listMembers, listOrganizations, orgAccess, PermissionSchema, prepareSignedIn, removeFromGroup, removeMember, requirePermission, updateGroup,
  type GroupRecord, type OrgAccess, type OrgCaller, type OrgDeps, type OrganizationRecord,
} from '../../core/org/index.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json, readJson } from './http-helpers.ts';

/** Dependencies of the organization routes. */
export interface OrgRouteDeps extends CallerRouteDeps<OrgCaller> {
  deps: OrgDeps;
}

/** Distinct callers whose personal organization this process has ensured, before it forgets them all. */
const rememberedCallers = 10_000;

/**
 * What runs for a caller before the organization routes, per sign-in mode, and the boot step:
 * - dev-user: the fixed user's default organization is ensured at once (at API boot); a request waits for it,
 *   and a failed attempt (logged) is retried by the next request;
 * - oidc and cloud-alb: a caller's first request ensures their personal organization (idempotent and
 *   race-safe in core/org; remembered per process so later requests skip the lookup), unless auto-onboarding
 *   offers them membership of their domain's organization (core/org/onboarding.ts: no personal organization
 *   unless they dismiss it).
 *
 * Source: docs/decisions.md D7 § Organizations and roles (default organization at first boot; personal organization at first sign-in).
 */
export function orgPreparation(options: { deps: OrgDeps; mode: 'dev-user' | 'oidc' | 'cloud-alb'; devUser: OrgCaller; logger: Logger }): (caller: OrgCaller) => Promise<void> {
  const { deps, logger } = options;
  if (options.mode === 'dev-user') {
    const ensure = () => ensureDefaultOrganization(deps, options.devUser).then((org) => {
      logger.info({ org: org._id }, 'default organization ready');
    }, (error: unknown) => {
      logger.error({ err: error instanceof Error ? error.message : String(error) }, 'default organization could not be prepared; the next request retries');
      ready = undefined;
      throw error;
    });
    let ready: Promise<void> | undefined = ensure();
    ready.catch(() => undefined);
    return async () => { await (ready ??= ensure()); };
  }
  const done = new Set<string>();
  return async (caller) => {
    if (done.has(caller.subject)) return;
    // An auto-onboarding offer awaiting the person's decision: no personal organization yet, asked again next request.
    if (await prepareSignedIn(deps, caller) === 'offered') return;
    if (done.size >= rememberedCallers) done.clear();
    done.add(caller.subject);
  };
}

const Name = (max: number) => Type.String({ minLength: 1, maxLength: max, pattern: '\\S' });
const CreateOrgBody = Type.Object({ name: Name(200) }, { additionalProperties: false });
const GroupFields = {
  permissions: Type.Optional(Type.Array(PermissionSchema, { maxItems: 10 })),
  agentRoles: Type.Optional(Type.Array(AgentRoleGrant, { maxItems: 1000 })),
};
const CreateGroupBody = Type.Object({ name: Name(100), ...GroupFields }, { additionalProperties: false });
const UpdateGroupBody = Type.Object({ name: Type.Optional(Name(100)), ...GroupFields }, { additionalProperties: false, minProperties: 1 });

type Org = { org: string };
const noParse = { parse: 'none' as const };

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function orgRoutes(env: OrgRouteDeps) {
  return new Elysia().use(organizationAndMemberRoutes(env)).use(groupRoutes(env));
}

/**
 * GET|POST /api/orgs, GET /api/orgs/:org, GET …/members, DELETE …/members/:member (a member may remove themselves);
 * POST …/members answers 410 `members_join_by_invitation` (members join only by accepting an invitation, or through
 * domain onboarding: bins/api/invitation-routes.ts).
 */
function organizationAndMemberRoutes(env: OrgRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  return new Elysia({ prefix: '/api/orgs' })
    .get('', route(async ({ caller }) => json({ organizations: (await listOrganizations(deps, caller)).map(orgView) } satisfies OrganizationListAnswer)))
    .post('', route(async ({ request, caller }) => {
      const body = await readJson(request, CreateOrgBody);
      return json(await orgDetail(deps, caller, await createOrganization(deps, caller, body.name)), 201);
    }), noParse)
    .get('/:org', route<Org>(async ({ params, caller }) => json(await orgDetail(deps, caller, (await orgAccess(deps, caller, params.org)).org))))
    .get('/:org/members', route<Org>(async ({ params, caller }) => {
      await orgAccess(deps, caller, params.org);
      return json({ members: (await listMembers(deps, params.org)).map(memberView) });
    }))
    .post('/:org/members', route<Org>(async () => {
      // Nobody joins without consent (spec § Authentication rule 7): the route that added any subject is gone.
      const message = 'Members are no longer added directly: invite the person with POST /api/orgs/<org>/invitations '
        + '{email, groups?}; they join when they accept it (or through domain onboarding).';
      throw new PlatformError('members_join_by_invitation', message, { status: 410 });
    }), noParse)
    .delete('/:org/members/:member', route<Org & { member: string }>(async ({ params, caller }) => {
      const access = await orgAccess(deps, caller, params.org);
      if (access.member._id !== params.member) await requirePermission(deps, caller, params.org, 'organization:manage');
      await removeMember(deps, access.org, params.member);
      return json({ removed: params.member });
    }));
}

/** GET|POST …/groups, PUT|DELETE …/groups/:group, POST|DELETE …/groups/:group/members/:member. */
function groupRoutes(env: OrgRouteDeps) {
  const { deps } = env;
  const route = callerRoutes(env);
  const manage = (caller: OrgCaller, orgId: string) => requirePermission(deps, caller, orgId, 'organization:manage');
  type Group = Org & { group: string };
  return new Elysia({ prefix: '/api/orgs/:org/groups' })
    .get('', route<Org>(async ({ params, caller }) => {
      await orgAccess(deps, caller, params.org);
      return json({ groups: (await listGroups(deps, params.org)).map((g) => groupView(g.group, g.memberIds)) });
    }))
    .post('', route<Org>(async ({ request, params, caller }) => {
      await manage(caller, params.org);
      const body: Static<typeof CreateGroupBody> = await readJson(request, CreateGroupBody);
      return json(groupView(await createGroup(deps, params.org, body), []), 201);
    }), noParse)
    .put('/:group', route<Group>(async ({ request, params, caller }) => {
      const { org } = await manage(caller, params.org);
      const group = await updateGroup(deps, org, params.group, await readJson(request, UpdateGroupBody));
      return json(groupView(group, await memberIdsOf(deps, org._id, group._id)));
    }), noParse)
    .delete('/:group', route<Group>(async ({ params, caller }) => {
      await deleteGroup(deps, (await manage(caller, params.org)).org, params.group);
      return json({ removed: params.group });
    }))
    .post('/:group/members/:member', route<Group & { member: string }>(async ({ params, caller }) => {
      await manage(caller, params.org);
      await addToGroup(deps, params.org, params.group, params.member);
      return json(memberView({ member: await getMember(deps, params.org, params.member), groupIds: await groupIdsOf(deps, params.org, params.member) }));
    }), noParse)
    .delete('/:group/members/:member', route<Group & { member: string }>(async ({ params, caller }) => {
      const { org } = await manage(caller, params.org);
      await removeFromGroup(deps, org, params.group, params.member);
      return json(groupView(await getGroup(deps, org._id, params.group), await memberIdsOf(deps, org._id, params.group)));
    }));
}

function orgView(org: OrganizationRecord): OrganizationView {
  return { id: org._id, name: org.name, kind: org.kind, createdAt: org.createdAt.toISOString() };
}

/** The organization with what the caller holds in it. */
async function orgDetail(deps: OrgDeps, caller: OrgCaller, org: OrganizationRecord): Promise<OrganizationDetail> {
  const access: OrgAccess = await orgAccess(deps, caller, org._id);
  const you = { memberId: access.member._id, permissions: access.permissions, groups: access.groups.map((g) => ({ id: g._id, name: g.name })), owner: access.groups.some((g) => g.builtin === 'owner') };
  return { ...orgView(org), you };
}

function memberView(view: { member: { _id: string; subject: string; email: string; name?: string; addedAt: Date }; groupIds: string[] }): MemberView {
  const { member } = view;
  return { id: member._id, subject: member.subject, email: member.email, name: member.name ?? null, groups: view.groupIds, addedAt: member.addedAt.toISOString() };
}

function groupView(group: GroupRecord, memberIds: string[]): GroupView {
  return { id: group._id, name: group.name, builtin: group.builtin ?? null, permissions: group.permissions, agentRoles: group.agentRoles, members: memberIds };
}

async function memberIdsOf(deps: OrgDeps, orgId: string, groupId: string): Promise<string[]> {
  return (await listGroups(deps, orgId)).find((g) => g.group._id === groupId)?.memberIds ?? [];
}

async function groupIdsOf(deps: OrgDeps, orgId: string, memberId: string): Promise<string[]> {
  return (await listMembers(deps, orgId)).find((m) => m.member._id === memberId)?.groupIds ?? [];
}
