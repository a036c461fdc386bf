/**
 * A session's checkpoint thread as stored: one message per record (collection `session_messages`), numbered in the
 * session's order; a message numbered at or past the session's `messageCount` is not part of the thread yet.
 *
 * Source: spec/platform-service.md § Session facts named; docs/decisions.md D7 § Sessions and turns.
 */
import type { ModelMessage } from '../ports/model-provider.ts';
import type { sessionSchemaVersion } from './model.ts';

/** One stored message of a checkpoint thread (collection `session_messages`). */
export interface MessageRecord {
  _id: string;
  schemaVersion: typeof sessionSchemaVersion;
  sessionId: string;
  /** 0-based position in the thread. */
  seq: number;
  turnId: string;
  /** The state active when it was written. */
  state: string;
  message: ModelMessage;
  at: Date;
}
