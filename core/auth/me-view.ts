/**
 * What GET /api/me answers: the signed-in person as the API sees them, shared with the web app (its
 * header names them; a 401 or a 403 `email_unverified` here is how the web app learns a sign-in failed).
 *
 * Source: spec/platform-service.md § Authentication (sign-in modes, rule 4); docs/decisions.md D9 (web app shell).
 */
import type { SignInMode } from './sign-in-view.ts';

/** Body of GET /api/me. */
export interface MeView {
  /** Stable subject of the person (the provider's `sub`, the load balancer's, or the dev user's). */
  subject: string;
  email: string;
  name?: string;
  /** The deployment's sign-in mode. */
  signInMode: SignInMode;
}
