/**
 * /decide/<token>: the page a decision link leads to (a mail, a chat message), for a person who may have no account:
 * no sign-in, no navigation to the rest of the app, nothing naming the session. It reads the decision
 * (`GET /api/decisions/<token>`) and shows its form (./DecisionLinkForm.tsx); once decided it says where the
 * decision moved and that the page may be closed. A link that is unknown says it is not valid; one already used,
 * decided another way or expired says so (410 `decision_link_gone`).
 *
 * Source: docs/decisions.md D26 § 3 (decision links).
 */
import { useQuery } from '@tanstack/react-query';
import { useState, type ReactNode } from 'react';
import { useBranding } from '../../app/branding.ts';
import { ErrorMessage, Loading } from '../../ui/kit.tsx';
import { linkEndedText, readLinkDecision } from './decision-link.ts';
import { DecisionLinkForm } from './DecisionLinkForm.tsx';
import './decide.css';

// The page's address holds the token: no request of this page (the API's, the branding's) names it as its Referer.
// Set when this page's module loads, before anything of it renders; the page leads nowhere else.
if (!document.querySelector('meta[name="referrer"]')) {
  const meta = document.createElement('meta');
  meta.name = 'referrer';
  meta.content = 'no-referrer';
  document.head.append(meta);
}

/** What the page says once the form is gone: a headline and a line under it. */
interface Outcome {
  headline: string;
  line: string;
}

const closeLine = 'You can close this page.';

/** The outcome of a link the API refuses (404, 410), or undefined for another error. */
function endedOutcome(error: unknown): Outcome | undefined {
  const headline = linkEndedText(error);
  if (headline === undefined) return undefined;
  const line = headline.startsWith('This link is not valid')
    ? 'Check that the whole address was opened, or ask whoever sent it.'
    : closeLine;
  return { headline, line };
}

/** The decision page of link `token`. */
export function DecidePage({ token }: { token: string }) {
  const link = useQuery({ queryKey: ['decision-link', token], queryFn: () => readLinkDecision(token), staleTime: Infinity });
  const [outcome, setOutcome] = useState<Outcome>();
  let body: ReactNode;
  if (outcome) body = <Said outcome={outcome} />;
  else if (link.isPending) body = <Loading what="Loading the decision" />;
  else if (link.isError) {
    const ended = endedOutcome(link.error);
    body = ended ? <Said outcome={ended} /> : (
      <>
        <h1>The decision could not be read</h1>
        <ErrorMessage error={link.error} retry={() => void link.refetch()} />
      </>
    );
  } else {
    body = (
      <DecisionLinkForm
        token={token}
        view={link.data}
        onDecided={(to) => setOutcome({ headline: `Decision recorded: moved to ${to}.`, line: closeLine })}
        onEnded={(error) => setOutcome(endedOutcome(error))}
      />
    );
  }
  return <LinkPanel>{body}</LinkPanel>;
}

function Said({ outcome }: { outcome: Outcome }) {
  return (
    <div role="status" className="decide-outcome">
      <h1>{outcome.headline}</h1>
      <p>{outcome.line}</p>
    </div>
  );
}

/** The page's frame: the deployment's branding (title, logo, powered-by note) and nothing that leads elsewhere. */
function LinkPanel({ children }: { children: ReactNode }) {
  const branding = useBranding();
  return (
    <main className="panel-screen decide-screen">
      <section className="panel">
        <p className="brand">{branding.logoUrl ? <img src={branding.logoUrl} alt="" className="brand-logo" /> : null}<span>{branding.title ?? 'cairn'}</span></p>
        {children}
        {branding.poweredBy ? <p className="powered-by">Powered by cairn</p> : null}
      </section>
    </main>
  );
}
