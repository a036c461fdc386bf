/**
 * Members: /members (the caller's organization, or a picker when they belong to several) and
 * /members/<org>/<tab> with the tabs Members, Groups, Invitations, Domains, Design agent (its spend) and Collections
 * (the tool collections the organization connects: its own tokens, OAuth Connect). Reading members, groups and
 * collections is open to every member; the rest needs organization:manage (from GET /api/orgs/:org `you`), and
 * manage actions are hidden without it. A provider's OAuth callback that could not name the organization lands on
 * /members with `?connect_error=…`: the picker says what went wrong (or, with one organization, passes it on to its
 * Collections tab).
 *
 * Source: spec/platform-service.md § Authentication rules 4–8, § Rules 17; docs/decisions.md D10 (Members), D22 § 4.
 */
import { useState, type ComponentType } from 'react';
import { Link, Redirect } from 'wouter';
import type { OrganizationDetail } from '../../../../core/org/api-views.ts';
import { ErrorMessage, Loading, PageHeader } from '../../ui/kit.tsx';
import { CollectionsTab, ConnectNotice, useConnectOutcome } from './members/CollectionsTab.tsx';
import { DesignSpendTab } from './members/DesignSpendTab.tsx';
import { DomainsTab } from './members/DomainsTab.tsx';
import { GroupsTab } from './members/GroupsTab.tsx';
import { InvitationsTab } from './members/InvitationsTab.tsx';
import { MembersTab } from './members/MembersTab.tsx';
import { useOrg, useOrgList } from './members/queries.ts';
import './members/members.css';

/** The tabs: path segment, label, page. */
const tabs: [string, string, ComponentType<{ org: OrganizationDetail; manage: boolean }>][] = [
  ['members', 'Members', MembersTab],
  ['groups', 'Groups', GroupsTab],
  ['invitations', 'Invitations', InvitationsTab],
  ['domains', 'Domains', DomainsTab],
  ['design-spend', 'Design agent', DesignSpendTab],
  ['collections', 'Collections', CollectionsTab],
];

/** `/members/<org>/<tab>`. */
export function membersHref(org: string, tab = 'members'): string {
  return `/members/${encodeURIComponent(org)}/${tab}`;
}

/** Routes /members, /members/:org and /members/:org/:tab (default tab: members). */
export function MembersPage({ org, tab }: { org?: string; tab?: string }) {
  return <div className="members-page">{org ? <OrgMembers org={org} tab={tab ?? 'members'} /> : <OrgPicker />}</div>;
}

/** The caller's organizations: straight to the only one, else a list to choose from. */
function OrgPicker() {
  const orgs = useOrgList();
  // A Connect's callback that could not name the organization; with one organization, its Collections tab says it.
  const [search] = useState(() => window.location.search);
  const outcome = useConnectOutcome();
  if (orgs.isPending) return <Loading what="Loading your organizations" />;
  if (orgs.isError) return <><PageHeader title="Members" /><ErrorMessage error={orgs.error} retry={() => void orgs.refetch()} /></>;
  if (orgs.data.length === 1) {
    const only = orgs.data[0]!.id;
    return <Redirect to={outcome ? `${membersHref(only, 'collections')}${search}` : membersHref(only)} replace />;
  }
  return (
    <div>
      <PageHeader title="Members" />
      {outcome ? <ConnectNotice outcome={outcome} /> : null}
      {orgs.data.length === 0 ? <p className="empty">You belong to no organization. Ask an organization's manager for an invitation, or see <Link href="/invitations">your invitations</Link>.</p> : (
        <>
          <p className="muted">You belong to several organizations. Choose one to see its members.</p>
          <ul className="org-list">
            {orgs.data.map((o) => <li key={o.id}><Link href={membersHref(o.id)}>{o.name}</Link> <span className="muted small">{o.kind}</span></li>)}
          </ul>
        </>
      )}
    </div>
  );
}

function OrgMembers({ org, tab }: { org: string; tab: string }) {
  const detail = useOrg(org);
  const orgs = useOrgList();
  const current = tabs.find(([path]) => path === tab);
  if (detail.isPending) return <Loading what="Loading the organization" />;
  if (detail.isError) {
    return (
      <div>
        <p className="crumbs"><Link href="/members">Members</Link> / <span>{org}</span></p>
        <ErrorMessage error={detail.error} retry={() => void detail.refetch()} title="Organization not found" />
      </div>
    );
  }
  const o = detail.data;
  const manage = o.you.permissions.includes('organization:manage');
  const Tab = current?.[2];
  return (
    <div>
      {(orgs.data?.length ?? 0) > 1 ? <p className="crumbs"><Link href="/members">Organizations</Link> / <span>{o.name}</span></p> : null}
      <PageHeader title={o.name} />
      <p className="muted small">
        Your groups: {o.you.groups.map((g) => g.name).join(', ') || 'none'}.
        {manage ? ' You can manage this organization.' : ' Only members who can manage the organization change its members, groups, invitations and domains.'}
      </p>
      <nav className="tabs" aria-label="Organization pages">
        {tabs.map(([path, text]) => <Link key={path} href={membersHref(o.id, path)} aria-current={path === tab ? 'page' : undefined} className={path === tab ? 'tab active' : 'tab'}>{text}</Link>)}
      </nav>
      {Tab ? <Tab org={o} manage={manage} /> : <p className="empty">There is no tab “{tab}”. Choose {tabs.map(([, text]) => text).join(', ')}.</p>}
    </div>
  );
}
