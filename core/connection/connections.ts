/**
 * Use cases of incoming connections: register, list, read, edit, regenerate the endpoint token, delete, and
 * find a connection by its endpoint address. The address is minted once per agent, environment and
 * identifier and kept for ever, so re-registering an identifier gives the same address back. Endpoint
 * tokens are shown once; only their SHA-256 digest is stored.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication
 * (rules 4, 6); docs/decisions.md D8 § Connections.
 */
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import {
  type AddressRecord,
  type ConnectionCaller,
  connectionCollections,
  type ConnectionDeps,
  type ConnectionRecord,
  connectionSchemaVersion,
  type ConnectionScope,
  endpointTokenPrefix,
} from './model.ts';
import {
  base64url,
  checkIdentifier,
  checkSettings,
  type ConnectionSettingsInput,
  invalid,
  type OidcInput,
} from './rules.ts';

/** Random bytes of an endpoint address (192 bits; 32 URL-safe characters). */
const addressBytes = 24;
/** Random bytes of an endpoint token (256 bits). */
const tokenBytes = 32;

/** What registering takes. */
export interface CreateConnectionInput extends ConnectionSettingsInput {
  identifier: string;
}

/** What an edit may change (protocol only to the same value). */
export interface ConnectionChange {
  protocol?: string;
  auth?: string;
  oidc?: OidcInput;
  origins?: string[];
  rate?: { perCaller: number; perEndpoint: number };
}

/** A connection and, when one was just issued, its endpoint token (shown this once). */
export interface ConnectionWithToken {
  connection: ConnectionRecord;
  token?: string;
}

const collection = (deps: Pick<ConnectionDeps, 'docs'>) =>
  deps.docs.collection<ConnectionRecord>(connectionCollections.connections);
const keyOf = (scope: ConnectionScope, identifier: string) => `${scope.agentId}:${scope.environment}:${identifier}`;

/** Declares the indexes (idempotent): unique address on both collections, agent environment listing. */
export async function ensureConnectionIndexes(deps: Pick<ConnectionDeps, 'docs'>): Promise<void> {
  await collection(deps).createIndex({ address: 1 }, { unique: true });
  await collection(deps).createIndex({ agentId: 1, environment: 1 });
  await deps.docs.collection<AddressRecord>(connectionCollections.addresses).createIndex({ address: 1 }, {
    unique: true,
  });
}

/** The address of `key`, minted on first use and never changed. */
async function addressOf(deps: ConnectionDeps, key: string): Promise<string> {
  const addresses = deps.docs.collection<AddressRecord>(connectionCollections.addresses);
  const existing = await addresses.findOne({ _id: key });
  if (existing) return existing.address;
  const address = base64url(deps.ids.randomBytes(addressBytes));
  try {
    await addresses.insertOne({
      _id: key,
      schemaVersion: connectionSchemaVersion,
      address,
      createdAt: deps.clock.now(),
    });
    return address;
  } catch (error) {
    const raced = isPlatformError(error, 'duplicate_key') ? await addresses.findOne({ _id: key }) : null;
    if (raced) return raced.address;
    throw error;
  }
}

/** A new endpoint token and its digest. */
async function newToken(deps: ConnectionDeps): Promise<{ token: string; digest: string }> {
  const token = endpointTokenPrefix + base64url(deps.ids.randomBytes(tokenBytes));
  return { token, digest: await deps.ids.sha256Hex(token) };
}

/** One connection of an agent environment, as a caller names it. */
export interface ConnectionRef {
  /** The agent's id or slug. */
  agent: string;
  /** The environment's name. */
  environment: string;
  /** The connection's identifier in the environment. */
  identifier: string;
}

/** The connection {@link createConnection} registers, and where. */
export interface ConnectionCreation {
  /** The agent's id or slug. */
  agent: string;
  /** The environment's name. */
  environment: string;
  /** The connection: identifier, protocol, mode and settings. */
  input: CreateConnectionInput;
}

/**
 * Registers a connection in an agent environment (Maintainer).
 * @returns the record, and the endpoint token in bearer mode (shown once)
 * @throws PlatformError `invalid_argument` (400) naming the field; `connection_exists` (409) when the
 *   identifier is taken in this environment; scope errors (403/404)
 */
