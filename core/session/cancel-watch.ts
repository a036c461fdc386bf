/**
 * A running turn's cancellation watch (dispatcher, trusted): the turn and its session are read once when the watch
 * starts, once per change notification on the chat's root session (SessionChanges: a cancel publishes one), once
 * more when the subscription is made again after a lost connection, and every `safetyMs` whatever the
 * notifications. A cancelled turn, or a cancelled session whose turn still runs (the turn is then ended cancelled,
 * fenced by its runner), stops the worker. Without notifications it reads every second, as the watch did before.
 *
 * Source: spec/platform-service.md § Rules 6–7; docs/architecture.md § Life of a turn (2. The claim).
 */
import type { SessionChanges } from '../ports/session-changes.ts';
import { TURN_HEARTBEAT_MS } from './model.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from './session-store.ts';
import { SUBSCRIBE_WAIT_MS, subscribeWithin } from './change-watch.ts';

/** What the watch needs. */
export interface CancelWatchDeps extends Pick<SessionStoreDeps, 'docs' | 'clock'> {
  changes?: SessionChanges;
  /**
   * How often the records are read whatever the notifications (ms); default TURN_HEARTBEAT_MS (10 s) with
   * notifications, 1000 without.
   */
  safetyMs?: number;
}

/** The turn watched: its id, its session, the runner that claimed it and the claim's lease epoch. */
export interface WatchedTurn {
  _id: string;
  sessionId: string;
  runner: string;
  lease?: string;
}

/**
 * Starts watching `turn`; `stop` is called once, when the turn or its session is found cancelled.
 * @returns `rootId`: the chat's root session (whose channel carries the notifications); `end`: ends the watch
 */
export async function watchCancellation(
  deps: CancelWatchDeps,
  turn: WatchedTurn,
  stop: () => void,
): Promise<{ rootId: string; end(): void }> {
  let stopped = false;
  let reading: Promise<void> | undefined;
  let again = false;
  const readOnce = async () => {
    const [current, session] = await Promise.all([
      turnsOf(deps).findOne({ _id: turn._id }),
      sessionsOf(deps).findOne({ _id: turn.sessionId }),
    ]);
    if (stopped) return;
    if (current?.status === 'running' && session?.status === 'cancelled') {
      // Cancelled while this runner held the turn (cancel writes the session first): end the turn cancelled too.
      const fence = turn.lease ? { lease: turn.lease } : {};
      const mine = { _id: turn._id, status: 'running', runner: turn.runner, ...fence };
      await turnsOf(deps).updateOne(mine, { $set: { status: 'cancelled', endedAt: deps.clock.now() } });
    } else if (current?.status !== 'cancelled') return;
    stopped = true;
    stop();
  };
  // One read at a time; a notification during a read makes one more.
  const check = () => {
    if (reading) {
      again = true;
      return;
    }
    reading = readOnce().catch(() => undefined).finally(() => {
      reading = undefined;
      if (again && !stopped) {
        again = false;
        check();
      }
    });
  };
  const session = await sessionsOf(deps).findOne({ _id: turn.sessionId }).catch(() => null);
  const rootId = session?.rootId ?? turn.sessionId;
  const unsubscribe = await subscribeWithin(deps.changes, rootId, check, SUBSCRIBE_WAIT_MS);
  const safetyMs = deps.safetyMs ?? (deps.changes ? TURN_HEARTBEAT_MS : 1000);
  const timer = setInterval(check, safetyMs);
  check();
  return {
    rootId,
    end() {
      stopped = true;
      clearInterval(timer);
      unsubscribe();
    },
  };
}
