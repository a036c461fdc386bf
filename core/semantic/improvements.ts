/**
 * Improvement requests agents submit about a model, and stored queries they can replay.
 *
 * Source: ../shared/spec/semantic-query-service.md § Tools (request_improvement, execute_stored_query).
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { collections, semanticSchemaVersion, type ImprovementRecord, type StoredQueryRecord } from './records.ts';

/** Stores an improvement request. Lengths are checked by the tool's input schema (200 / 2,000). */
export async function submitImprovement(deps: SemanticDeps, input: Omit<ImprovementRecord, '_id' | 'createdAt' | 'schemaVersion'>): Promise<ImprovementRecord> {
  const record: ImprovementRecord = { _id: deps.ids.newId(), schemaVersion: semanticSchemaVersion, createdAt: deps.clock.now(), ...input };
  await deps.docs.collection<ImprovementRecord>(collections.improvements).insertOne(record);
  return record;
}

/** A project's improvement requests, newest first. */
export async function listImprovements(deps: SemanticDeps, projectId: string): Promise<ImprovementRecord[]> {
  return deps.docs.collection<ImprovementRecord>(collections.improvements).find({ projectId }, { sort: { createdAt: -1 } });
}

/** Stores a query for replay; returns its storedQueryId. */
export async function storeQuery(deps: SemanticDeps, input: Omit<StoredQueryRecord, '_id' | 'createdAt' | 'schemaVersion'>): Promise<string> {
  const record: StoredQueryRecord = { _id: deps.ids.newId(), schemaVersion: semanticSchemaVersion, createdAt: deps.clock.now(), ...input };
  await deps.docs.collection<StoredQueryRecord>(collections.storedQueries).insertOne(record);
  return record._id;
}

/**
 * The stored query `id` of the project, if its model is within `scope`.
 * @throws PlatformError `not_found` — the same message whether the id is unknown, of another project
 *   or outside the token's scope, so nothing outside the scope is revealed
 */
export async function getStoredQuery(deps: SemanticDeps, projectId: string, id: string, scope: string[]): Promise<StoredQueryRecord> {
  const record = await deps.docs.collection<StoredQueryRecord>(collections.storedQueries).findOne({ _id: id, projectId });
  if (!record || !scope.includes(record.modelName)) {
    throw new PlatformError('not_found', `No stored query "${id}" is available to this token: run execute_query again to get a new storedQueryId.`);
  }
  return record;
}
