/**
 * JSON routes under /api/semantic/…: the playground's and Monitoring's routes (issue 9, helper-owned).
 *
 * Source: ../shared/spec/semantic-query-service.md; issue 9.
 */
import { Elysia } from 'elysia';
import type { SemanticRouteDeps } from './semantic-routes.ts';

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function semanticPlaygroundRoutes(env: SemanticRouteDeps) {
  void env;
  return new Elysia({ name: 'semanticPlaygroundRoutes', prefix: '/api/semantic' });
}
