/**
 * The call log: every tools/call through a project's endpoints, kept 30 days, filterable.
 *
 * Source: ../shared/spec/semantic-query-service.md § Resources (call log entry), § Events.
 */
import type { Filter } from '../ports/document-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { collections, semanticSchemaVersion, type CallLogRecord } from './records.ts';
import { toolDefinitions } from './tools/tool-definitions.ts';

/** Records one call. */
export async function recordCall(deps: SemanticDeps, entry: Omit<CallLogRecord, '_id' | 'schemaVersion'>): Promise<void> {
  await deps.docs.collection<CallLogRecord>(collections.callLog).insertOne({ _id: deps.ids.newId(), schemaVersion: semanticSchemaVersion, ...entry });
}

/** Filters of {@link listCalls}; every one optional. */
export interface CallLogQuery {
  tool?: string;
  status?: 'success' | 'error';
  tokenId?: string;
  /** Inclusive start date `YYYY-MM-DD` (UTC day) or ISO instant. */
  from?: string;
  /** Inclusive end date `YYYY-MM-DD` (the whole UTC day counts) or ISO instant. */
  to?: string;
  /** Newest first: a whole number from 1 to {@link maxCallLogLimit}; default {@link defaultCallLogLimit}. */
  limit?: number;
  /** Entries skipped first: a whole number, default 0. */
  skip?: number;
}

/** Entries {@link listCalls} answers when no limit is given (50). */
export const defaultCallLogLimit = 50;
/** Most entries {@link listCalls} answers, whatever the limit asked (500). */
export const maxCallLogLimit = 500;

/**
 * Lists call log entries of a project, newest first, at most {@link maxCallLogLimit}.
 * @throws PlatformError `invalid_argument` (400) for an unreadable date or status, or a limit or skip that
 *   is not a whole number (NaN included: never read as "no limit")
 */
export async function listCalls(deps: SemanticDeps, projectId: string, query: CallLogQuery): Promise<CallLogRecord[]> {
  const filter: Filter = { projectId };
  if (query.tool) filter.tool = query.tool;
  if (query.status) {
    if (query.status !== 'success' && query.status !== 'error') throw new PlatformError('invalid_argument', 'status must be "success" or "error".', { status: 400 });
    filter.status = query.status;
  }
  if (query.tokenId) filter.tokenId = query.tokenId;
  const at: Record<string, Date> = {};
  if (query.from) at.$gte = parseBound(query.from, 'from', false);
  if (query.to) at.$lte = parseBound(query.to, 'to', true);
  if (Object.keys(at).length > 0) filter.at = at;
  const limit = Math.min(Math.max(wholeNumber(query.limit ?? defaultCallLogLimit, 'limit'), 1), maxCallLogLimit);
  return deps.docs.collection<CallLogRecord>(collections.callLog).find(filter, { sort: { at: -1 }, limit, skip: Math.max(wholeNumber(query.skip ?? 0, 'skip'), 0) });
}

/**
 * The tools that appear in a project's log (the filter bar offers only tools actually called).
 * Looks for one call per known tool rather than reading every entry (entries hold outputs); of
 * the calls of unknown tool names (any caller can send any name) only the newest 200 are read.
 */
export async function calledTools(deps: SemanticDeps, projectId: string): Promise<string[]> {
  const log = deps.docs.collection<CallLogRecord>(collections.callLog);
  const known = toolDefinitions.map((t) => t.name as string);
  const called = await Promise.all(known.map(async (tool) => ((await log.find({ projectId, tool }, { limit: 1 })).length > 0 ? [tool] : [])));
  const unknown = await log.find({ projectId, tool: { $nin: known } }, { sort: { at: -1 }, limit: maxUnknownToolEntries });
  return [...new Set([...called.flat(), ...unknown.map((e) => e.tool)])].sort();
}

/** Newest calls of unknown tool names read to list those names (a caller can send any name). */
const maxUnknownToolEntries = 200;

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

function wholeNumber(value: number, name: string): number {
  if (!Number.isSafeInteger(value)) throw new PlatformError('invalid_argument', `"${name}" must be a whole number.`, { status: 400 });
  return value;
}

function parseBound(value: string, name: string, endOfDay: boolean): Date {
  const date = new Date(dayPattern.test(value) ? `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : value);
  if (Number.isNaN(date.getTime())) throw new PlatformError('invalid_argument', `"${name}" must be a date like 2026-01-31 or an ISO-8601 instant.`, { status: 400 });
  return date;
}
