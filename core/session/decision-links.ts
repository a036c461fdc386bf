/**
 * One-time decision links: a pending decision sent out (by mail, chat, a service) as an address anyone holding it
 * may decide through, with no sign-in. One link per decision, whose page offers the options. The token
 * (`cairn_dl_` and 256 random bits, base64url) is shown once, in the address; only its SHA-256 digest is stored, as
 * the key of its `decision_links` record, bound to the session, the pending decision's id and the options. It is
 * refused once used (a compare-and-set consumes it), once the decision was taken by any channel, and after the
 * decision's `expiresAt` (else 7 days after it was made); a TTL index removes it then.
 *
 * Source: docs/decisions.md D26 § 3; spec/platform-service.md § States and transitions (a pending decision).
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import { isPlatformError, PlatformError } from '../ports/platform-error.ts';
import type { SessionRecord } from './model.ts';
import { sessionsOf } from './session-store.ts';
import { takeDecision } from './decisions.ts';
import type { TurnQueueDeps } from './queued-turns.ts';

/** The collection of decision links (`_id` = SHA-256 hex of the token). Source: docs/decisions.md D26 § 3. */
export const DECISION_LINKS_COLLECTION = 'decision_links';
/** The prefix of a decision link's token. */
export const decisionLinkPrefix = 'cairn_dl_';
/** A link's lifetime when the decision has no `expiresAt` (ms): 7 days. Source: docs/decisions.md D26 § 3. */
export const DEFAULT_LINK_LIFETIME_MS = 7 * 24 * 3600 * 1000;
/** Random bytes of a token: 32 (256 bits). */
const tokenBytes = 32;

/** One option of a decision: the state it goes to and its label. */
export interface DecisionOption {
  to: string;
  description: string;
}

/** A stored decision link. Never the token: `_id` is its digest. */
export interface DecisionLinkRecord {
  _id: string;
  orgId: string;
  sessionId: string;
  /** The pending decision's id the link decides (a later decision of the same session is not its own). */
  decisionId: string;
  state: string;
  options: DecisionOption[];
  /** The decision's fields as the state declares them (absent: none). */
  fields?: unknown[];
  createdAt: Date;
  /** When the link stops working; the TTL index removes it then. */
  expiresAt: Date;
  /** Where the session goes when the decision itself expires (absent: the decision does not expire). */
  expiresTo?: string;
  /** Set by the compare-and-set that consumed it. */
  usedAt?: Date;
}

/** What a decision link needs. */
export interface DecisionLinkDeps extends TurnQueueDeps {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
}

/** What a link's page shows: the decision, never the session. */
export interface DecisionLinkView {
  state: string;
  options: DecisionOption[];
  fields?: unknown[];
  /** ISO time the link stops working. */
  expiresAt: string;
  /** Where the session goes at `expiresAt` when the decision itself expires (absent: only the link lapses). */
  expiresTo?: string;
}

const linksOf = (deps: Pick<DecisionLinkDeps, 'docs'>) =>
  deps.docs.collection<DecisionLinkRecord>(DECISION_LINKS_COLLECTION);

/** Creates the index of decision links: by session, and the TTL on `expiresAt` (idempotent; run at boot). */
export async function ensureDecisionLinkIndexes(docs: DocumentStore): Promise<void> {
  await docs.collection(DECISION_LINKS_COLLECTION).createIndex({ sessionId: 1 });
  await docs.collection(DECISION_LINKS_COLLECTION).createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 });
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * Makes the link of the decision session `session` waits for: a new token, stored as its digest.
 * @returns the token (shown once: it goes into the page's address `/decide/<token>` and the API's
 *   `/api/decisions/<token>`) and when it expires
 * @throws PlatformError `no_decision_pending` (409) when the session waits for no decision
 */
