/**
 * The Invitations tab of /members/<org> (organization:manage): the invite form (an e-mail address and the
 * groups it joins, by default the built-in User group), the invitation link shown once (cairn sends no
 * e-mail: the inviter passes the link on), and the invitations with their status, expiry and Revoke.
 * Nobody joins until the holder of the verified address opens the link, signs in and chooses Join.
 *
 * Source: spec/platform-service.md § Authentication rules 4, 7; § Deployment settings
 * (APP_BASE_URL); docs/decisions.md D10 (Members).
 */
import { useState, type FormEvent } from 'react';
import type { GroupView, InvitationCreated, InvitationView, OrganizationDetail } from '../../../../../core/org/api-views.ts';
import { Button, CopyButton, ErrorMessage, Loading, RelativeTime, TextField, usePaged } from '../../../ui/kit.tsx';
import { ConfirmButton, personText, statusBadge } from './parts.tsx';
import { orgPath, useGroups, useInvitations, useOrgChange } from './queries.ts';

/** The invitations of `org`; only members with organization:manage (`manage`) see them. */
export function InvitationsTab({ org, manage }: { org: OrganizationDetail; manage: boolean }) {
  const invitations = useInvitations(org.id, manage);
  const groups = useGroups(org.id);
  const [created, setCreated] = useState<InvitationCreated | null>(null);
  const revoke = useOrgChange<InvitationView, InvitationView>(org.id, (i) => ({ method: 'DELETE', path: orgPath(org.id, `/invitations/${encodeURIComponent(i.id)}`) }));
  const { rows, pager } = usePaged(invitations.data ?? []);
  if (!manage) return <p className="notice">Only members who can manage the organization (permission <code>organization:manage</code>) invite people and see the invitations.</p>;
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Invitations</h2>
      {groups.isPending ? <Loading what="Loading groups" />
        : groups.isError ? <ErrorMessage error={groups.error} retry={() => void groups.refetch()} />
        : <InviteForm org={org} groups={groups.data} onCreated={setCreated} />}
      {created ? <CreatedLink created={created} orgName={org.name} onClose={() => setCreated(null)} /> : null}
      <h3>Sent invitations</h3>
      {revoke.isError ? <ErrorMessage error={revoke.error} title="The invitation was not revoked" /> : null}
      {invitations.isPending ? <Loading what="Loading invitations" />
        : invitations.isError ? <ErrorMessage error={invitations.error} retry={() => void invitations.refetch()} />
        : invitations.data.length === 0 ? <p className="empty">No invitations yet.</p>
        : (
          <>
            <div className="table-wrap">
              <table className="stack-table">
                <thead><tr><th scope="col">Address</th><th scope="col">Groups</th><th scope="col">Status</th><th scope="col">Invited by</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
                <tbody>
                  {rows.map((i) => {
                    const badge = statusBadge(i.status);
                    return (
                      <tr key={i.id}>
                        <td data-label="Address"><div className="member-cell"><span className="break">{i.email}</span>{i.source === 'domain' ? <span className="muted small">auto-onboarding offer</span> : null}</div></td>
                        <td data-label="Groups"><div className="chips">{i.groups.map((g) => <span key={g.id} className="badge chip">{g.name}</span>)}</div></td>
                        <td data-label="Status"><div><span className={badge.className}>{badge.text}</span>{i.decidedAt ? <span className="muted small"> <RelativeTime at={i.decidedAt} /></span> : null}</div></td>
                        <td data-label="Invited by"><span className="break">{personText(i.invitedBy)}</span></td>
                        <td data-label="Expires">{i.status === 'pending' ? <RelativeTime at={i.expiresAt} /> : <span className="muted">—</span>}</td>
                        <td data-label="Actions">{i.status === 'pending'
                          ? <ConfirmButton label="Revoke" ariaLabel={`Revoke the invitation of ${i.email}`} question={`Revoke the invitation of ${i.email}? Its link stops working.`} confirmLabel="Yes, revoke" busy={revoke.isPending && revoke.variables?.id === i.id} onConfirm={() => revoke.mutate(i)} />
                          : <span className="muted">—</span>}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
            {pager}
          </>
        )}
    </section>
  );
}

/** E-mail and groups (the built-in User group checked at first); answers the created invitation. */
function InviteForm({ org, groups, onCreated }: { org: OrganizationDetail; groups: GroupView[]; onCreated: (c: InvitationCreated) => void }) {
  const userGroup = groups.find((g) => g.builtin === 'user');
  const [email, setEmail] = useState('');
  const [chosen, setChosen] = useState<string[]>(userGroup ? [userGroup.id] : []);
  const invite = useOrgChange<InvitationCreated, { email: string; groups: string[] }>(org.id, (body) => ({ method: 'POST', path: orgPath(org.id, '/invitations'), body }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate({ email: email.trim(), groups: chosen }, { onSuccess: (answer) => { onCreated(answer); setEmail(''); } });
  };
  const toggle = (id: string) => setChosen((now) => now.includes(id) ? now.filter((x) => x !== id) : [...now, id]);
  return (
    <form className="card invite-form" onSubmit={submit} aria-labelledby="invite-heading">
      <h3 id="invite-heading">Invite a person</h3>
      <p className="muted small verified-note">
        Only a person whose identity provider says the address is <strong>verified</strong> can join: they open the invitation link, sign in
        with that address and choose Join. Signing in alone accepts nothing. Inviting an address again replaces its pending invitation (the old link stops working).
      </p>
      <TextField label="E-mail address" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required autoComplete="off" placeholder="name@example.com" />
      <fieldset>
        <legend>Groups they join</legend>
        {groups.map((g) => (
          <label key={g.id} className="check">
            <input type="checkbox" checked={chosen.includes(g.id)} onChange={() => toggle(g.id)} />
            <span>{g.name}</span>
          </label>
        ))}
        {chosen.length === 0 ? <p className="hint">No group chosen: they join the built-in User group.</p> : null}
      </fieldset>
      {invite.isError ? <ErrorMessage error={invite.error} title="The invitation was not created" /> : null}
      <div className="actions"><Button kind="primary" type="submit" busy={invite.isPending}>Invite</Button></div>
    </form>
  );
}

/** The link of a new invitation, shown this once. */
function CreatedLink({ created, orgName, onClose }: { created: InvitationCreated; orgName: string; onClose: () => void }) {
  return (
    <section className="card new-link" aria-labelledby="link-heading">
      <h3 id="link-heading">Invitation link for {created.invitation.email}</h3>
      <p className="warning" role="status">
        <strong>Copy it now: it is shown only this once.</strong> cairn sends no e-mail; pass the link on to {created.invitation.email} yourself.
        They must open it and sign in with that verified address to join {orgName}. It expires <RelativeTime at={created.invitation.expiresAt} />.
      </p>
      <code className="link-value" aria-label="Invitation link">{created.link}</code>
      <div className="actions">
        <CopyButton text={created.link} label="Copy link" />
        <Button onClick={onClose}>Close and forget the link</Button>
      </div>
    </section>
  );
}
