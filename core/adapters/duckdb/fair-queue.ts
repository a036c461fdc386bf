/**
 * The waiting line shared by the engine's two scarce resources, the query processes (process-pool.ts) and the
 * scope builds (build-slots.ts): waiters are served round-robin across projects (the waiting project served least
 * recently goes first; in arrival order within a project), so a quiet project gets the next free room while a busy
 * one has work queued. What a waiter may take (its shares) is decided by the caller through `eligible`.
 *
 * Source: docs/decisions.md D18 § 2 (one caller cannot starve the others).
 */

/** Whose work a waiter is: the round-robin is across `projectId` (a waiter without one counts as project ''). */
export interface Owned {
  share?: { projectId: string };
}

/**
 * Waiters in arrival order with the round-robin across projects.
 *
 * Source: docs/decisions.md D18 § 2
 */
export class FairQueue<W extends Owned> {
  private readonly waiting: W[] = [];
  /** When each project was last served (a counter). */
  private readonly served = new Map<string, number>();
  private counter = 0;

  /** The waiters, in arrival order. */
  get list(): readonly W[] {
    return this.waiting;
  }

  push(waiter: W): void {
    this.waiting.push(waiter);
  }

  /** Takes `waiter` out of the line without serving it; false when it was not waiting. */
  remove(waiter: W): boolean {
    const index = this.waiting.indexOf(waiter);
    if (index < 0) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  /** Empties the line and returns who was in it. */
  drain(): W[] {
    return this.waiting.splice(0);
  }

  /** The waiter to serve next among those `eligible` allows: of the project served least recently, earliest arrived. */
  next(eligible: (waiter: W) => boolean): W | undefined {
    let best: W | undefined;
    let bestServed = Infinity;
    for (const waiter of this.waiting) {
      if (!eligible(waiter)) continue;
      const served = this.served.get(waiter.share?.projectId ?? '') ?? 0;
      if (served < bestServed) {
        best = waiter;
        bestServed = served;
      }
    }
    return best;
  }

  /** Takes `waiter` out of the line as served: its project goes to the back of the round-robin. */
  take(waiter: W): void {
    this.remove(waiter);
    this.served.set(waiter.share?.projectId ?? '', this.counter += 1);
  }
}
