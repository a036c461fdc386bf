/**
 * Applies one data update document by document: each document is rewritten by one update whose filter
 * names its old version, so a process killed mid-update leaves every document whole at either version
 * and the next process continues with the documents not yet rewritten.
 *
 * Source: spec/platform-service.md § Data update at boot (a process killed mid-update leaves nothing broken).
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentCollection, DocumentStore, Update } from '../ports/document-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { AppliedDataUpdate, DataUpdate, StoredDocument } from './model.ts';

/** Documents read per batch. */
const BATCH_SIZE = 100;

/** What {@link applyDataUpdate} needs. */
export interface ApplyContext {
  docs: DocumentStore;
  clock: Clock;
  /** Called before each document; false when the lock was lost (the update stops there). */
  keepLock(): Promise<boolean>;
}

/**
 * Rewrites every document of `update.collection` at version `update.from`, in `_id` order, each with
 * `updateOne({ _id, schemaVersion: from }, …)`; a document another process rewrote meanwhile is skipped.
 * @returns the update applied (documents this call rewrote, time by the clock) and whether the lock was lost
 * @throws PlatformError `data_update_failed` naming the document when `apply` throws or returns no document
 */
export async function applyDataUpdate(
  ctx: ApplyContext,
  update: DataUpdate,
): Promise<{ applied: AppliedDataUpdate; lockLost: boolean }> {
  const items = ctx.docs.collection<StoredDocument>(update.collection);
  const startedMs = ctx.clock.now().getTime();
  let documents = 0;
  let lockLost = false;
  for (
    let batch = await nextBatch(items, update);
    batch.length > 0 && !lockLost;
    batch = await nextBatch(items, update)
  ) {
    for (const doc of batch) {
      if (!(await ctx.keepLock())) {
        lockLost = true;
        break;
      }
      if (await rewriteDocument(items, update, doc)) documents += 1;
    }
  }
  const { collection, from, to, description } = update;
  return {
    applied: { collection, from, to, description, documents, ms: ctx.clock.now().getTime() - startedMs },
    lockLost,
  };
}

function nextBatch(items: DocumentCollection<StoredDocument>, update: DataUpdate): Promise<StoredDocument[]> {
  return items.find({ schemaVersion: update.from }, { sort: { _id: 1 }, limit: BATCH_SIZE });
}

/** Rewrites one document unless it left version `from` meanwhile. @returns true when this call rewrote it */
async function rewriteDocument(
  items: DocumentCollection<StoredDocument>,
  update: DataUpdate,
  doc: StoredDocument,
): Promise<boolean> {
  let next: StoredDocument;
  try {
    next = await update.apply(structuredClone(doc));
    if (next === null || typeof next !== 'object' || Array.isArray(next)) throw new Error('apply returned no document');
  } catch (error) {
    throw failure(update, doc._id, error instanceof Error ? error.message : String(error), error);
  }
  const result = await items.updateOne({ _id: doc._id, schemaVersion: update.from }, replacement(update, doc, next));
  return result.matched === 1;
}

/** The `$set`/`$unset` update that turns `old` into `next` at version `update.to`. */
function replacement(update: DataUpdate, old: StoredDocument, next: StoredDocument): Update {
  const $set: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(next)) if (key !== '_id' && value !== undefined) $set[key] = value;
  $set.schemaVersion = update.to;
  const $unset: Record<string, true> = {};
  for (const key of Object.keys(old)) if (key !== '_id' && !(key in $set)) $unset[key] = true;
  for (const key of [...Object.keys($set), ...Object.keys($unset)]) {
    if (key.includes('.') || key.startsWith('$')) {
      throw failure(update, old._id, `field name ${JSON.stringify(key)} cannot be written field by field`);
    }
  }
  return Object.keys($unset).length > 0 ? { $set, $unset } : { $set };
}

function failure(update: DataUpdate, id: string, why: string, cause?: unknown): PlatformError {
  return new PlatformError(
    'data_update_failed',
    `[data-updates] ${update.collection} ${update.from}→${update.to} ${update.description} failed on document ` +
      `${id}: ${why}`,
    { cause },
  );
}
