/**
 * The signed-in session of the web app: reads GET /api/sign-in-settings at load (rule 3), then signs in as
 * the mode says: oidc through the provider (web/src/auth/oidc.ts), cloud-alb with no token (a 401 reloads
 * the page once, then a sign-in failed screen), dev-user straight in. GET /api/me confirms the person; a
 * 403 `email_unverified` shows the verify-your-address screen (rule 4).
 *
 * Source: spec/platform-service.md § Platform sign-in modes, § Rules 3, 4, 6; § Routes reachable without
 * platform sign-in (a lost session reloads once, then shows sign-in failed).
 */
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react';
import type { UserManager } from 'oidc-client-ts';
import type { MeView } from '../../../core/auth/me-view.ts';
import type { SignInSettingsView, SignOutView } from '../../../core/auth/sign-in-view.ts';
import { api, ApiError, errorOf, useSigning } from '../api/client.ts';
import { oidcClient, signedInFlag, signInAtProvider, startOidc } from './oidc.ts';

/** Where signing in stands. */
export type SessionState =
  | { kind: 'loading' }
  | { kind: 'unreachable'; message: string }
  | { kind: 'needs-sign-in' }
  | { kind: 'failed'; reason: 'waitlist' | 'unverified' | 'other'; message?: string }
  | { kind: 'signed-in'; me: MeView };

/** What pages read of the session. */
export interface Session {
  state: SessionState;
  settings?: SignInSettingsView;
  /** Loads everything again (the Try again control). */
  retry(): void;
  /** oidc: goes to the provider. */
  signIn(): void;
  /** Ends the session (and the provider's or load balancer's, when they have a sign-out address). */
  signOut(): Promise<void>;
}

const SessionContext = createContext<Session | undefined>(undefined);
/** sessionStorage flag: this tab already reloaded once after a 401 under cloud-alb. */
const reloadedFlag = 'cairn.reloaded-after-401';

/** Provides the session to the app. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ kind: 'loading' });
  const [settings, setSettings] = useState<SignInSettingsView>();
  const [attempt, setAttempt] = useState(0);
  const manager = useRef<UserManager | undefined>(undefined);
  const token = useRef<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    const set = (next: SessionState) => { if (live) setState(next); };
    void attemptSignIn({ set, live: () => live, setSettings, manager, token, lostSession });
    return () => { live = false; };
  }, [attempt]);

  const lostSession = useCallback((mode: SignInSettingsView['mode']) => {
    if (mode === 'cloud-alb') {
      if (!sessionStorage.getItem(reloadedFlag)) {
        sessionStorage.setItem(reloadedFlag, '1');
        window.location.reload();
        return;
      }
      setState({ kind: 'failed', reason: 'other' });
    } else if (mode === 'oidc') {
      token.current = undefined;
      setState({ kind: 'needs-sign-in' });
    }
  }, []);

  const session = useMemo<Session>(() => ({
    state,
    settings,
    retry: () => setAttempt((n) => n + 1),
    signIn: () => { if (manager.current) void signInAtProvider(manager.current, window.location.pathname + window.location.search); },
    signOut: () => signOut(manager, token, setState),
  }), [state, settings]);
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}

/** What signing in works with: the provider's state setters (`set` drops a late answer) and its refs. */
interface SignInContext {
  set(next: SessionState): void;
  /** False once the attempt was replaced (Try again) or the provider unmounted. */
  live(): boolean;
  setSettings(view: SignInSettingsView): void;
  manager: RefObject<UserManager | undefined>;
  token: RefObject<string | undefined>;
  lostSession(mode: SignInSettingsView['mode']): void;
}

/** One sign-in attempt: reads the settings, signs in as their mode says, then confirms the person (GET /api/me). */
async function attemptSignIn(context: SignInContext): Promise<void> {
  const { set, manager, token } = context;
  set({ kind: 'loading' });
  let view: SignInSettingsView;
  try {
    view = await readSettings();
  } catch (error) {
    set({ kind: 'unreachable', message: (error as Error).message });
    return;
  }
  if (!context.live()) return;
  context.setSettings(view);
  useSigning({ accessToken: () => token.current, onUnauthorized: () => context.lostSession(view.mode) });
  if (view.mode === 'oidc') {
    const client = oidcClient(view, window.location.origin);
    manager.current = client;
    client.events.addUserLoaded((user) => { token.current = user.access_token; });
    client.events.addUserSignedOut(() => set({ kind: 'needs-sign-in' }));
    const started = await startOidc(client, window.location, window.history).catch((error: Error) => ({ kind: 'refused' as const, reason: 'other' as const, description: error.message }));
    if (started.kind === 'needs-sign-in') return set({ kind: 'needs-sign-in' });
    if (started.kind === 'refused') return set({ kind: 'failed', reason: started.reason, message: started.description });
    token.current = started.user.access_token;
  }
  set(await confirm(view.mode));
}

/** Ends the session: POST /api/sign-out, then the provider's sign-out address, the signed-out page, or sign-in. */
async function signOut(
  manager: RefObject<UserManager | undefined>, token: RefObject<string | undefined>, setState: (next: SessionState) => void,
): Promise<void> {
  const answer = await api<SignOutView>('/api/sign-out', { method: 'POST', body: {} }).catch(() => ({ signOutUrl: null }));
  token.current = undefined;
  sessionStorage.removeItem(signedInFlag);
  if (manager.current) {
    const user = await manager.current.getUser();
    await manager.current.removeUser();
    if (answer.signOutUrl) return manager.current.signoutRedirect({ id_token_hint: user?.id_token });
    setState({ kind: 'needs-sign-in' });
    return;
  }
  window.location.assign(answer.signOutUrl ?? '/signed-out');
}

/** The session of the page. */
export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

/** The signed-in person (pages behind sign-in only). */
export function useMe(): MeView {
  const { state } = useSession();
  if (state.kind !== 'signed-in') throw new Error('useMe before sign-in');
  return state.me;
}

async function readSettings(): Promise<SignInSettingsView> {
  let response: Response;
  try {
    response = await fetch('/api/sign-in-settings', { headers: { accept: 'application/json' } });
  } catch {
    throw new Error('The cairn server cannot be reached.');
  }
  const text = await response.text();
  if (!response.ok) throw new Error(`The cairn server answered ${response.status}: ${errorOf(response.status, text).message}`);
  try {
    return JSON.parse(text) as SignInSettingsView;
  } catch {
    throw new Error('The cairn server answered something that is not its sign-in settings.');
  }
}

/** GET /api/me: who the API says is signed in. */
async function confirm(mode: SignInSettingsView['mode']): Promise<SessionState> {
  try {
    const me = await api<MeView>('/api/me');
    sessionStorage.removeItem(reloadedFlag);
    return { kind: 'signed-in', me };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'email_unverified') return { kind: 'failed', reason: 'unverified', message: error.message };
    if (error.status === 401) return mode === 'oidc' ? { kind: 'needs-sign-in' } : { kind: 'failed', reason: 'other', message: error.message };
    if (error.status === 0) return { kind: 'unreachable', message: error.message };
    return { kind: 'failed', reason: 'other', message: error.message };
  }
}
