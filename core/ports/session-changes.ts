/**
 * "Read again" notifications of a chat's records: the trusted processes say that the records of a root session
 * (its turn, its thread, its child sessions) changed after a checkpoint, a settle, a claim or a cancel wrote them;
 * readers (AG-UI streams, MCP calls, a running turn's cancellation watch) wait on them instead of reading the
 * records on a timer. A notification carries nothing but the root session's id: the records stay the truth, and a
 * notification lost (a failed publish, a queue store restart) only delays a reader until its next safety read.
 *
 * Source: spec/platform-service.md § AG-UI request (rule 3), § Tool-protocol endpoint; docs/architecture.md
 * § Life of a turn (4. After the worker).
 */

/** Publishes and receives change notifications per root session (Redis pub/sub in production). */
export interface SessionChanges {
  /** Tells every reader of root session `rootId` to read its records again; never throws (best effort). */
  changed(rootId: string): void;
  /**
   * Calls `onChange` on each notification for root session `rootId` until the returned function is called, and
   * once more whenever the subscription is made again after the connection to the queue store was lost (changes
   * in between may have been missed: read again).
   * @returns resolves once the subscription is active
   */
  watch(rootId: string, onChange: () => void): Promise<() => void>;
}
