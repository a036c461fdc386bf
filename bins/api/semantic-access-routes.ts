/**
 * JSON routes under /api/semantic/…: MCP Access and improvement requests routes (issue 9, helper-owned).
 *
 * Source: ../shared/spec/semantic-query-service.md; issue 9.
 */
import { Elysia } from 'elysia';
import type { SemanticRouteDeps } from './semantic-routes.ts';

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function semanticAccessRoutes(env: SemanticRouteDeps) {
  void env;
  return new Elysia({ name: 'semanticAccessRoutes', prefix: '/api/semantic' });
}
