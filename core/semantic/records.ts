/**
 * Stored records of the semantic service (documents in the document store) and their collection names.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
import { type Static, Type } from '@sinclair/typebox';

/**
 * Version of the document shape each collection holds (`schemaVersion` on every document); a data
 * update moves documents from one version to the next. Source: spec/platform-service.md § Versioning.
 */
export const semanticSchemaVersion = 1 as const;

/**
 * Version of the project documents (`semantic_projects`): 2 since a project belongs to an organization
 * (`orgId`; docs/decisions.md D17 § 1). The data update from 1 (core/boot/semantic-project-update.ts) gives older
 * projects
 * to the default organization. The other semantic collections stay at {@link semanticSchemaVersion}.
 */
export const projectSchemaVersion = 2 as const;

/** Collection names, one place. */
export const collections = {
  projects: 'semantic_projects',
  tokens: 'semantic_tokens',
  callLog: 'semantic_call_log',
  storedQueries: 'semantic_stored_queries',
  improvements: 'semantic_improvements',
} as const;

/** A project slug: 1–63 lower-case letters, digits and hyphens, starting with a letter or digit. */
export const ProjectSlug = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });

/** Default items per digest page (datasets, relationships, metrics, fields). */
export const defaultPageSize = 25;

const SchemaVersion = Type.Literal(semanticSchemaVersion);

/**
 * A semantic project: named by its slug in endpoint URLs (unique across the deployment, as the MCP endpoint
 * URL `/mcp/<slug>/mcp` names it), owned by one organization.
 */
export const ProjectRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: Type.Literal(projectSchemaVersion),
  /** The organization that owns it: its members' roles decide who reads and changes it (docs/decisions.md D17 § 1). */
  orgId: Type.String(),
  slug: ProjectSlug,
  name: Type.String(),
  /** Items per digest page, 1–200. */
  pageSize: Type.Integer({ minimum: 1, maximum: 200 }),
  createdAt: Type.Date(),
  /** Increases by one on every save of the sources. */
  sourceRevision: Type.Integer({ minimum: 0 }),
  /** Object key of the published build the production endpoint reads; absent before the first Publish. */
  publishedBuildKey: Type.Optional(Type.String()),
  publishedAt: Type.Optional(Type.Date()),
  publishedRevision: Type.Optional(Type.Integer()),
});
export type ProjectRecord = Static<typeof ProjectRecord>;

/** An access token: only its SHA-256 digest is stored. */
export const TokenRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  projectId: Type.String(),
  name: Type.String(),
  /** Lower-case hex SHA-256 of the raw token. */
  tokenHash: Type.String(),
  /** First characters of the raw token, shown in lists so an operator can tell tokens apart. */
  displayPrefix: Type.String(),
  /** Model names this token may reach (empty when `allModels`). */
  models: Type.Array(Type.String()),
  /** True: the token reaches every model of the project, including models saved after it was made (playground tokens).
   */
  allModels: Type.Optional(Type.Boolean()),
  /** `playground`: minted by the web app's playground for one signed-in member; hidden from MCP Access. Absent: an
   * access token. */
  purpose: Type.Optional(Type.Literal('playground')),
  /** Subject of the member a playground token was minted for. */
  memberSubject: Type.Optional(Type.String()),
  createdAt: Type.Date(),
  expiresAt: Type.Optional(Type.Date()),
  revokedAt: Type.Optional(Type.Date()),
  lastUsedAt: Type.Optional(Type.Date()),
});
export type TokenRecord = Static<typeof TokenRecord>;

/** Which endpoint served a call. */
export type Plane = 'production' | 'test';

/** One tools/call. Entries expire 30 days after `at`. */
export const CallLogRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  projectId: Type.String(),
  tokenId: Type.String(),
  tool: Type.String(),
  status: Type.Union([Type.Literal('success'), Type.Literal('error')]),
  at: Type.Date(),
  plane: Type.Union([Type.Literal('production'), Type.Literal('test')]),
  /** Input arguments as received, or an excerpt ({ excerpt, truncated, originalChars }) beyond 65,536 characters of
   * JSON. */
  input: Type.Unknown(),
  /** Tool output (the text shown to the agent and the structured content when there is one), or an excerpt as for
   * input. */
  output: Type.Unknown(),
  durationMs: Type.Number(),
  modelName: Type.Optional(Type.String()),
});
export type CallLogRecord = Static<typeof CallLogRecord>;

/** Days a call log entry is kept, and the window of a token's Events count. */
export const callLogRetentionDays = 30;

/** A stored query, replayable with new params within the project and the token's model scope. */
export const StoredQueryRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  projectId: Type.String(),
  modelName: Type.String(),
  sql: Type.String(),
  params: Type.Array(Type.String()),
  tokenId: Type.String(),
  createdAt: Type.Date(),
  /**
   * When it was last stored or replayed (to within an hour); it expires 30 days later (TTL index). Absent on
   * queries stored before expiry was kept: they count as last used at `createdAt` (core/semantic/stored-queries.ts).
   */
  lastUsedAt: Type.Optional(Type.Date()),
});
export type StoredQueryRecord = Static<typeof StoredQueryRecord>;

/** An improvement request an agent submitted. */
export const ImprovementRecord = Type.Object({
  _id: Type.String(),
  schemaVersion: SchemaVersion,
  projectId: Type.String(),
  modelName: Type.String(),
  title: Type.String({ maxLength: 200 }),
  description: Type.String({ maxLength: 2000 }),
  tokenId: Type.String(),
  createdAt: Type.Date(),
  /** When a member marked it done; absent while open. */
  doneAt: Type.Optional(Type.Date()),
  /** Who marked it done: the member's email, else their subject. */
  doneBy: Type.Optional(Type.String()),
});
export type ImprovementRecord = Static<typeof ImprovementRecord>;
