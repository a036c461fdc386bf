/**
 * The thread ids the AG-UI endpoints issue (collection `agui_threads`): each bound to its connection and to the
 * caller it was issued to, a member or OIDC subject by subject, a public or bearer-token caller by a thread secret
 * issued with the thread and sent back in `forwardedProps.threadSecret` (only its SHA-256 is stored). A thread id
 * not issued to this caller continues nothing: it opens a fresh chat.
 *
 * Source: spec/platform-service.md § AG-UI request (rules 1, 2); docs/decisions.md D8 § Endpoints (AG-UI).
 */
import type { AdmittedCaller, ConnectionRecord } from './index.ts';
import type { sessionSchemaVersion } from '../session/model.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';

/** Collection of the thread ids the AG-UI endpoints issued. */
export const aguiThreadsCollection = 'agui_threads';

/** A thread id issued to one caller of one connection (collection `agui_threads`, `_id` = the thread id). */
export interface AguiThreadRecord {
  _id: string;
  schemaVersion: typeof sessionSchemaVersion;
  connectionId: string;
  /** Who it was issued to ({@link threadOwner}). */
  owner: string;
  sessionId: string;
  /**
   * SHA-256 (hex) of the thread secret issued with it to a caller without a subject of their own (public or
   * bearer-token callers): a later run continues the thread only with that secret. Absent for members and OIDC
   * subjects (bound to their subject).
   */
  secretHash?: string;
  createdAt: Date;
}

export const threadsOf = (deps: Pick<SessionStoreDeps, 'docs'>) =>
  deps.docs.collection<AguiThreadRecord>(aguiThreadsCollection);

/**
 * Whom a thread id is issued to: a member or an OIDC subject by subject; a bearer-token or public caller, who has no
 * subject of their own, by the connection and a thread secret issued with the thread ({@link needsThreadSecret}).
 */
export function threadOwner(caller: AdmittedCaller): string {
  if (caller.kind === 'member' || caller.kind === 'oidc') return `${caller.kind}:${caller.subject ?? ''}`;
  return caller.kind;
}

/** True for a caller whose threads are bound to a thread secret (public and bearer-token callers: no subject). */
export function needsThreadSecret(caller: AdmittedCaller): boolean {
  return caller.kind === 'public' || caller.kind === 'token';
}

/** The thread secret a run sends back: `forwardedProps.threadSecret` when it is a string of at most 200 characters. */
export function threadSecretOf(input: { forwardedProps?: unknown }): string | undefined {
  const props = input.forwardedProps;
  const secret = props && typeof props === 'object' ? (props as { threadSecret?: unknown }).threadSecret : undefined;
  return typeof secret === 'string' && secret.length > 0 && secret.length <= 200 ? secret : undefined;
}

/** A fresh thread secret (32 random bytes, base64url) and its SHA-256 hex, which alone is stored. */
export async function newThreadSecret(ids: SessionStoreDeps['ids']): Promise<{ secret: string; hash: string }> {
  const base64 = btoa(String.fromCharCode(...ids.randomBytes(32)));
  const secret = base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return { secret, hash: await ids.sha256Hex(secret) };
}

/**
 * The thread `input.threadId` names when it was issued to this caller on this connection (and, for a caller without
 * a subject, the run sends its secret); null otherwise: a value not issued to this caller opens a fresh chat
 * (spec § AG-UI request rule 1), so holding someone else's thread id continues nothing.
 */
export async function issuedThread(
  deps: Pick<SessionStoreDeps, 'docs' | 'ids'>,
  connection: ConnectionRecord,
  caller: AdmittedCaller,
  input: { threadId: string; forwardedProps?: unknown },
): Promise<AguiThreadRecord | null> {
  if (!input.threadId) return null;
  const owner = threadOwner(caller);
  const thread = await threadsOf(deps).findOne({ _id: input.threadId, connectionId: connection._id, owner });
  if (!thread || !needsThreadSecret(caller)) return thread;
  const sent = threadSecretOf(input);
  if (!thread.secretHash || sent === undefined) return null;
  return (await deps.ids.sha256Hex(sent)) === thread.secretHash ? thread : null;
}
