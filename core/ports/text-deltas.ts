/**
 * Live text of model calls, from the dispatcher that makes a call to the API processes streaming a chat: each
 * text delta as it arrives, named by the root session it belongs to and the id the reply's message will be
 * checkpointed under. Best effort: a delta missed is not an error, because the checkpointed message is the
 * record (a stream that missed the start of a message shows the message whole once it is recorded).
 *
 * Source: spec/platform-service.md § AG-UI request (rule 3: an AG-UI event stream), § Stream and custom events.
 */

/** One text delta of a model call. */
export interface TextDelta {
  /** The root session of the turn (the chat). */
  rootId: string;
  /** The session whose model call produced it (the root, or a child session). */
  sessionId: string;
  /** The id the reply will be checkpointed under (`<sessionId>:<seq>`). */
  messageId: string;
  /** Characters of this reply streamed before this delta. */
  offset: number;
  text: string;
}

/** Publishes and subscribes to text deltas (Redis pub/sub in production; an in-process hub in tests). */
export interface TextDeltas {
  /** Publishes one delta; never throws (a failure to publish loses only liveness). */
  publish(delta: TextDelta): void;
  /**
   * Receives the deltas of root session `rootId` until the returned function is called.
   * @returns resolves once the subscription is active
   */
  subscribe(rootId: string, onDelta: (delta: TextDelta) => void): Promise<() => void>;
}
