/**
 * The Members tab of /members/<org>: every member with their groups, their role on agents (the highest
 * their groups give) and, for members who manage the organization, group membership changes and Remove;
 * every member may Leave. The API refuses taking away the last Organization Owner (409 `last_owner`);
 * its message is shown as it is.
 *
 * Source: spec/platform-service.md § Authentication rule 8; docs/decisions.md D10 (Members).
 */
import { useState } from 'react';
import { useLocation } from 'wouter';
import type { GroupView, MemberView, OrganizationDetail } from '../../../../../core/org/api-views.ts';
import { Button, ErrorMessage, Loading, RelativeTime, usePaged } from '../../../ui/kit.tsx';
import { ConfirmButton } from './parts.tsx';
import { orgPath, useGroups, useMembers, useOrgChange } from './queries.ts';
import { roleSummary } from './roles.ts';

/** The members table of `org`; `manage` is the caller's organization:manage. */
export function MembersTab({ org, manage }: { org: OrganizationDetail; manage: boolean }) {
  const members = useMembers(org.id);
  const groups = useGroups(org.id);
  const [editing, setEditing] = useState<string | null>(null);
  const [, navigate] = useLocation();
  const remove = useOrgChange<{ removed: boolean }, MemberView>(org.id, (m) => ({ method: 'DELETE', path: orgPath(org.id, `/members/${encodeURIComponent(m.id)}`) }));
  const list = members.data ?? [];
  const { rows, pager } = usePaged(list);
  if (members.isPending || groups.isPending) return <Loading what="Loading members" />;
  if (members.isError) return <ErrorMessage error={members.error} retry={() => void members.refetch()} />;
  if (groups.isError) return <ErrorMessage error={groups.error} retry={() => void groups.refetch()} />;
  const groupName = (id: string) => groups.data.find((g) => g.id === id)?.name ?? id;
  const editedMember = list.find((m) => m.id === editing);
  const removeMember = (m: MemberView) => remove.mutate(m, { onSuccess: () => { if (m.id === org.you.memberId) navigate('/members'); } });
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members <span className="muted small">({list.length})</span></h2>
      {remove.isError ? <ErrorMessage error={remove.error} title={remove.variables?.id === org.you.memberId ? 'You could not leave the organization' : 'The member was not removed'} /> : null}
      <div className="table-wrap">
        <table className="stack-table">
          <thead><tr><th scope="col">Member</th><th scope="col">Groups</th><th scope="col">Role on agents</th><th scope="col">Added</th><th scope="col">Actions</th></tr></thead>
          <tbody>
            {rows.map((m) => {
              const you = m.id === org.you.memberId;
              return (
                <tr key={m.id}>
                  <td data-label="Member"><div className="member-cell"><strong>{m.name ?? m.email}</strong>{you ? <span className="badge">you</span> : null}{m.name ? <span className="muted small member-email">{m.email}</span> : null}</div></td>
                  <td data-label="Groups"><div className="chips">{m.groups.length ? m.groups.map((g) => <span key={g} className="badge chip">{groupName(g)}</span>) : <span className="muted">no group</span>}</div></td>
                  <td data-label="Role on agents"><div>{roleSummary(m, groups.data).map((line) => <div key={line}>{line}</div>)}</div></td>
                  <td data-label="Added"><RelativeTime at={m.addedAt} /></td>
                  <td data-label="Actions">
                    <div className="row-actions">
                      {manage ? <Button onClick={() => setEditing(editing === m.id ? null : m.id)} aria-expanded={editing === m.id} aria-label={`Change groups of ${m.email}`}>Change groups</Button> : null}
                      {you ? <ConfirmButton label="Leave organization" question={`Leave ${org.name}?`} confirmLabel="Yes, leave" busy={remove.isPending && remove.variables?.id === m.id} onConfirm={() => removeMember(m)} />
                        : manage ? <ConfirmButton label="Remove" ariaLabel={`Remove ${m.email}`} question={`Remove ${m.email} from ${org.name}?`} confirmLabel="Yes, remove" busy={remove.isPending && remove.variables?.id === m.id} onConfirm={() => removeMember(m)} />
                        : null}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {pager}
      {editedMember && manage ? <GroupMembership org={org} member={editedMember} groups={groups.data} onClose={() => setEditing(null)} /> : null}
    </section>
  );
}

/** Adds `member` to or removes them from each group of the organization. */
function GroupMembership({ org, member, groups, onClose }: { org: OrganizationDetail; member: MemberView; groups: GroupView[]; onClose: () => void }) {
  const change = useOrgChange<unknown, { group: GroupView; add: boolean }>(org.id, ({ group, add }) => ({
    method: add ? 'POST' : 'DELETE', path: orgPath(org.id, `/groups/${encodeURIComponent(group.id)}/members/${encodeURIComponent(member.id)}`), ...(add ? { body: {} } : {}),
  }));
  return (
    <section className="card" aria-labelledby="membership-heading">
      <h3 id="membership-heading">Groups of {member.name ?? member.email}</h3>
      <p className="muted small">A member's role on an agent is the highest any of their groups gives; their permissions are all their groups give.</p>
      {change.isError ? <ErrorMessage error={change.error} title="The group membership was not changed" /> : null}
      <ul className="plain-list">
        {groups.map((g) => {
          const inGroup = member.groups.includes(g.id);
          const busy = change.isPending && change.variables?.group.id === g.id;
          return (
            <li key={g.id} className="membership-row">
              <span><strong>{g.name}</strong> {inGroup ? <span className="badge badge-ok">member</span> : <span className="muted small">not a member</span>}</span>
              {inGroup ? <Button busy={busy} onClick={() => change.mutate({ group: g, add: false })}>Remove from {g.name}</Button>
                : <Button busy={busy} onClick={() => change.mutate({ group: g, add: true })}>Add to {g.name}</Button>}
            </li>
          );
        })}
      </ul>
      <div className="actions"><Button onClick={onClose}>Close</Button></div>
    </section>
  );
}
