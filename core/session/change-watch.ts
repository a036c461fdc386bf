/**
 * Readers that wait for a chat's records to change instead of reading them on a timer: one ChangeWatch per process
 * follows root sessions for the AG-UI streams and MCP calls of that process. A reader is woken by a change
 * notification (SessionChanges: the trusted processes publish one after each checkpoint, settle, claim and cancel),
 * once more when the notification subscription is made again after a lost connection, and by the watch's safety
 * read: every `safetyMs` it reads the root sessions and turns of every follower in one query each and wakes the
 * followers whose records changed since it last looked (a lost notification delays a reader by at most
 * `safetyMs`; a child session's own step whose notification was lost shows at the root's next change or settle).
 * Records stay the truth: a wake-up only says "read again".
 *
 * Source: spec/platform-service.md § AG-UI request (rule 3), § Tool-protocol endpoint; docs/architecture.md
 * § Life of a turn (4. After the worker).
 */
import type { SessionChanges } from '../ports/session-changes.ts';
import type { SessionRecord, TurnRecord } from './model.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from './session-store.ts';

/** How often the watch reads its followers' records whatever the notifications (ms). */
export const CHANGE_SAFETY_MS = 5_000;
/** How long `follow` waits for the notification subscription (ms) before going on with safety reads alone. */
export const SUBSCRIBE_WAIT_MS = 2_000;

/** What a ChangeWatch needs. */
export interface ChangeWatchDeps extends Pick<SessionStoreDeps, 'docs'> {
  /** The notifications; absent: followers are woken by the safety read only. */
  changes?: SessionChanges;
  /** Period of the safety read (ms; default {@link CHANGE_SAFETY_MS}); 0: none (tests call `sweep`). */
  safetyMs?: number;
  /** How long `follow` waits for the subscription (ms; default {@link SUBSCRIBE_WAIT_MS}). */
  subscribeWaitMs?: number;
}

/** What is followed: a root session and, optionally, the turn a reader waits for. */
export interface FollowTarget {
  rootId: string;
  turnId?: string;
}

/** Follows root sessions for the readers of one process. */
export interface ChangeWatch {
  /**
   * Wakes `onChange` whenever the records of `target` may have changed, until the returned function is called.
   * Resolves once the notification subscription is active (or after `subscribeWaitMs` when the queue store does not
   * answer: safety reads until it does) and the safety read's starting point is read (one read of the session and
   * one of the turn): read the records after it resolves.
   */
  follow(target: FollowTarget, onChange: () => void): Promise<() => void>;
  /** One safety read now: two reads in all, whatever the number of followers. */
  sweep(): Promise<void>;
  /** Stops the safety timer (followers stay subscribed until they stop). */
  close(): void;
}

/** One follower. */
interface Follower extends FollowTarget {
  onChange(): void;
  version: string;
}

/**
 * Subscribes `onChange` to the notifications of `rootId`, waiting at most `waitMs` (a queue store that is away holds
 * a subscription until it is back): the returned `end` also ends a subscription that completes later.
 */
export async function subscribeWithin(
  changes: SessionChanges | undefined,
  rootId: string,
  onChange: () => void,
  waitMs: number,
): Promise<() => void> {
  let ended = false;
  let unsubscribe: (() => void) | undefined;
  const subscribed = changes?.watch(rootId, onChange).then((stop) => {
    if (ended) stop();
    else unsubscribe = stop;
  }, () => undefined);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, waitMs);
  });
  if (subscribed) await Promise.race([subscribed, waited]);
  clearTimeout(timer);
  return () => {
    ended = true;
    unsubscribe?.();
  };
}

/** What the safety read compares: the root session's status, update time and messages, and the turn's status. */
const versionOf = (session: SessionRecord | null | undefined, turn: TurnRecord | null | undefined) =>
  JSON.stringify([
    session?.status,
    session?.updatedAt,
    session?.messageCount,
    turn?.status,
  ]);

/** What one ChangeWatch keeps: its followers, its safety timer and the safety read in flight. */
interface WatchState {
  deps: ChangeWatchDeps;
  followers: Set<Follower>;
  /** Period of the safety read (ms); 0 or less: none. */
  safetyMs: number;
  timer?: ReturnType<typeof setInterval>;
  sweeping?: Promise<void>;
}

