/**
 * Server state of the Members pages: query keys, readers of an organization's members, groups,
 * invitations and domains, the caller's pending offers, and one mutation helper that refreshes what a
 * change touches.
 *
 * Source: spec/platform-service.md § Authentication rules 4–8; docs/decisions.md D10 (Members).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  DomainListAnswer, GroupListAnswer, InvitationListAnswer, InvitationOffer, InvitationOfferList, MemberListAnswer, OrganizationDetail, OrganizationListAnswer,
} from '../../../../../core/org/api-views.ts';
import { api } from '../../../api/client.ts';

/** `/api/orgs/<org><rest>`, the organization id encoded. */
export function orgPath(org: string, rest = ''): string {
  return `/api/orgs/${encodeURIComponent(org)}${rest}`;
}

/** Query keys: everything of one organization under `['orgs', org]`, so invalidating it refreshes all. */
export const memberKeys = {
  orgs: ['orgs'] as const,
  org: (org: string) => ['orgs', org, 'detail'] as const,
  members: (org: string) => ['orgs', org, 'members'] as const,
  groups: (org: string) => ['orgs', org, 'groups'] as const,
  invitations: (org: string) => ['orgs', org, 'invitations'] as const,
  domains: (org: string) => ['orgs', org, 'domains'] as const,
  offers: ['invitation-offers'] as const,
  offer: (token: string) => ['invitation-link', token] as const,
};

/** GET /api/orgs (the same key and answer as the Agents pages). */
export function useOrgList() {
  return useQuery({ queryKey: memberKeys.orgs, queryFn: () => api<OrganizationListAnswer>('/api/orgs').then((r) => r.organizations) });
}

/** GET /api/orgs/:org: the organization and what the caller holds in it. */
export function useOrg(org: string) {
  return useQuery({ queryKey: memberKeys.org(org), queryFn: () => api<OrganizationDetail>(orgPath(org)) });
}

/** GET /api/orgs/:org/members. */
export function useMembers(org: string) {
  return useQuery({ queryKey: memberKeys.members(org), queryFn: () => api<MemberListAnswer>(orgPath(org, '/members')).then((r) => r.members) });
}

/** GET /api/orgs/:org/groups. */
export function useGroups(org: string) {
  return useQuery({ queryKey: memberKeys.groups(org), queryFn: () => api<GroupListAnswer>(orgPath(org, '/groups')).then((r) => r.groups) });
}

/** GET /api/orgs/:org/invitations (organization:manage only: `enabled` false otherwise). */
export function useInvitations(org: string, enabled = true) {
  return useQuery({ queryKey: memberKeys.invitations(org), enabled, queryFn: () => api<InvitationListAnswer>(orgPath(org, '/invitations')).then((r) => r.invitations) });
}

/** GET /api/orgs/:org/domains (organization:manage only). */
export function useDomains(org: string, enabled = true) {
  return useQuery({ queryKey: memberKeys.domains(org), enabled, queryFn: () => api<DomainListAnswer>(orgPath(org, '/domains')) });
}

/** How often the shell asks for new offers, in ms. */
export const offersPollMs = 5 * 60_000;

/** GET /api/invitations: the pending offers addressed to the signed-in person. */
export function useOffers() {
  return useQuery({ queryKey: memberKeys.offers, queryFn: () => api<InvitationOfferList>('/api/invitations').then((r) => r.invitations), refetchInterval: offersPollMs });
}

/** GET /api/invitations/link/:token: the offer of an invitation link (reading it accepts nothing). */
export function useLinkOffer(token: string) {
  return useQuery({ queryKey: memberKeys.offer(token), queryFn: () => api<InvitationOffer>(`/api/invitations/link/${encodeURIComponent(token)}`) });
}

/**
 * A change of `org` sent as `method path body`; on success everything of the organization (and the
 * organization list) is read again, before the mutation counts as done. Errors stay on the mutation for the caller to show.
 */
export function useOrgChange<T, V>(org: string, request: (vars: V) => { method: string; path: string; body?: unknown }) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (vars: V) => {
      const r = request(vars);
      return api<T>(r.path, { method: r.method, ...(r.body === undefined ? {} : { body: r.body }) });
    },
    onSuccess: () => Promise.all([client.invalidateQueries({ queryKey: ['orgs'], exact: true }), client.invalidateQueries({ queryKey: ['orgs', org] })]),
  });
}