export async function createDecisionLink(
  deps: Pick<DecisionLinkDeps, 'docs' | 'clock' | 'ids'>,
  session: SessionRecord,
): Promise<{ token: string; expiresAt: Date }> {
  const pending = session.pending;
  if (session.status !== 'awaiting_decision' || pending?.kind !== 'decision') {
    throw new PlatformError('no_decision_pending', 'The session waits for no decision.', { status: 409 });
  }
  const now = deps.clock.now();
  const due = typeof pending.expiresAt === 'string' ? new Date(pending.expiresAt) : undefined;
  const expiresAt = due && !Number.isNaN(due.getTime()) ? due : new Date(now.getTime() + DEFAULT_LINK_LIFETIME_MS);
  const token = decisionLinkPrefix + base64url(deps.ids.randomBytes(tokenBytes));
  const fields = Array.isArray(pending.fields) ? { fields: pending.fields as unknown[] } : {};
  const expiresTo = due && typeof pending.expiresTo === 'string' ? { expiresTo: pending.expiresTo } : {};
  await linksOf(deps).insertOne({
    _id: await deps.ids.sha256Hex(token),
    schemaVersion: 1,
    orgId: session.orgId,
    sessionId: session._id,
    decisionId: pending.id,
    state: pending.state,
    options: pending.options.map((o) => ({ to: o.to, description: o.description })),
    ...fields,
    ...expiresTo,
    createdAt: now,
    expiresAt,
  });
  return { token, expiresAt };
}

const unknownLink = () => new PlatformError('not_found', 'No decision link has this address.', { status: 404 });
const goneLink = () =>
  new PlatformError(
    'decision_link_gone',
    'This decision link no longer works: it was used, the decision was taken another way, or it expired.',
    { status: 410 },
  );

/** The live link of `token` and its session, or the refusal: 404 unknown, 410 used, expired or decided. */
async function liveLink(
  deps: DecisionLinkDeps,
  token: string,
): Promise<{ link: DecisionLinkRecord; session: SessionRecord }> {
  if (!token.startsWith(decisionLinkPrefix) || token.length > 200) throw unknownLink();
  const link = await linksOf(deps).findOne({ _id: await deps.ids.sha256Hex(token) });
  if (!link) throw unknownLink();
  if (link.usedAt || link.expiresAt.getTime() <= deps.clock.now().getTime()) throw goneLink();
  const session = await sessionsOf(deps).findOne({ _id: link.sessionId, orgId: link.orgId });
  const pending = session?.pending;
  if (!session || session.status !== 'awaiting_decision' || pending?.kind !== 'decision') throw goneLink();
  if (pending.id !== link.decisionId) throw goneLink();
  return { link, session };
}

/**
 * What the decision of link `token` is, for its page.
 * @throws PlatformError `not_found` (404) for an unknown token; `decision_link_gone` (410) once it was used, the
 *   decision was taken by another channel, or it expired
 */
export async function readDecisionLink(deps: DecisionLinkDeps, token: string): Promise<DecisionLinkView> {
  const { link } = await liveLink(deps, token);
  return {
    state: link.state,
    options: link.options,
    ...(link.fields ? { fields: link.fields } : {}),
    expiresAt: link.expiresAt.toISOString(),
    ...(link.expiresTo ? { expiresTo: link.expiresTo } : {}),
  };
}

/** A decision sent through a link. */
export interface LinkDecision {
  to: string;
  comment?: string;
  /** The decision's field values (checked by the decision itself). */
  fields?: Record<string, unknown>;
}

/**
 * Decides through link `token`, once: `to` is checked against the link's options first (a wrong choice leaves the
 * link working), then a compare-and-set consumes the link, then the decision is taken with channel `link`.
 * @returns the id of the queued decision turn
 * @throws PlatformError `not_found` (404), `decision_link_gone` (410: used, decided another way, expired, or used
 *   meanwhile), `invalid_decision` (400) naming the options
 */
export async function decideThroughLink(
  deps: DecisionLinkDeps,
  token: string,
  decision: LinkDecision,
): Promise<string> {
  const { link, session } = await liveLink(deps, token);
  if (!link.options.some((o) => o.to === decision.to)) {
    const choices = link.options.map((o) => o.to).join(', ');
    throw new PlatformError('invalid_decision', `"${decision.to}" is not a choice here; decide one of: ${choices}.`, {
      status: 400,
    });
  }
  const now = deps.clock.now();
  const consumed = await linksOf(deps).updateOne(
    { _id: link._id, usedAt: { $exists: false }, expiresAt: { $gt: now } },
    { $set: { usedAt: now } },
  );
  if (consumed.matched === 0) throw goneLink();
  try {
    const turn = await takeDecision(deps, session, { ...decision, channel: 'link' }, 'decision link');
    return turn._id;
  } catch (error) {
    if (isPlatformError(error, 'no_decision_pending') || isPlatformError(error, 'decision_expired')) throw goneLink();
    // Not decided (a field the decision refuses, a store failure): the link works again for a corrected try.
    await linksOf(deps).updateOne({ _id: link._id }, { $unset: { usedAt: '' } }).catch(() => undefined);
    throw error;
  }
}
