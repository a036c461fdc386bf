/**
 * The shell's notice of pending invitation offers: "You are invited to join <org> — Review" (or the count
 * when there are several), linking to /invitations. Not shown on /invitations and /invite/<token>
 * themselves, nor when reading the offers fails (the page itself shows that).
 *
 * Source: spec/platform-service.md § Authentication rules 5, 7; docs/decisions.md D10 (Members).
 */
import { Link, useLocation } from 'wouter';
import { useOffers } from './queries.ts';

/** The notice, or nothing. */
export function OffersNotice() {
  const [path] = useLocation();
  const offers = useOffers();
  const pending = (offers.data ?? []).filter((o) => o.status === 'pending' && !o.alreadyMember);
  if (pending.length === 0 || path === '/invitations' || path.startsWith('/invite/')) return null;
  const names = [...new Set(pending.map((o) => o.organization.name))];
  const text = names.length === 1 ? `You are invited to join ${names[0]}` : `You are invited to join ${names.length} organizations`;
  return (
    <div className="notice offers-notice" role="status">
      {text} — <Link href="/invitations">Review</Link>
    </div>
  );
}
