/**
 * The screens shown instead of the app while nobody is signed in: the cannot-be-reached message with Try
 * again (rule 3), the sign-in page (oidc), sign-in failed (a lost cloud-alb session, any other refusal),
 * the waitlist (rule 6), verify your address (rule 4), and /signed-out.
 *
 * Source: spec/platform-service.md § Platform sign-in modes, § Rules 3, 4, 6.
 */
import type { ReactNode } from 'react';
import { useBranding } from '../app/branding.ts';
import { Button, Loading } from '../ui/kit.tsx';
import { useSession } from './session.tsx';

/** A screen of its own, under the deployment's branding (title, logo, powered-by note). */
function Panel({ title, children }: { title: string; children: ReactNode }) {
  const branding = useBranding();
  return (
    <main className="panel-screen">
      <section className="panel">
        <p className="brand">{branding.logoUrl ? <img src={branding.logoUrl} alt="" className="brand-logo" /> : null}<span>{branding.title ?? 'cairn'}</span></p>
        <h1>{title}</h1>
        {children}
        {branding.poweredBy ? <p className="powered-by">Powered by cairn</p> : null}
      </section>
    </main>
  );
}

/** What the session shows before sign-in completes; `null` when signed in. */
export function SignInScreens() {
  const session = useSession();
  const { state } = session;
  switch (state.kind) {
    case 'loading': return <Panel title="Signing in"><Loading what="Checking your sign-in" /></Panel>;
    case 'unreachable': return (
      <Panel title="cairn cannot be reached">
        <p>{state.message} Nothing behind sign-in is shown until it answers.</p>
        <Button kind="primary" onClick={session.retry}>Try again</Button>
      </Panel>
    );
    case 'needs-sign-in': return (
      <Panel title="Sign in">
        <p>Sign in with your organization's identity provider to continue.</p>
        <Button kind="primary" onClick={session.signIn}>Sign in</Button>
      </Panel>
    );
    case 'failed':
      if (state.reason === 'waitlist') return (
        <Panel title="You are on the waitlist">
          <p>Your account is not activated yet (on_waitlist). You can sign in once it is.</p>
          <Button onClick={session.retry}>Try again</Button>
        </Panel>
      );
      if (state.reason === 'unverified') return (
        <Panel title="Verify your email address">
          <p>{state.message ?? 'Your identity provider has not verified your email address.'}</p>
          <p>Only a verified address is admitted. Verify it with your identity provider, then try again.</p>
          <Button kind="primary" onClick={session.retry}>Try again</Button>
          {session.settings?.mode === 'dev-user' ? null : <Button onClick={() => void session.signOut()}>Sign out</Button>}
        </Panel>
      );
      return (
        <Panel title="Sign-in failed">
          <p>We could not sign you in. Try again; if it keeps failing, ask your administrator.</p>
          <Button kind="primary" onClick={() => { sessionStorage.clear(); window.location.assign('/'); }}>Try again</Button>
        </Panel>
      );
    case 'signed-in': return null;
  }
}

/** /signed-out: where a load balancer's sign-out ends (no sign-in needed). */
export function SignedOut() {
  return (
    <Panel title="You are signed out">
      <p>You have signed out of cairn.</p>
      <a className="btn btn-primary" href="/">Sign in again</a>
    </Panel>
  );
}