/** Starts the safety timer (once; never with a period of 0). */
function startTimer(state: WatchState): void {
  if (state.timer || state.safetyMs <= 0) return;
  state.timer = setInterval(() => {
    void sweep(state);
  }, state.safetyMs);
  (state.timer as { unref?(): void }).unref?.();
}

function stopTimer(state: WatchState): void {
  if (state.timer) clearInterval(state.timer);
  state.timer = undefined;
}

/** One safety read: the root sessions and turns of every follower in one query each; the changed ones are woken. */
async function readAll(state: WatchState): Promise<void> {
  const { deps, followers } = state;
  const list = [...followers];
  if (list.length === 0) return;
  const roots = [...new Set(list.map((f) => f.rootId))];
  const turnIds = [...new Set(list.flatMap((f) => (f.turnId ? [f.turnId] : [])))];
  const sessions = new Map((await sessionsOf(deps).find({ _id: { $in: roots } })).map((s) => [s._id, s]));
  const turns = turnIds.length === 0
    ? new Map<string, TurnRecord>()
    : new Map((await turnsOf(deps).find({ _id: { $in: turnIds } })).map((t) => [t._id, t]));
  for (const follower of list) {
    const turn = follower.turnId ? turns.get(follower.turnId) : undefined;
    const version = versionOf(sessions.get(follower.rootId), turn);
    if (version === follower.version || !followers.has(follower)) continue;
    follower.version = version;
    follower.onChange();
  }
}

/** One safety read at a time; a store that does not answer is tried again at the next period. */
function sweep(state: WatchState): Promise<void> {
  state.sweeping ??= readAll(state).catch(() => undefined).finally(() => {
    state.sweeping = undefined;
  });
  return state.sweeping;
}

/** {@link ChangeWatch.follow} of the watch `state` keeps. */
async function follow(state: WatchState, target: FollowTarget, onChange: () => void): Promise<() => void> {
  const { deps, followers } = state;
  const waitMs = deps.subscribeWaitMs ?? SUBSCRIBE_WAIT_MS;
  const unsubscribe = await subscribeWithin(deps.changes, target.rootId, onChange, waitMs);
  const [session, turn] = await Promise.all([
    sessionsOf(deps).findOne({ _id: target.rootId }),
    target.turnId ? turnsOf(deps).findOne({ _id: target.turnId }) : undefined,
  ]).catch((error: unknown) => {
    unsubscribe();
    throw error;
  });
  const follower: Follower = { ...target, onChange, version: versionOf(session, turn) };
  followers.add(follower);
  startTimer(state);
  return () => {
    unsubscribe();
    followers.delete(follower);
    if (followers.size === 0) stopTimer(state);
  };
}

/** A ChangeWatch over `deps.docs` and `deps.changes`. */
export function createChangeWatch(deps: ChangeWatchDeps): ChangeWatch {
  const state: WatchState = { deps, followers: new Set(), safetyMs: deps.safetyMs ?? CHANGE_SAFETY_MS };
  return {
    follow: (target, onChange) => follow(state, target, onChange),
    sweep: () => sweep(state),
    close: () => stopTimer(state),
  };
}

/**
 * A wake-up a reader waits on between its reads: `notify` (any number of times while the reader reads) makes the
 * next `wait` return at once, so a change during a read is never missed and many changes cost one more read.
 */
export class Wakeup {
  private pending = false;
  private waiter: (() => void) | undefined;

  /** Wakes the reader (or makes its next wait return at once). */
  readonly notify = (): void => {
    this.pending = true;
    this.waiter?.();
  };

  /**
   * Resolves at the next notification (at once when one came since the last wait), after `ms` when given, or
   * when `signal` aborts.
   */
  wait(ms?: number, signal?: AbortSignal): Promise<void> {
    if (this.pending || signal?.aborted) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiter = undefined;
        this.pending = false;
        resolve();
      };
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
      this.waiter = done;
    });
  }
}
