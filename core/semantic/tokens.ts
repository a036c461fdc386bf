/**
 * Access tokens of the semantic endpoints: created per project with model scopes and an optional
 * expiry, high-entropy with a fixed prefix, stored only as a SHA-256 digest, shown once, revocable.
 *
 * Source: spec/semantic-query-service.md § Authentication, § Resources (access token).
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import { base64url } from './base64url.ts';
import type { SemanticDeps } from './deps.ts';
import { findProject } from './projects.ts';
import {
  type CallLogRecord,
  callLogRetentionDays,
  collections,
  type ProjectRecord,
  semanticSchemaVersion,
  type TokenRecord,
} from './records.ts';

/** Fixed prefix of every raw token, so secret scanners and people can recognise one. */
export const tokenPrefix = 'cairn_mcp_';
/** Random bytes in a raw token (256 bits). */
const tokenEntropyBytes = 32;
/** Characters of the raw token kept for display (prefix plus 6). */
const displayLength = tokenPrefix.length + 6;

/** Input of {@link createToken}. */
export interface CreateTokenInput {
  projectId: string;
  name: string;
  /** Model names the token may reach; at least one. */
  models: string[];
  expiresAt?: Date;
  /**
   * A raw value minted elsewhere in the same form (`cairn_mcp_` and 43 base64url characters: 32 random bytes), e.g.
   * by scripts/start before the platform runs, so the platform's config names it from its first boot; default: a
   * value minted here.
   */
  value?: string;
}

/** The form of a raw token: the prefix and 32 random bytes in base64url. */
const tokenForm = /^cairn_mcp_[A-Za-z0-9_-]{43}$/;

/**
 * Whether a supplied value looks minted: the form, and at least 20 distinct characters among its 43 (32 random bytes
 * show about 31; fewer than 20 has a chance below 1e-9), so a chosen pattern (`AAAA…`, `abab…`) is refused.
 */
function looksMinted(value: string): boolean {
  return tokenForm.test(value) && new Set(value.slice('cairn_mcp_'.length)).size >= 20;
}

/**
 * Creates a token. The raw value is returned once and never stored.
 * @throws PlatformError `invalid_argument` (400) for an empty scope, an expiry in the past or a `value` not in the
 *   minted form; `token_exists` (409) for a `value` already in use (knowing it, one could use it anyway)
 */
export async function createToken(
  deps: SemanticDeps,
  input: CreateTokenInput,
): Promise<{ token: string; record: TokenRecord }> {
  const models = [...new Set(input.models.map((m) => m.trim()).filter(Boolean))];
  if (models.length === 0) {
    throw new PlatformError(
      'invalid_argument',
      'A token needs at least one model in its scope: pass the model names it may reach.',
      { status: 400 },
    );
  }
  const now = deps.clock.now();
  if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
    throw new PlatformError('invalid_argument', 'The expiry date is in the past: give a future date or none.', {
      status: 400,
    });
  }
  if (input.value !== undefined && !looksMinted(input.value)) {
    throw new PlatformError(
      'invalid_argument',
      'A token value must be one minted as cairn mints them: cairn_mcp_ ' +
        'and 43 base64url characters (32 random bytes); leave it out to have one minted.',
      { status: 400 },
    );
  }
  return insertToken(deps, {
    projectId: input.projectId,
    name: input.name.trim() || 'token',
    models,
    createdAt: now,
    ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
  }, input.value);
}

/** The fields of a new token record that are not about its secret. */
type NewTokenFields = Omit<TokenRecord, '_id' | 'schemaVersion' | 'tokenHash' | 'displayPrefix'>;

/**
 * Makes a raw token (or takes `value`), stores its record (its SHA-256 digest and display prefix, never the value)
 * and answers both.
 */
