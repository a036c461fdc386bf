/**
 * JSON routes under /api/semantic/…: the editor's routes: model file texts, validation, changes since the last publish (issue 9, helper-owned).
 *
 * Source: ../shared/spec/semantic-query-service.md; issue 9.
 */
import { Elysia } from 'elysia';
import type { SemanticRouteDeps } from './semantic-routes.ts';

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function semanticEditorRoutes(env: SemanticRouteDeps) {
  void env;
  return new Elysia({ name: 'semanticEditorRoutes', prefix: '/api/semantic' });
}
