/**
 * JSON routes under /api/semantic/…: the editor's routes: model file texts, validation, changes since the last publish (docs/decisions.md D9).
 *
 * - GET  /projects/:slug/sources  → {@link EditorSourcesView}: the saved model files' texts and data files.
 * - POST /projects/:slug/validate → {@link ValidationView}: problems of the editor's texts with the saved files
 *   (body {@link ValidateModelsBody}), from the validator Publish uses; always 200 (problems are the answer).
 * - GET  /projects/:slug/changes  → {@link ChangesView}: what Publish would change.
 * Roles: Reader on the project for each (validation writes nothing); see semantic-routes.ts.
 * Errors: 404 `not_found` (no such project, or one of an organization the caller is not in), 400/413/415 for a
 * bad body (http-helpers.ts), 500 `build_missing`
 * when the published build is gone from the object store.
 *
 * Source: spec/semantic-query-service.md § What the service does (1–2), § States and transitions;
 * docs/decisions.md D9.
 */
import { Elysia } from 'elysia';
import { ValidateModelsBody, type ChangesView, type EditorSourcesView, type ValidationView } from '../../core/semantic/api/editor.ts';
import { changesBetween, validateEdited } from '../../core/semantic/editor-changes.ts';
import { readPublishedBuild } from '../../core/semantic/planes.ts';
import { readSourceSnapshot } from '../../core/semantic/sources.ts';
import { json, readJson } from './http-helpers.ts';
import { NoQuery } from './query-params.ts';
import type { ProjectRecord } from '../../core/semantic/records.ts';
import { projectRoute, type SemanticRouteDeps } from './semantic-routes.ts';

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits). */
export function semanticEditorRoutes(env: SemanticRouteDeps) {
  const { deps } = env;
  /** A handler taking no query parameters, the caller's Reader role on the project checked ({@link projectRoute}). */
  const route = (handler: (request: Request, project: ProjectRecord) => Promise<Response>) =>
    projectRoute<{ slug: string }, typeof NoQuery>(env, 'reader', NoQuery, (ctx) => handler(ctx.request, ctx.project));
  return new Elysia({ name: 'semanticEditorRoutes', prefix: '/api/semantic' })
    .get('/projects/:slug/sources', route(async (_request, project) => {
      const snapshot = await readSourceSnapshot(deps, project);
      const view: EditorSourcesView = {
        revision: snapshot.revision, commitId: snapshot.commitId || null, savedAt: snapshot.savedAt, models: snapshot.models,
        data: snapshot.data.map((d) => ({ name: d.name, size: d.size, sha256: d.sha256 })),
      };
      return json(view);
    }))
    .post('/projects/:slug/validate', route(async (request, project) => {
      const body = await readJson(request, ValidateModelsBody);
      const saved = await readSourceSnapshot(deps, project);
      const view: ValidationView = { problems: validateEdited(saved.models, body.models, body.deletes) };
      return json(view);
    }), { parse: 'none' })
    .get('/projects/:slug/changes', route(async (_request, project) => {
      const saved = await readSourceSnapshot(deps, project);
      const view: ChangesView = changesBetween(await readPublishedBuild(deps, project), saved);
      return json(view);
    }));
}
