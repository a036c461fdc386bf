/**
 * Request and response shapes of the project routes under /api/semantic/projects, shared by the API
 * (bins/api/semantic-routes.ts checks bodies against them and builds its answers as these types) and the
 * web app (web/src/pages/semantic), so neither re-declares a shape by hand.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields (project), § States and
 * transitions (source files, production build); docs/decisions.md D9 (web app, part 1).
 */
import { type Static, Type } from '@sinclair/typebox';

/**
 * Body of POST /api/semantic/projects: `slug` as in the URL (`^[a-z0-9][a-z0-9-]{0,62}$`), `orgId` the owning
 * organization (default: the caller's only one; 409 `ambiguous_organization` when they are in several),
 * optional display name and digest page size.
 */
export const CreateProjectBody = Type.Object({
  slug: Type.String(),
  orgId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  name: Type.Optional(Type.String({ maxLength: 200 })),
  pageSize: Type.Optional(Type.Integer()),
}, { additionalProperties: false });
export type CreateProjectBody = Static<typeof CreateProjectBody>;

/** Body of PATCH /api/semantic/projects/:slug. */
export const UpdateProjectBody = Type.Object({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  pageSize: Type.Optional(Type.Integer()),
}, { additionalProperties: false });
export type UpdateProjectBody = Static<typeof UpdateProjectBody>;

/**
 * Body of POST /api/semantic/projects/:slug/sources: model files (file name → YAML, at most 2,000,000
 * characters each) and data files by the SHA-256 of bytes already uploaded (PUT …/blobs/:name), at most 500.
 * `replace` (default false) drops every file not given; `deletes` removes named files when merging.
 */
export const SaveSourcesBody = Type.Object({
  models: Type.Record(Type.String(), Type.String({ maxLength: 2_000_000 })),
  data: Type.Array(Type.Object({ name: Type.String(), sha256: Type.String() }, { additionalProperties: false }), {
    maxItems: 500,
  }),
  replace: Type.Optional(Type.Boolean()),
  deletes: Type.Optional(Type.Array(Type.String())),
  message: Type.Optional(Type.String({ maxLength: 2000 })),
}, { additionalProperties: false });
export type SaveSourcesBody = Static<typeof SaveSourcesBody>;

/** A project as listed (GET /api/semantic/projects → `{ projects: ProjectView[] }`); times are ISO-8601 strings on the
 * wire. */
export const ProjectView = Type.Object({
  id: Type.String(),
  /** The organization that owns the project. */
  orgId: Type.String(),
  slug: Type.String(),
  name: Type.String(),
  pageSize: Type.Integer(),
  createdAt: Type.String(),
  /** Revision of the latest saved sources (0 before the first save). */
  sourceRevision: Type.Integer(),
  publishedRevision: Type.Union([Type.Integer(), Type.Null()]),
  publishedAt: Type.Union([Type.String(), Type.Null()]),
});
export type ProjectView = Static<typeof ProjectView>;

/** Body of GET /api/semantic/projects. */
export const ProjectList = Type.Object({ projects: Type.Array(ProjectView) });
export type ProjectList = Static<typeof ProjectList>;

/** One data file of the saved sources: name, size in bytes, SHA-256 (hex) of its bytes. */
export const DataFileView = Type.Object({ name: Type.String(), size: Type.Integer(), sha256: Type.String() });
export type DataFileView = Static<typeof DataFileView>;

/** Body of GET /api/semantic/projects/:slug: the project with its saved model file names and data files. */
export const ProjectDetail = Type.Composite([
  ProjectView,
  Type.Object({
    models: Type.Array(Type.String()),
    data: Type.Array(DataFileView),
    commitId: Type.Union([Type.String(), Type.Null()]),
  }),
]);
export type ProjectDetail = Static<typeof ProjectDetail>;

/** Body of a 201 from PUT …/blobs/:name: the stored data file (upload its bytes, then name it in a save). */
export const StoredBlobView = Type.Object({ name: Type.String(), sha256: Type.String(), size: Type.Integer() });
export type StoredBlobView = Static<typeof StoredBlobView>;

/** Body of POST …/sources: the new revision and commit, and every model and data file now saved. */
export const SavedSourcesView = Type.Object({
  revision: Type.Integer(),
  commitId: Type.String(),
  models: Type.Array(Type.String()),
  data: Type.Array(Type.Object({ name: Type.String(), sha256: Type.String(), size: Type.Integer() })),
});
export type SavedSourcesView = Static<typeof SavedSourcesView>;

/** Body of POST …/publish: the build now served by the production endpoint. */
export const PublishedView = Type.Object({
  buildId: Type.String(),
  revision: Type.Integer(),
  commitId: Type.String(),
  publishedAt: Type.String(),
  models: Type.Array(Type.String()),
});
export type PublishedView = Static<typeof PublishedView>;

/** The API's error body, on every non-2xx answer: a stable `code` and a message saying what to do. */
export const ApiErrorBody = Type.Object({ error: Type.Object({ code: Type.String(), message: Type.String() }) });
export type ApiErrorBody = Static<typeof ApiErrorBody>;
