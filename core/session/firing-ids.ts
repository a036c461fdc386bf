/**
 * The ids a firing key gives, and the `delivery` turn of a firing inserted under a chosen id: a firing run again (a
 * stalled job run twice, a claim resumed by the sweep of ./delivery-claims.ts) derives the same session and turn
 * ids, so its inserts find what the first run wrote instead of opening anew.
 *
 * Source: spec/platform-service.md § Firings; docs/decisions.md D8 (a retry fires once, exactly once under
 * concurrent duplicates).
 */
import { isPlatformError } from '../ports/platform-error.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { insertTurn, type SessionStoreDeps, turnsOf } from './session-store.ts';

/** The session and turn ids a firing key gives (`fs-` / `ft-` and 32 hex digits of its SHA-256). */
export interface FiringIds {
  sessionId: string;
  turnId: string;
}

/** The session and turn ids of `firingKey` (the first 32 hex digits of its SHA-256, prefixed `fs-` and `ft-`). */
export async function firingIdsOf(deps: Pick<SessionStoreDeps, 'ids'>, firingKey: string): Promise<FiringIds> {
  const digest = (await deps.ids.sha256Hex(firingKey)).slice(0, 32);
  return { sessionId: `fs-${digest}`, turnId: `ft-${digest}` };
}

/** The store deps whose next new id is `id` (insertSession and insertTurn each draw one id). */
export const withId = <T extends SessionStoreDeps>(
  deps: T,
  id: string | undefined,
): T => (id === undefined ? deps : { ...deps, ids: { ...deps.ids, newId: () => id } });

/**
 * Inserts the `delivery` turn of a firing under `turnId` (given: a concurrent run's insert of it is the same turn).
 * @throws PlatformError `duplicate_key` when a turn under `turnId` existed and is gone when read back
 */
export async function insertFiringTurn(
  deps: SessionStoreDeps,
  session: SessionRecord,
  message: string,
  turnId?: string,
): Promise<TurnRecord> {
  try {
    return await insertTurn(withId(deps, turnId), session, { kind: 'delivery', input: { message } });
  } catch (error) {
    const again = turnId !== undefined && isPlatformError(error, 'duplicate_key');
    const existing = again ? await turnsOf(deps).findOne({ _id: turnId }) : null;
    if (existing) return existing;
    throw error;
  }
}
