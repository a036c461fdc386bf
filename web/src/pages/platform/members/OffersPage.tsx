/**
 * /invitations: the pending offers addressed to the signed-in person's verified address (invitations and
 * auto-onboarding offers of a verified domain), each with Join <org> and Dismiss. An offer decided here stays
 * on the page (showing what happened) after the list read again no longer holds it.
 *
 * Source: spec/platform-service.md § Authentication rules 5, 7; docs/decisions.md D10 (Members).
 */
import { useEffect, useState } from 'react';
import type { InvitationOffer } from '../../../../../core/org/api-views.ts';
import { ErrorMessage, Loading, PageHeader, usePaged } from '../../../ui/kit.tsx';
import { OfferCard } from './OfferCard.tsx';
import { useOffers } from './queries.ts';
import './members.css';

/** The offers list. */
export function OffersPage() {
  const offers = useOffers();
  // Offers shown once stay listed, so a card just decided keeps showing its outcome after the list is read again.
  const [shown, setShown] = useState<InvitationOffer[]>([]);
  useEffect(() => {
    if (offers.data) setShown((before) => [...before.filter((o) => !offers.data.some((n) => n.id === o.id)), ...offers.data]);
  }, [offers.data]);
  const { rows, pager } = usePaged(shown, 10);
  return (
    <div className="members-page">
      <PageHeader title="Your invitations" />
      <p className="muted">Invitations to organizations addressed to your verified address. Nothing happens until you choose Join or Dismiss.</p>
      {offers.isPending ? <Loading what="Loading your invitations" />
        : offers.isError ? <ErrorMessage error={offers.error} retry={() => void offers.refetch()} />
        : shown.length === 0 ? <p className="empty">You have no pending invitations.</p>
        : <>{rows.map((o) => <OfferCard key={o.id} offer={o} by={{ id: o.id }} />)}{pager}</>}
    </div>
  );
}