async function insertToken(
  deps: SemanticDeps,
  fields: NewTokenFields,
  value?: string,
): Promise<{ token: string; record: TokenRecord }> {
  const token = value ?? tokenPrefix + base64url(deps.ids.randomBytes(tokenEntropyBytes));
  const record: TokenRecord = {
    _id: deps.ids.newId(),
    schemaVersion: semanticSchemaVersion,
    tokenHash: await deps.ids.sha256Hex(token),
    displayPrefix: token.slice(0, displayLength),
    ...fields,
  };
  try {
    await deps.docs.collection<TokenRecord>(collections.tokens).insertOne(record);
  } catch (error) {
    if (value !== undefined && isPlatformError(error, 'duplicate_key')) {
      throw new PlatformError('token_exists', 'This token value is already in use: mint a new one.', { status: 409 });
    }
    throw error;
  }
  return { token, record };
}

/**
 * How often a token's Last Used time is written, at most (60,000 ms): a busy token costs one
 * document write a minute, not one per request. Last Used is therefore exact to the minute.
 *
 * Source: spec/semantic-query-service.md § Resources (access token: Last Used)
 */
export const lastUsedWriteIntervalMs = 60_000;

/**
 * Authenticates a request to the endpoints of project `slug`: finds the live token whose raw value
 * is `rawToken`, checks that it belongs to that project, and records its use (at most once per
 * {@link lastUsedWriteIntervalMs}). An unknown project is refused exactly like a bad token, so the
 * endpoint reveals no project's existence to a caller without a valid token.
 * @returns the project and the token
 * @throws PlatformError `unauthorized` (401) when the token is missing, unknown, of another or an
 *   unknown project, revoked or expired; the message never says which
 *
 * Source: spec/semantic-query-service.md § Authentication
 */
export async function authenticateEndpoint(
  deps: SemanticDeps,
  slug: string,
  rawToken: string | undefined,
): Promise<{ project: ProjectRecord; token: TokenRecord }> {
  const refuse = () =>
    new PlatformError(
      'unauthorized',
      'A valid Bearer token for this project is required: send Authorization: Bearer <token>.',
      { status: 401 },
    );
  if (!rawToken || !rawToken.startsWith(tokenPrefix)) throw refuse();
  const tokens = deps.docs.collection<TokenRecord>(collections.tokens);
  // Both looked up at once: one round trip to the document store per request, not two (docs/decisions.md D18).
  const [record, project] = await Promise.all([
    deps.ids.sha256Hex(rawToken).then((tokenHash) => tokens.findOne({ tokenHash })),
    findProject(deps, slug),
  ]);
  if (!record || record.revokedAt) throw refuse();
  const now = deps.clock.now();
  if (record.expiresAt && record.expiresAt.getTime() <= now.getTime()) throw refuse();
  if (!project || record.projectId !== project._id) throw refuse();
  if (!record.lastUsedAt || now.getTime() - record.lastUsedAt.getTime() >= lastUsedWriteIntervalMs) {
    await tokens.updateOne({ _id: record._id }, { $set: { lastUsedAt: now } });
    return { project, token: { ...record, lastUsedAt: now } };
  }
  return { project, token: record };
}

/** A token as listed: never its hash; `events30d` counts its calls in the last 30 days. */
export interface TokenSummary {
  id: string;
  name: string;
  displayPrefix: string;
  models: string[];
  createdAt: Date;
  expiresAt?: Date;
  revokedAt?: Date;
  lastUsedAt?: Date;
  events30d: number;
  state: 'active' | 'expired' | 'revoked';
}

/**
 * Lists a project's access tokens, newest first, with Last Used and Events (30d). Playground tokens
 * ({@link mintPlaygroundToken}) are not listed: they are not MCP Access tokens, though their calls are logged.
 */
export async function listTokens(deps: SemanticDeps, projectId: string): Promise<TokenSummary[]> {
  const all = await deps.docs.collection<TokenRecord>(collections.tokens).find({ projectId }, {
    sort: { createdAt: -1 },
  });
  const records = all.filter((r) => r.purpose !== 'playground');
  const now = deps.clock.now();
  const since = new Date(now.getTime() - callLogRetentionDays * 86_400_000);
  const log = deps.docs.collection<CallLogRecord>(collections.callLog);
  return Promise.all(records.map(async (r) => ({
    id: r._id,
    name: r.name,
    displayPrefix: r.displayPrefix,
    models: r.models,
    createdAt: r.createdAt,
    ...(r.expiresAt ? { expiresAt: r.expiresAt } : {}),
    ...(r.revokedAt ? { revokedAt: r.revokedAt } : {}),
    ...(r.lastUsedAt ? { lastUsedAt: r.lastUsedAt } : {}),
    events30d: await log.countDocuments({ projectId, tokenId: r._id, at: { $gte: since } }),
    state: r.revokedAt ? 'revoked' : r.expiresAt && r.expiresAt <= now ? 'expired' : 'active',
  })));
}

