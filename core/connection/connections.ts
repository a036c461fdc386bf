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
import { base64url, checkIdentifier, checkSettings, type ConnectionSettingsInput } from './rules.ts';

/** Random bytes of an endpoint address (192 bits; 32 URL-safe characters). */
const addressBytes = 24;
/** Random bytes of an endpoint token (256 bits). */
const tokenBytes = 32;

/** What registering takes. */
export interface CreateConnectionInput extends ConnectionSettingsInput {
  identifier: string;
}

/** A connection and, when one was just issued, its endpoint token (shown this once). */
export interface ConnectionWithToken {
  connection: ConnectionRecord;
  token?: string;
}

export const connectionsOf = (deps: Pick<ConnectionDeps, 'docs'>) =>
  deps.docs.collection<ConnectionRecord>(connectionCollections.connections);
const keyOf = (scope: ConnectionScope, identifier: string) => `${scope.agentId}:${scope.environment}:${identifier}`;

/** Declares the indexes (idempotent): unique address on both collections, agent environment listing. */
export async function ensureConnectionIndexes(deps: Pick<ConnectionDeps, 'docs'>): Promise<void> {
  await connectionsOf(deps).createIndex({ address: 1 }, { unique: true });
  await connectionsOf(deps).createIndex({ agentId: 1, environment: 1 });
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
export async function newToken(deps: ConnectionDeps): Promise<{ token: string; digest: string }> {
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
    await connectionsOf(deps).insertOne(record);
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
  return connectionsOf(deps).find({ agentId: scope.agentId, environment: scope.environment }, {
    sort: { identifier: 1 },
  });
}

/** Loads one connection after the role check. @throws PlatformError `connection_not_found` (404) */
export async function loadConnection(
  deps: ConnectionDeps,
  caller: ConnectionCaller,
  { agent, environment, identifier }: ConnectionRef,
  role: 'reader' | 'maintainer',
): Promise<ConnectionRecord> {
  const scope = await deps.scope(caller, agent, environment, role);
  const record = await connectionsOf(deps).findOne({ _id: keyOf(scope, identifier) });
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
  return loadConnection(deps, caller, ref, 'reader');
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
  const current = await loadConnection(deps, caller, ref, 'maintainer');
  await connectionsOf(deps).deleteOne({ _id: current._id });
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
  return connectionsOf(deps).findOne({ address });
}
