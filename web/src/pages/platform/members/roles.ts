/**
 * Pure wording of the Members pages: labels of the permissions and agent roles, a member's role on agents
 * (the highest their groups give, per agent and on every agent), the permissions their groups give, and
 * the error codes of the organization routes told apart.
 *
 * Source: spec/platform-service.md § Authentication rule 8 (permissions, agent roles: a member's
 * role is the highest their groups give; built-in groups); docs/decisions.md D10 (Members).
 */
import type { GroupView, MemberView } from '../../../../../core/org/api-views.ts';
import { agentRoles, permissions, type AgentRole, type Permission } from '../../../../../core/org/model.ts';

const permissionText: Record<Permission, { label: string; hint: string }> = {
  'workflows:use': { label: 'Use workflows', hint: 'start workflows in Chat and through connections' },
  'sessions:personal': { label: 'Personal sessions', hint: "see every member's chats" },
  'organization:manage': { label: 'Manage the organization', hint: 'members, groups, invitations and domains' },
  'agents:create': { label: 'Create agents', hint: 'import and create agents' },
};

/** The agent roles, lowest first, with their labels (spec wording). */
export const roleOptions: readonly [AgentRole, string][] = agentRoles.map((r) => [r, roleLabel(r)]);

/** The permissions in catalog order, each with its label and what it allows. */
export const permissionOptions: readonly { id: Permission; label: string; hint: string }[] = permissions.map((id) => ({ id, ...permissionText[id] }));

/** "Reader", "User", "Maintainer", "Administrator"; an unknown role as given. */
export function roleLabel(role: string): string {
  return role ? role.charAt(0).toUpperCase() + role.slice(1) : role;
}

/** The label of a permission (its id when unknown). */
export function permissionLabel(permission: string): string {
  return (permissionText as Record<string, { label: string } | undefined>)[permission]?.label ?? permission;
}

function rank(role: string): number {
  return (agentRoles as readonly string[]).indexOf(role);
}

/** The higher of two roles (undefined counts lowest). */
function higher(a: string | undefined, b: string): string {
  return a === undefined || rank(b) > rank(a) ? b : a;
}

/**
 * What a set of agent-role grants comes to: the role on every agent (`'*'` grants), and each named agent
 * where a grant gives more than that, in the order first named.
 */
export function rolesOf(grants: readonly { agent: string; role: string }[]): { everyAgent?: string; agents: { agent: string; role: string }[] } {
  let everyAgent: string | undefined;
  for (const g of grants) if (g.agent === '*') everyAgent = higher(everyAgent, g.role);
  const byAgent = new Map<string, string>();
  for (const g of grants) if (g.agent !== '*') byAgent.set(g.agent, higher(byAgent.get(g.agent), g.role));
  const agents = [...byAgent].filter(([, role]) => everyAgent === undefined || rank(role) > rank(everyAgent)).map(([agent, role]) => ({ agent, role }));
  return { ...(everyAgent === undefined ? {} : { everyAgent }), agents };
}

/**
 * A member's role on agents in words: "Administrator on every agent", then "Maintainer on <agent>" for each
 * agent where one of their groups gives more; "No role on agents" when no group gives one. `agentName`
 * names an agent id (default: the id).
 */
export function roleSummary(member: Pick<MemberView, 'groups'>, groups: readonly GroupView[], agentName: (id: string) => string = (id) => id): string[] {
  const mine = groups.filter((g) => member.groups.includes(g.id));
  return grantsSummary(mine.flatMap((g) => g.agentRoles), agentName);
}

/** A list of agent-role grants in words (see {@link roleSummary}). */
export function grantsSummary(grants: readonly { agent: string; role: string }[], agentName: (id: string) => string = (id) => id): string[] {
  const { everyAgent, agents } = rolesOf(grants);
  const lines = [...(everyAgent ? [`${roleLabel(everyAgent)} on every agent`] : []), ...agents.map((a) => `${roleLabel(a.role)} on ${agentName(a.agent)}`)];
  return lines.length ? lines : ['No role on agents'];
}

/** The permissions a member's groups give, in catalog order. */
export function memberPermissions(member: Pick<MemberView, 'groups'>, groups: readonly GroupView[]): Permission[] {
  const held = new Set(groups.filter((g) => member.groups.includes(g.id)).flatMap((g) => g.permissions));
  return permissions.filter((p) => held.has(p));
}

/** The name of a built-in group key, for its badge. */
export function builtinLabel(builtin: string | null): string | null {
  return builtin === null ? null : builtin === 'owner' ? 'built-in · owner' : 'built-in';
}
