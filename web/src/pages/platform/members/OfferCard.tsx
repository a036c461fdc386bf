/**
 * One invitation offer with Join <org> and Dismiss: what the consent page (/invite/<token>) and the
 * offers list (/invitations) show. Nothing is decided until a button is pressed; the offer's state
 * (closed, expired, for another address, already a member) each gets its own words.
 *
 * Source: spec/platform-service.md § Authentication rules 4, 5, 7; docs/decisions.md D10 (Members).
 */
import { Link } from 'wouter';
import type { InvitationDecision, InvitationOffer } from '../../../../../core/org/api-views.ts';
import { useSession } from '../../../auth/session.tsx';
import { Button, RelativeTime } from '../../../ui/kit.tsx';
import { useDecision, refusalText, type OfferRef } from './decide.ts';
import { personText } from './parts.tsx';

/** `offer` with its buttons; `by` says how Join and Dismiss name it; `heading` is the card's heading level. */
export function OfferCard({ offer, by, heading = 'h2' }: { offer: InvitationOffer; by: OfferRef; heading?: 'h1' | 'h2' }) {
  const decision = useDecision();
  const session = useSession();
  const H = heading;
  const org = offer.organization.name;
  const headingId = `offer-${offer.id}`;
  if (decision.isSuccess) return <Decided decision={decision.data} headingId={headingId} H={H} />;
  const refusal = decision.isError ? refusalText(decision.error, offer.signedInAs, offer.email) : undefined;
  const signOut = session.state.kind === 'signed-in' && session.state.me.signInMode === 'oidc' ? () => void session.signOut() : undefined;
  return (
    <section className="card offer" aria-labelledby={headingId}>
      <H id={headingId}>{offer.source === 'domain' ? `Join ${org}?` : `You are invited to join ${org}`}</H>
      <dl className="facts">
        <dt>Organization</dt><dd>{org}</dd>
        <dt>{offer.source === 'domain' ? 'Offered because' : 'Invited by'}</dt>
        <dd>{offer.source === 'domain' ? `your address is at a domain ${org} verified` : personText(offer.invitedBy)}</dd>
        <dt>Groups</dt><dd><div className="chips">{offer.groups.map((g) => <span key={g.id} className="badge chip">{g.name}</span>)}</div></dd>
        <dt>For the address</dt><dd className="break">{offer.email}</dd>
        <dt>Signed in as</dt><dd className="break">{offer.signedInAs}</dd>
        {offer.status === 'pending' ? <><dt>Expires</dt><dd><RelativeTime at={offer.expiresAt} /></dd></> : null}
      </dl>
      {offer.status !== 'pending' ? <ClosedNotice offer={offer} />
        : !offer.forYou ? (
          <div className="warning" role="status">
            <p><strong>This invitation is for {offer.email}.</strong> You are signed in as {offer.signedInAs}. Sign out and sign in with {offer.email} (its identity provider must say the address is verified) to join.</p>
            {signOut ? <Button onClick={signOut}>Sign out</Button> : null}
          </div>
        ) : offer.alreadyMember ? <p className="notice">You are already a member of {org}. <Link href={`/members/${encodeURIComponent(offer.organization.id)}/members`}>See its members</Link></p>
        : (
          <>
            <p>Joining adds you to {org} with the groups above. Dismiss declines the invitation; nothing happens until you choose.</p>
            {refusal ? <div className="error-box" role="alert"><strong>{refusal.title}</strong><p className="pre-wrap">{refusal.message}</p></div> : null}
            {refusal?.final && refusal.code === 'invitation_other_address' && signOut ? <Button onClick={signOut}>Sign out</Button> : null}
            {refusal?.final ? null : <div className="actions">
              <Button kind="primary" busy={decision.isPending && decision.variables?.choice === 'join'} disabled={decision.isPending} onClick={() => decision.mutate({ ref: by, choice: 'join' })}>Join {org}</Button>
              <Button busy={decision.isPending && decision.variables?.choice === 'dismiss'} disabled={decision.isPending} onClick={() => decision.mutate({ ref: by, choice: 'dismiss' })} aria-label={`Dismiss the invitation to ${org}`}>Dismiss</Button>
            </div>}
          </>
        )}
    </section>
  );
}

function ClosedNotice({ offer }: { offer: InvitationOffer }) {
  const org = offer.organization.name;
  const text = offer.status === 'accepted' ? `This invitation was already used to join ${org}.`
    : offer.status === 'dismissed' ? 'This invitation was dismissed.'
    : offer.status === 'revoked' ? `This invitation was revoked by ${org}. Ask the person who invited you for a new one.`
    : 'This invitation has expired. Ask the person who invited you for a new one.';
  return <p className="notice" role="status">{text}</p>;
}

function Decided({ decision, headingId, H }: { decision: InvitationDecision; headingId: string; H: 'h1' | 'h2' }) {
  const org = decision.organization;
  if (decision.status === 'accepted') {
    return (
      <section className="card offer" aria-labelledby={headingId}>
        <H id={headingId}>You joined {org.name}</H>
        <p className="notice" role="status">You are now a member of {org.name}.</p>
        <div className="actions">
          <Link className="btn btn-primary" href="/chat">Go to Chat</Link>
          <Link className="btn btn-secondary" href={`/members/${encodeURIComponent(org.id)}/members`}>See the members of {org.name}</Link>
        </div>
      </section>
    );
  }
  return (
    <section className="card offer" aria-labelledby={headingId}>
      <H id={headingId}>Invitation dismissed</H>
      <p className="notice" role="status">You declined the invitation to {org.name}. Nothing changed in your organizations.</p>
    </section>
  );
}
