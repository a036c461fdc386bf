/**
 * GET /api/me: the signed-in person (401 without a sign-in, 403 `email_unverified` per rule 4, through
 * the request rules and the caller's preparation).
 *
 * Source: spec/platform-service.md § Authentication; core/auth/me-view.ts.
 */
import { Elysia } from 'elysia';
import type { MeView } from '../../core/auth/me-view.ts';
import type { SignInMode } from '../../core/auth/sign-in-view.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json } from './http-helpers.ts';

/** A caller as the API's signed-in routes see it. */
interface Caller { subject: string; email: string; name?: string }

/** Mounts GET /api/me. */
export function meRoutes(env: CallerRouteDeps<Caller> & { signInMode: SignInMode }) {
  const route = callerRoutes(env);
  return new Elysia({ name: 'me-routes' })
    .get('/api/me', route(async ({ caller }) => {
      const me: MeView = { subject: caller.subject, email: caller.email, ...(caller.name ? { name: caller.name } : {}), signInMode: env.signInMode };
      return json(me);
    }));
}