export async function createConnection(
  deps: ConnectionDeps,
  caller: ConnectionCaller,
  { agent, environment, input }: ConnectionCreation,
): Promise<ConnectionWithToken> {
  const identifier = checkIdentifier(input.identifier);
  const settings = checkSettings(input, deps.production, deps.allowPrivateUrls);
  const scope = await deps.scope(caller, agent, environment, 'maintainer');
  const key = keyOf(scope, identifier);
  const issued = settings.auth === 'bearer' ? await newToken(deps) : undefined;
  const now = deps.clock.now();
  const record: ConnectionRecord = {
    _id: key,
    schemaVersion: connectionSchemaVersion,
    orgId: scope.orgId,
    agentId: scope.agentId,
    environment: scope.environment,
    identifier,
    ...settings,
    ...(issued ? { tokenDigest: issued.digest } : {}),
    address: await addressOf(deps, key),
    createdAt: now,
    createdBy: caller.subject,
    updatedAt: now,
  };
  try {
    await collection(deps).insertOne(record);
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) {
      throw new PlatformError(
        'connection_exists',
        `Environment "${scope.environment}" already has a connection "${identifier}"; choose another identifier, ` +
          `or edit or delete that one.`,
        { status: 409 },
      );
    }
    throw error;
  }
  return { connection: record, ...(issued ? { token: issued.token } : {}) };
}

/** The connections of an agent environment, by identifier (Reader). */
export async function listConnections(
  deps: ConnectionDeps,
  caller: ConnectionCaller,
  agent: string,
  environment: string,
): Promise<ConnectionRecord[]> {
  const scope = await deps.scope(caller, agent, environment, 'reader');
  return collection(deps).find({ agentId: scope.agentId, environment: scope.environment }, { sort: { identifier: 1 } });
}

/** Loads one connection after the role check. @throws PlatformError `connection_not_found` (404) */
async function load(
  deps: ConnectionDeps,
  caller: ConnectionCaller,
  { agent, environment, identifier }: ConnectionRef,
  role: 'reader' | 'maintainer',
): Promise<ConnectionRecord> {
  const scope = await deps.scope(caller, agent, environment, role);
  const record = await collection(deps).findOne({ _id: keyOf(scope, identifier) });
  if (!record) {
    throw new PlatformError(
      'connection_not_found',
      `Environment "${scope.environment}" has no connection "${
        identifier.slice(0, 60)
      }"; list the environment's connections to see them.`,
      { status: 404 },
    );
  }
  return record;
}

/** One connection (Reader). @throws PlatformError `connection_not_found` (404), scope errors */
export async function getConnection(
  deps: ConnectionDeps,
  caller: ConnectionCaller,
  ref: ConnectionRef,
): Promise<ConnectionRecord> {
  return load(deps, caller, ref, 'reader');
}

/**
 * Edits a connection's mode, OIDC settings, origins or rates (Maintainer). The edit waits for the environment's
 * next publish (rule 6: edits take effect on publish) as the connection's `pending` settings; a later edit before
 * the publish replaces it, building on what is pending. Switching to bearer issues a token now (returned once),
 * which opens the endpoint once the edit takes effect; leaving bearer drops the digest then.
 * @throws PlatformError `protocol_fixed` (409) for another protocol; `invalid_argument` (400);
 *   `connection_not_found` (404)
 */
export async function updateConnection(
  deps: ConnectionDeps,
  caller: ConnectionCaller,
  ref: ConnectionRef,
  change: ConnectionChange,
): Promise<ConnectionWithToken> {
  const current = await load(deps, caller, ref, 'maintainer');
  if (change.protocol !== undefined && change.protocol !== current.protocol) {
    throw new PlatformError(
      'protocol_fixed',
      `protocol: a connection's protocol is fixed for its life (this one is ` +
        `"${current.protocol}"); delete it and register a new ` + `${change.protocol.slice(0, 20)} connection instead.`,
      { status: 409 },
    );
  }
  const basis = current.pending ?? current;
  const auth = change.auth ?? basis.auth;
  const oidc = auth !== 'oidc' ? undefined : change.oidc ?? basis.oidc;
  const settings = checkSettings(
    {
      protocol: current.protocol,
      auth,
      ...(oidc ? { oidc } : {}),
      origins: change.origins ?? basis.origins,
      rate: change.rate ?? basis.rate,
    },
    deps.production,
    deps.allowPrivateUrls,
  );
  const issued = settings.auth === 'bearer' && basis.auth !== 'bearer' ? await newToken(deps) : undefined;
  const tokenDigest = settings.auth !== 'bearer' ? undefined : issued?.digest ?? basis.tokenDigest;
  const now = deps.clock.now();
  const pending: NonNullable<ConnectionRecord['pending']> = {
    auth: settings.auth,
    ...(settings.oidc ? { oidc: settings.oidc } : {}),
    origins: settings.origins,
    rate: settings.rate,
    ...(tokenDigest ? { tokenDigest } : {}),
    id: deps.ids.newId(),
    changedAt: now,
    changedBy: caller.subject,
  };
  await collection(deps).updateOne({ _id: current._id }, { $set: { pending, updatedAt: now } });
  return { connection: { ...current, pending, updatedAt: now }, ...(issued ? { token: issued.token } : {}) };
}

