/**
 * /invitations: the pending offers addressed to the signed-in person's verified address (invitations and
 * auto-onboarding offers of a verified domain), each with Join <org> and Dismiss.
 *
 * Source: ../shared/spec/platform-service.md § Authentication rules 5, 7; issue 10 (Members).
 */
import { ErrorMessage, Loading, PageHeader, usePaged } from '../../../ui/kit.tsx';
import { OfferCard } from './OfferCard.tsx';
import { useOffers } from './queries.ts';
import './members.css';

/** The offers list. */
export function OffersPage() {
  const offers = useOffers();
  const { rows, pager } = usePaged(offers.data ?? [], 10);
  return (
    <div className="members-page">
      <PageHeader title="Your invitations" />
      <p className="muted">Invitations to organizations addressed to your verified address. Nothing happens until you choose Join or Dismiss.</p>
      {offers.isPending ? <Loading what="Loading your invitations" />
        : offers.isError ? <ErrorMessage error={offers.error} retry={() => void offers.refetch()} />
        : offers.data.length === 0 ? <p className="empty">You have no pending invitations.</p>
        : <>{rows.map((o) => <OfferCard key={o.id} offer={o} by={{ id: o.id }} />)}{pager}</>}
    </div>
  );
}
