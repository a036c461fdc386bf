/**
 * The indexes of the session collections (sessions, turns, messages, claimed deliveries), created at boot, and how
 * long a claimed delivery id is remembered.
 *
 * Source: docs/architecture.md § Queues and collections; docs/decisions.md D7 § Sessions and turns, D8 (a retry
 * fires once).
 */
import type { DocumentStore } from '../ports/document-store.ts';
import { sessionCollections } from './model.ts';

/** How long a claimed delivery id is remembered (s): 30 days; a retry after that fires again. */
export const DELIVERY_CLAIM_SECONDS = 30 * 24 * 60 * 60;

/** Creates the session collections' indexes (idempotent; run at boot). */
export async function ensureSessionIndexes(docs: DocumentStore): Promise<void> {
  await docs.collection(sessionCollections.sessions).createIndex({ agentId: 1, environment: 1, createdAt: -1 });
  // The Sessions page lists agents newest first without an environment (core/session/session-list.ts).
  await docs.collection(sessionCollections.sessions).createIndex({ agentId: 1, createdAt: -1 });
  await docs.collection(sessionCollections.sessions).createIndex({ parentId: 1 });
  // A chat's stream reads its child sessions by root while the turn runs.
  await docs.collection(sessionCollections.sessions).createIndex({ rootId: 1 });
  await docs.collection(sessionCollections.sessions).createIndex({
    agentId: 1,
    environment: 1,
    workflow: 1,
    trigger: 1,
    sessionKey: 1,
  });
  // The turn sweep reads running sessions (core/session/turn-recovery.ts).
  await docs.collection(sessionCollections.sessions).createIndex({ status: 1, updatedAt: 1 });
  await docs.collection(sessionCollections.turns).createIndex({ sessionId: 1, queuedAt: 1 });
  await docs.collection(sessionCollections.turns).createIndex({ status: 1 });
  await docs.collection(sessionCollections.messages).createIndex({ sessionId: 1, seq: 1 }, { unique: true });
  // A delivery id is remembered for DELIVERY_CLAIM_SECONDS: a sender's retry within that fires once.
  await docs.collection(sessionCollections.deliveries).createIndex({ claimedAt: 1 }, {
    expireAfterSeconds: DELIVERY_CLAIM_SECONDS,
  });
}