/**
 * Puts the pending edits of an environment's connections in effect: called once a publish, restore or promotion
 * of that environment succeeded. @returns the identifiers whose edits took effect
 */
export async function applyPendingEdits(
  deps: Pick<ConnectionDeps, 'docs' | 'clock'>,
  ref: { agentId: string; environment: string },
): Promise<string[]> {
  const applied: string[] = [];
  for (const connection of await collection(deps).find({ agentId: ref.agentId, environment: ref.environment })) {
    const pending = connection.pending;
    if (!pending) continue;
    const { id, changedAt: _at, changedBy: _by, ...settings } = pending;
    const { matched } = await collection(deps).updateOne({ _id: connection._id, 'pending.id': id }, {
      $set: { ...settings, updatedAt: deps.clock.now() },
      $unset: { pending: '', ...unsetOf(settings.oidc, settings.tokenDigest).$unset },
    });
    if (matched > 0) applied.push(connection.identifier);
  }
  return applied;
}

function unsetOf(oidc: unknown, tokenDigest: unknown): { $unset?: Record<string, ''> } {
  const fields: Record<string, ''> = {};
  if (oidc === undefined) fields.oidc = '';
  if (tokenDigest === undefined) fields.tokenDigest = '';
  return Object.keys(fields).length ? { $unset: fields } : {};
}

/**
 * Issues a new endpoint token (Maintainer); the old one stops at once (its digest is replaced).
 * @returns the connection and the new token (shown once)
 * @throws PlatformError `invalid_argument` (400) when the connection is not in bearer mode; `connection_not_found`
 * (404)
 */
export async function regenerateToken(
  deps: ConnectionDeps,
  caller: ConnectionCaller,
  ref: ConnectionRef,
): Promise<Required<ConnectionWithToken>> {
  const current = await load(deps, caller, ref, 'maintainer');
  const pendingBearer = current.pending?.auth === 'bearer';
  if (current.auth !== 'bearer' && !pendingBearer) {
    throw invalid(
      'auth',
      `connection "${ref.identifier}" uses "${current.auth}", which has no endpoint token; ` +
        'switch it to bearer to get one.',
    );
  }
  const issued = await newToken(deps);
  const now = deps.clock.now();
  // At once: the digest in effect is replaced; a pending switch to bearer takes the new token too.
  const set: Record<string, unknown> = {
    updatedAt: now,
    ...(current.auth === 'bearer' ? { tokenDigest: issued.digest } : {}),
    ...(pendingBearer ? { 'pending.tokenDigest': issued.digest } : {}),
  };
  await collection(deps).updateOne({ _id: current._id }, { $set: set });
  const record: ConnectionRecord = {
    ...current,
    updatedAt: now,
    ...(current.auth === 'bearer' ? { tokenDigest: issued.digest } : {}),
    ...(pendingBearer && current.pending ? { pending: { ...current.pending, tokenDigest: issued.digest } } : {}),
  };
  return { connection: record, token: issued.token };
}

/**
 * Deletes a connection (Maintainer); its address stays reserved for the identifier.
 * @returns the deleted record (its agent and environment: the caller reconciles that environment's deployments)
 * @throws `connection_not_found` (404)
 */
export async function deleteConnection(
  deps: ConnectionDeps,
  caller: ConnectionCaller,
  ref: ConnectionRef,
): Promise<ConnectionRecord> {
  const current = await load(deps, caller, ref, 'maintainer');
  await collection(deps).deleteOne({ _id: current._id });
  return current;
}

/**
 * The connection an endpoint address serves, or null (the endpoint then answers 404). No role check: the
 * address itself is the capability; admission (admitCaller in admission.ts) decides who may call.
 */
export async function connectionByAddress(
  deps: Pick<ConnectionDeps, 'docs'>,
  address: string,
): Promise<ConnectionRecord | null> {
  if (address.length === 0 || address.length > 100) return null;
  return collection(deps).findOne({ address });
}
