/**
 * The rules of several runs in flight on one chat (pure, as ./transcript.ts, which applies them): a message sent
 * while a turn of the chat runs gets its own run (docs/decisions.md D27 § 1). Its run may be queued behind the running
 * turn (`platform.queued` {position}: the member's message carries its place until its turn starts), the running
 * turn may be stopped by it (`platform.notice` {code: turn_interrupted}: a quiet note, and under `rollback` the
 * stopped turn's entries are greyed, since its messages are gone from the session), a message whose chat ended
 * before it ran is dropped (RUN_ERROR `message_dropped`), and a `reject` chat refuses it (409 `turn_running`: the
 * message is taken back, {@link refuseRun}).
 *
 * A queued message's place goes down by one each time a run ahead of it ends handing the chat over (its turn left
 * the chat waiting for input, or was stopped); any event of its own turn ends its wait.
 *
 * Source: docs/decisions.md D27 § 1 (AG-UI); docs/endpoints.md § AG-UI.
 */
import type { Transcript, TranscriptItem } from './transcript-types.ts';

/** The note of a turn stopped by a new message (`interrupt`: what it did is kept). */
export const stoppedNote = 'Stopped by your new message';
/** The note of a turn stopped and rolled back by a new message (`rollback`: its messages are gone from the session). */
export const discardedNote = 'Stopped and discarded by your new message';

/** The label of a member's message queued at `position` (1 = next). */
export const queuedLabel = (position: number): string => (position > 1 ? `Queued (${position})` : 'Queued: runs after the current answer');

let counter = 0;
const keyOf = (prefix: string) => `${prefix}-run-${(counter += 1)}`;

/** `running` recomputed: some run in flight is not queued. */
export function recount(t: Transcript): Transcript {
  return { ...t, running: Object.values(t.runs ?? {}).some((r) => r.queued === undefined) };
}

/** Sets the place of run `run` (absent: its turn runs) on the run and on its member's message. */
function place(t: Transcript, run: string, queued: number | undefined): void {
  const runs = (t.runs ??= {});
  if (runs[run]) runs[run] = queued === undefined ? {} : { queued };
  for (const i of t.items) {
    if (i.kind !== 'user' || i.run !== run) continue;
    if (queued === undefined) delete i.queued;
    else i.queued = queued;
  }
}

/**
 * Run `run` starts (before its request is answered): in flight and not queued, with the member's message `text`
 * shown at once when it sends one (a decision sends none). Mutates nothing: answers a new transcript.
 */
export function beginRun(before: Transcript, run: string, text?: string): Transcript {
  const items: TranscriptItem[] = text === undefined ? before.items : [...before.items, { kind: 'user', key: keyOf('u'), run, text }];
  return recount({ ...before, items, runs: { ...before.runs, [run]: {} } });
}

/** `platform.queued`: run `run`'s message waits behind the running turn at `position` (1 = next). */
export function noteQueued(t: Transcript, run: string, position: number): Transcript {
  (t.runs ??= {})[run] ??= {};
  place(t, run, position);
  return recount(t);
}

/** Any event of run `run`'s own turn: it no longer waits. */
export function streamingStarted(t: Transcript, run: string): void {
  if (t.runs?.[run]?.queued === undefined) return;
  place(t, run, undefined);
  Object.assign(t, recount(t));
}

/**
 * `platform.notice` {code: turn_interrupted, mode}: a new message stopped run `run`'s turn. With `mode` rollback
 * (`discarded`) what the turn did was discarded: every entry of the run, its member's message too, is marked
 * discarded. The note goes right after the run's last entry.
 */
export function noteStopped(t: Transcript, run: string, discarded: boolean): Transcript {
  if (discarded) for (const i of t.items) if (i.run === run) i.discarded = true;
  // Right after the run's last entry: above the new message that stopped it, which was shown when it was sent.
  const after = t.items.findLastIndex((i) => i.run === run);
  t.items.splice(after + 1 || t.items.length, 0, { kind: 'notice', key: keyOf('n'), run, text: discarded ? discardedNote : stoppedNote, stopped: true });
  return t;
}

/**
 * Run `run` ended (RUN_FINISHED, RUN_ERROR, or its stream closed without either): no longer in flight, its message
 * no longer labelled queued. `handsOver`: its turn handed the chat to the first queued message, so every queued
 * run moves up one place (place 0: its turn runs).
 */
export function endRun(before: Transcript, run: string, { handsOver = false }: { handsOver?: boolean } = {}): Transcript {
  if (!before.runs?.[run]) return recount(before);
  const t: Transcript = { ...before, items: before.items.map((i) => ({ ...i }) as TranscriptItem), runs: { ...before.runs } };
  place(t, run, undefined);
  delete t.runs![run];
  if (handsOver) {
    for (const [other, state] of Object.entries(t.runs!)) {
      if (state.queued !== undefined) place(t, other, state.queued > 1 ? state.queued - 1 : undefined);
    }
  }
  return recount(t);
}

/**
 * Run `run`'s request was refused (a 409: `turn_running` of a `reject` chat, `decision_pending`): its member's
 * message is taken out of the transcript (the page puts it back in the composer) and the platform's `message` is
 * shown as a notice instead of a failure.
 */
export function refuseRun(before: Transcript, run: string, message: string): Transcript {
  const items = before.items.filter((i) => !(i.kind === 'user' && i.run === run));
  const ended = endRun({ ...before, items }, run);
  return { ...ended, items: [...ended.items, { kind: 'notice', key: keyOf('n'), run, text: message }] };
}
