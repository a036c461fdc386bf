/**
 * Editing incoming connections: a Maintainer's change of settings waits for the environment's next publish as the
 * connection's `pending` settings (rule 6: edits take effect on publish), which a publish, restore or promotion then
 * puts in effect; a new endpoint token takes effect at once.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication (rules 4, 6);
 * docs/decisions.md D8 § Connections.
 */
import { PlatformError } from '../ports/platform-error.ts';
import {
  type ConnectionRef,
  connectionsOf,
  type ConnectionWithToken,
  loadConnection,
  newToken,
} from './connections.ts';
import type { ConnectionCaller, ConnectionDeps, ConnectionRecord } from './model.ts';
import { checkSettings, invalid, type OidcInput } from './rules.ts';

/** What an edit may change (protocol only to the same value). */
export interface ConnectionChange {
  protocol?: string;
  auth?: string;
  oidc?: OidcInput;
  origins?: string[];
  rate?: { perCaller: number; perEndpoint: number };
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
  const current = await loadConnection(deps, caller, ref, 'maintainer');
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
  await connectionsOf(deps).updateOne({ _id: current._id }, { $set: { pending, updatedAt: now } });
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
  for (const connection of await connectionsOf(deps).find({ agentId: ref.agentId, environment: ref.environment })) {
    const pending = connection.pending;
    if (!pending) continue;
    const { id, changedAt: _at, changedBy: _by, ...settings } = pending;
    const { matched } = await connectionsOf(deps).updateOne({ _id: connection._id, 'pending.id': id }, {
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
  const current = await loadConnection(deps, caller, ref, 'maintainer');
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
  await connectionsOf(deps).updateOne({ _id: current._id }, { $set: set });
  const record: ConnectionRecord = {
    ...current,
    updatedAt: now,
    ...(current.auth === 'bearer' ? { tokenDigest: issued.digest } : {}),
    ...(pendingBearer && current.pending ? { pending: { ...current.pending, tokenDigest: issued.digest } } : {}),
  };
  return { connection: record, token: issued.token };
}
