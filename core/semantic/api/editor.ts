/**
 * Request and response shapes of the editor's routes under /api/semantic/projects/:slug (model file texts,
 * validation as you type, changes since the last publish), shared by the API (bins/api/semantic-editor-routes.ts)
 * and the web app (web/src/pages/semantic/EditorPage.tsx), so neither re-declares a shape by hand.
 *
 * Source: spec/semantic-query-service.md § What the service does (1–2), § States and transitions
 * (source files: saved → the test endpoint reflects them at once; production build: moved by Publish);
 * docs/decisions.md D9 (Editor).
 */
import { type Static, Type } from '@sinclair/typebox';
import { ModelProblem } from '../model.ts';
import { DataFileView } from './projects.ts';

/**
 * Body of GET …/sources: the latest saved sources with every model file's text.
 * `revision` is 0 and `commitId` null before the first save; `savedAt` is ISO-8601 (the project's creation before any
 * save).
 */
export const EditorSourcesView = Type.Object({
  revision: Type.Integer(),
  commitId: Type.Union([Type.String(), Type.Null()]),
  savedAt: Type.String(),
  /** Model file name (e.g. `flights.yaml`) → YAML text. */
  models: Type.Record(Type.String(), Type.String()),
  data: Type.Array(DataFileView),
});
export type EditorSourcesView = Static<typeof EditorSourcesView>;

/**
 * Body of POST …/validate: the editor's current model texts (file name → YAML, at most 2,000,000 characters each).
 * Saved files not named here (and not in `deletes`) are validated too, so problems across files (a model
 * name used twice) show. `deletes` names saved files the editor has removed but not saved yet.
 * The whole body is at most 1 MiB (the API's JSON limit).
 */
export const ValidateModelsBody = Type.Object({
  models: Type.Record(Type.String(), Type.String({ maxLength: 2_000_000 })),
  deletes: Type.Optional(Type.Array(Type.String(), { maxItems: 500 })),
}, { additionalProperties: false });
export type ValidateModelsBody = Static<typeof ValidateModelsBody>;

/** Body of a 200 from POST …/validate: every problem of every model file, from the validator Publish uses (empty when
 * all are valid). */
export const ValidationView = Type.Object({ problems: Type.Array(ModelProblem) });
export type ValidationView = Static<typeof ValidationView>;

/** How a file differs between the last published build and the saved sources. */
export const ChangeStatus = Type.Union([Type.Literal('added'), Type.Literal('removed'), Type.Literal('changed')]);
export type ChangeStatus = Static<typeof ChangeStatus>;

/**
 * One model file that differs: lines added and removed, and a unified diff (`---`/`+++` header, `@@` hunks with
 * 3 lines of context; cut at 100,000 characters with a last line saying so).
 */
export const ModelFileChange = Type.Object({
  file: Type.String(),
  status: ChangeStatus,
  added: Type.Integer({ minimum: 0 }),
  removed: Type.Integer({ minimum: 0 }),
  diff: Type.String(),
});
export type ModelFileChange = Static<typeof ModelFileChange>;

/** One data file that differs (by name, then by SHA-256 of its bytes); sizes in bytes, null on the side where it is
 * absent. */
export const DataFileChange = Type.Object({
  name: Type.String(),
  status: ChangeStatus,
  size: Type.Union([Type.Integer(), Type.Null()]),
  previousSize: Type.Union([Type.Integer(), Type.Null()]),
});
export type DataFileChange = Static<typeof DataFileChange>;

/**
 * Body of GET …/changes: what Publish would change, from the last published build (`publishedRevision`, null
 * when nothing was published: every saved file is then "added") to the saved sources (`sourceRevision`).
 * Files are sorted by name; unchanged files are left out, so both lists empty means Publish changes nothing.
 */
export const ChangesView = Type.Object({
  publishedRevision: Type.Union([Type.Integer(), Type.Null()]),
  sourceRevision: Type.Integer(),
  models: Type.Array(ModelFileChange),
  data: Type.Array(DataFileChange),
});
export type ChangesView = Static<typeof ChangesView>;
