/**
 * The data update `sessions` 1→2: a chat belongs to the member who started it (`startedBy`). Releases before it
 * never wrote the field, so every member's chat read as a session of no member, visible to the whole organization.
 * The member is known from the AG-UI thread the chat was opened on: a thread issued to `member:<subject>`. A root
 * session whose threads were all issued to one member becomes theirs; any other session (no thread, threads of
 * endpoint callers, or of several members) is left belonging to no member, as it was shown before. Child sessions
 * follow their root (core/session/sessions.ts `ownerOf`) and are not rewritten.
 *
 * Source: docs/decisions.md D17 § 2 (chats are personal; startedBy was read but never written);
 * spec/platform-service.md § Session
 * facts named, § Data update at boot.
 */
import type { DataUpdate, StoredDocument } from '../data-update/index.ts';
import type { DocumentStore } from '../ports/document-store.ts';
import { sessionCollections } from '../session/model.ts';
import { type AguiThreadRecord, aguiThreadsCollection } from '../connection/agui-threads.ts';

/** The member a stored chat's threads name, when exactly one member and nobody else holds one. */
export async function chatOwnerOf(docs: DocumentStore, sessionId: string): Promise<string | undefined> {
  const threads = await docs.collection<AguiThreadRecord>(aguiThreadsCollection).find({ sessionId });
  const owners = new Set(threads.map((t) => t.owner));
  const [only] = [...owners];
  return owners.size === 1 && only?.startsWith('member:') ? only.slice('member:'.length) || undefined : undefined;
}

/**
 * The update; `world.docs` is read for the threads of each session rewritten.
 * @param world - the stores; without them (a release only listed) applying throws
 */
export function chatOwnerUpdate(world?: { docs: DocumentStore }): DataUpdate {
  return {
    collection: sessionCollections.sessions,
    from: 1,
    to: 2,
    description: 'writes startedBy of the chats members started (from their AG-UI threads)',
    apply: async (doc: StoredDocument) => {
      if (typeof doc.startedBy === 'string' || doc.depth !== 0) return doc;
      if (!world) throw new Error("this update needs the document store to read the chats' AG-UI threads");
      const owner = await chatOwnerOf(world.docs, doc._id);
      return owner === undefined ? doc : { ...doc, startedBy: owner };
    },
  };
}
