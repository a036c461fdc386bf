/**
 * The web app: the session first (nothing behind sign-in shows before it), then the shell (header with
 * branding, navigation, the person and Sign out) around the pages.
 *
 * Routes: / (sent on to /chat), /chat and /chat/<threadId> (Chat), /projects (semantic projects),
 * /projects/<slug>/<tab> (editor, playground, access, monitoring, improvements), /<projectId>/monitoring (the spec's monitoring address, sent on to the
 * project's tab), /members and /members/<org>/<tab> (members, groups, invitations, domains, design agent, collections), /invitations (the
 * signed-in person's invitation offers; a notice above every page says when there is one), /invite/<token>
 * (an invitation's consent page: a signed-out person signs in first and comes back to it), /signed-out, and
 * /decide/<token> (a decision link's page: no sign-in, no shell; docs/decisions.md D26 § 3).
 *
 * Source: spec/platform-service.md § Platform sign-in modes, § Rules 3, 18; spec/semantic-query-service.md
 * § What the service does (5); docs/decisions.md D9; docs/decisions.md D10 (Members).
 */
import { Link, Redirect, Route, Switch, useLocation, useRoute } from 'wouter';
import { SessionProvider, useSession } from '../auth/session.tsx';
import { SignedOut, SignInScreens } from '../auth/screens.tsx';
import { lazy, Suspense } from 'react';
import { Button, Loading } from '../ui/kit.tsx';
import { OffersNotice } from '../pages/platform/members/OffersNotice.tsx';
import { useBranding } from './branding.ts';

// Each section is its own chunk, loaded when first opened: the AG-UI client (chat), the MCP SDK (playground) and
// uPlot (monitoring) stay out of the pages that do not use them.
const ChatPage = lazy(() => import('../pages/platform/chat/ChatPage.tsx').then((m) => ({ default: m.ChatPage })));
const AgentsPage = lazy(() => import('../pages/platform/AgentsPage.tsx').then((m) => ({ default: m.AgentsPage })));
const SessionsPage = lazy(() => import('../pages/platform/SessionsPage.tsx').then((m) => ({ default: m.SessionsPage })));
const MembersPage = lazy(() => import('../pages/platform/MembersPage.tsx').then((m) => ({ default: m.MembersPage })));
const InvitePage = lazy(() => import('../pages/platform/InvitePage.tsx').then((m) => ({ default: m.InvitePage })));
const OffersPage = lazy(() => import('../pages/platform/members/OffersPage.tsx').then((m) => ({ default: m.OffersPage })));
const ProjectsPage = lazy(() => import('../pages/semantic/ProjectsPage.tsx').then((m) => ({ default: m.ProjectsPage })));
const ProjectLayout = lazy(() => import('../pages/semantic/ProjectLayout.tsx').then((m) => ({ default: m.ProjectLayout })));
const DecidePage = lazy(() => import('../pages/decide/DecidePage.tsx').then((m) => ({ default: m.DecidePage })));
const ProjectIdRedirect = lazy(() => import('../pages/semantic/ProjectLayout.tsx').then((m) => ({ default: m.ProjectIdRedirect })));

/** The whole app. */
export function App() {
  const [path] = useLocation();
  const [decide, link] = useRoute('/decide/:token');
  if (path === '/signed-out') return <SignedOut />;
  // A decision link is opened by whoever holds it, with or without an account: no session, no shell.
  if (decide) return <Suspense fallback={<Loading what="Loading the page" />}><DecidePage token={link.token} /></Suspense>;
  return <SessionProvider><Gate /></SessionProvider>;
}

function Gate() {
  const { state } = useSession();
  return state.kind === 'signed-in' ? <Shell /> : <SignInScreens />;
}

function Shell() {
  const branding = useBranding();
  const session = useSession();
  const me = session.state.kind === 'signed-in' ? session.state.me : undefined;
  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <Link href="/" className="brand">
          {branding.logoUrl ? <img src={branding.logoUrl} alt="" className="brand-logo" /> : null}
          <span>{branding.title ?? 'cairn'}</span>
        </Link>
        <nav aria-label="Main" className="main-nav">
          <NavLink href="/chat">Chat</NavLink>
          <NavLink href="/agents">Agents</NavLink>
          <NavLink href="/sessions">Sessions</NavLink>
          <NavLink href="/projects">Semantic projects</NavLink>
          <NavLink href="/members">Members</NavLink>
        </nav>
        <div className="who">
          <span className="who-name" title={me?.email}>{me?.name ?? me?.email}</span>
          {me?.signInMode === 'dev-user' ? <span className="badge" title="PLATFORM_SIGN_IN=dev-user: every request is this local user">dev user</span> : <Button kind="link" onClick={() => void session.signOut()}>Sign out</Button>}
        </div>
      </header>
      <main id="main" className="content">
        <OffersNotice />
        <Suspense fallback={<Loading what="Loading the page" />}>
        <Switch>
          <Route path="/"><Redirect to="/chat" replace /></Route>
          <Route path="/chat">{() => <ChatPage />}</Route>
          <Route path="/chat/:threadId">{(params) => <ChatPage threadId={params.threadId} />}</Route>
          <Route path="/projects">{() => <ProjectsPage />}</Route>
          <Route path="/projects/:slug/:tab?">{(params) => <ProjectLayout slug={params.slug} tab={params.tab} />}</Route>
          <Route path="/agents">{() => <AgentsPage />}</Route>
          <Route path="/agents/:agent">{(params) => <AgentsPage agent={params.agent} />}</Route>
          <Route path="/agents/:agent/environments/:env/:tab?">{(params) => <AgentsPage agent={params.agent} env={params.env} tab={params.tab} />}</Route>
          <Route path="/sessions">{() => <SessionsPage />}</Route>
          <Route path="/sessions/:id">{(params) => <SessionsPage id={params.id} />}</Route>
          <Route path="/members">{() => <MembersPage />}</Route>
          <Route path="/members/:org/:tab?">{(params) => <MembersPage org={params.org} tab={params.tab} />}</Route>
          <Route path="/invitations">{() => <OffersPage />}</Route>
          <Route path="/invite/:token">{(params) => <InvitePage token={params.token} />}</Route>
          <Route path="/:projectId/monitoring">{(params) => <ProjectIdRedirect projectId={params.projectId} />}</Route>
          <Route><NotFound /></Route>
        </Switch>
        </Suspense>
      </main>
      {branding.poweredBy ? <footer className="powered-by">Powered by cairn</footer> : null}
    </div>
  );
}

/** A main-navigation link, marked current on its own page and every page under it. */
function NavLink({ href, children }: { href: string; children: string }) {
  const [path] = useLocation();
  const current = path === href || path.startsWith(`${href}/`);
  return <Link href={href} className={current ? 'active' : ''} aria-current={current ? 'page' : undefined}>{children}</Link>;
}

function NotFound() {
  return <section><h1>Page not found</h1><p>There is no page at this address.</p><Link href="/">Go to the start page</Link></section>;
}
