/**
 * /invite/<token>: the consent page of an invitation link. It reads the offer (organization, who invited,
 * groups, the address) and offers "Join <org>" and "Dismiss"; opening the page and signing in accept
 * nothing. A person who arrives signed out signs in first and comes back here (web/src/auth keeps the
 * path through the provider's redirect).
 *
 * Source: spec/platform-service.md § Authentication rules 4, 7; § Front proxy routes
 * (/invite/<token>); docs/decisions.md D10 (Members).
 */
import { Link } from 'wouter';
import { ApiError } from '../../api/client.ts';
import { ErrorMessage, Loading } from '../../ui/kit.tsx';
import { refusalText } from './members/decide.ts';
import { OfferCard } from './members/OfferCard.tsx';
import { useLinkOffer } from './members/queries.ts';
import './members/members.css';

/** The consent page of `token`. */
export function InvitePage({ token }: { token: string }) {
  const offer = useLinkOffer(token);
  return (
    <div className="members-page invite-page">
      {offer.isPending ? <Loading what="Loading the invitation" />
        : offer.isError ? <LinkProblem error={offer.error} retry={() => void offer.refetch()} />
        : <OfferCard offer={offer.data} by={{ token }} heading="h1" />}
    </div>
  );
}

function LinkProblem({ error, retry }: { error: unknown; retry: () => void }) {
  const known = error instanceof ApiError && error.status >= 400 && error.status < 500;
  const words = refusalText(error);
  return (
    <section className="card offer" aria-labelledby="invite-problem">
      <h1 id="invite-problem">{known ? words.title : 'The invitation could not be read'}</h1>
      {known ? <p>{words.message}</p> : <ErrorMessage error={error} retry={retry} />}
      <p><Link href="/invitations">See your invitations</Link> · <Link href="/chat">Go to Chat</Link></p>
    </section>
  );
}