/**
 * Revokes a token of the project (idempotent).
 * @throws PlatformError `not_found` (404) when the project has no such token
 */
export async function revokeToken(deps: SemanticDeps, projectId: string, tokenId: string): Promise<void> {
  const tokens = deps.docs.collection<TokenRecord>(collections.tokens);
  const record = await tokens.findOne({ _id: tokenId, projectId });
  if (!record) {
    throw new PlatformError('not_found', `No token "${tokenId}" in this project: list tokens to see their ids.`, {
      status: 404,
    });
  }
  if (!record.revokedAt) await tokens.updateOne({ _id: tokenId }, { $set: { revokedAt: deps.clock.now() } });
}

/**
 * The models of `candidates` this token may reach: all of them for an `allModels` token (a playground token).
 * Source: spec § Authentication 2 (list_semantic_models returns only models within the token's scopes).
 */
export function modelsInScope(token: Pick<TokenRecord, 'models' | 'allModels'>, candidates: string[]): string[] {
  if (token.allModels) return [...candidates];
  const scope = new Set(token.models);
  return candidates.filter((name) => scope.has(name));
}

/** How long a playground token lives: 8 hours (28,800,000 ms) from minting. */
export const playgroundTokenLifetimeMs = 8 * 3_600_000;

/** The member a playground token is minted for: `subject` (stable id) and e-mail (shown in its name). */
export interface PlaygroundMember {
  subject: string;
  email: string;
}

/**
 * Mints the playground token of one member in a project: it reaches every model of the project (models
 * saved later included), expires {@link playgroundTokenLifetimeMs} after minting, is named
 * `playground · <email>` so the call log says whose calls they were, and is hidden from MCP Access.
 * The member's earlier live playground tokens of the project are revoked first: one live per member and project.
 * @returns the raw token (shown once) and its record
 *
 * Source: spec/semantic-query-service.md § What the service does 2 (the playground uses the test endpoint);
 * docs/decisions.md D9.
 */
export async function mintPlaygroundToken(
  deps: SemanticDeps,
  projectId: string,
  member: PlaygroundMember,
): Promise<{ token: string; record: TokenRecord }> {
  const tokens = deps.docs.collection<TokenRecord>(collections.tokens);
  const now = deps.clock.now();
  const earlier = await tokens.find({ projectId, purpose: 'playground', memberSubject: member.subject });
  for (const old of earlier) if (!old.revokedAt) await tokens.updateOne({ _id: old._id }, { $set: { revokedAt: now } });
  return insertToken(deps, {
    projectId,
    name: `playground · ${member.email || member.subject}`,
    models: [],
    allModels: true,
    purpose: 'playground',
    memberSubject: member.subject,
    createdAt: now,
    expiresAt: new Date(now.getTime() + playgroundTokenLifetimeMs),
  });
}

/** A token as the call log names it: every token of the project, playground and revoked ones included. */
export interface CallLogTokenName {
  id: string;
  name: string;
  displayPrefix: string;
  playground: boolean;
}

/** Names of every token of a project (newest first), so Monitoring can name the token of each call. */
export async function callLogTokenNames(deps: SemanticDeps, projectId: string): Promise<CallLogTokenName[]> {
  const records = await deps.docs.collection<TokenRecord>(collections.tokens).find({ projectId }, {
    sort: { createdAt: -1 },
  });
  return records.map((r) => ({
    id: r._id,
    name: r.name,
    displayPrefix: r.displayPrefix,
    playground: r.purpose === 'playground',
  }));
}
