/**
 * The call log: every tools/call through a project's endpoints, kept 30 days, filterable.
 *
 * Source: spec/semantic-query-service.md § Resources (call log entry), § Events.
 */
import type { Filter } from '../ports/document-store.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { SemanticDeps } from './deps.ts';
import { type CallLogRecord, collections, semanticSchemaVersion } from './records.ts';
import { toolDefinitions } from './tools/tool-definitions.ts';

/**
 * Characters kept of a tool name that is none of the six tools (64): any caller can send any name, and the
 * Monitoring list shows every logged name. Source: docs/decisions.md D18 § 4.
 */
export const maxLoggedToolNameChars = 64;
/** Characters kept of a logged model name (200, the tool schemas' limit; a name failing the schema may be longer). */
export const maxLoggedModelNameChars = 200;

const knownTools: ReadonlySet<string> = new Set(toolDefinitions.map((t) => t.name));

/**
 * `text` itself when it has at most `maxChars` characters or already is such an excerpt, else its first `maxChars`
 * characters followed by `… [truncated: N characters]` (N the whole length), so a reader sees it was cut.
 */
export function markedExcerpt(text: string, maxChars: number): string {
  if (text.length <= maxChars || excerptMarker.test(text.slice(maxChars))) return text;
  return `${text.slice(0, maxChars)}… [truncated: ${text.length} characters]`;
}

/** The marker {@link markedExcerpt} appends, alone. */
const excerptMarker = /^… \[truncated: \d{1,16} characters\]$/;

/**
 * The tool name as logged: one of the six tools as it is, any other name as a {@link markedExcerpt} of
 * {@link maxLoggedToolNameChars} characters.
 *
 * Source: docs/decisions.md D18 § 4 (the call log stores only known tool names, or a bounded excerpt)
 */
export function loggedToolName(name: string): string {
  return knownTools.has(name) ? name : markedExcerpt(name, maxLoggedToolNameChars);
}

/** Records one call. */
export async function recordCall(
  deps: SemanticDeps,
  entry: Omit<CallLogRecord, '_id' | 'schemaVersion'>,
): Promise<void> {
  await deps.docs.collection<CallLogRecord>(collections.callLog).insertOne({
    _id: deps.ids.newId(),
    schemaVersion: semanticSchemaVersion,
    ...entry,
  });
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
  const filter = callFilter(projectId, query);
  const limit = Math.min(Math.max(wholeNumber(query.limit ?? defaultCallLogLimit, 'limit'), 1), maxCallLogLimit);
  const skip = Math.max(wholeNumber(query.skip ?? 0, 'skip'), 0);
  const log = deps.docs.collection<CallLogRecord>(collections.callLog);
  const entries = await log.find(filter, { sort: { at: -1 }, limit, skip });
  return entries.map(boundedNames);
}

/**
 * `entry` with its tool and model names as the writer bounds them now: entries written before the bound
 * (kept up to 30 days) may hold megabytes in either (docs/decisions.md D18 § 4).
 */
function boundedNames(entry: CallLogRecord): CallLogRecord {
  const bounded = { ...entry, tool: loggedToolName(entry.tool) };
  if (typeof entry.modelName === 'string') bounded.modelName = markedExcerpt(entry.modelName, maxLoggedModelNameChars);
  return bounded;
}

/** The document filter of a {@link CallLogQuery} (its limit and skip aside). */
function callFilter(projectId: string, query: CallLogQuery): Filter {
  const filter: Filter = { projectId };
  if (query.tool) filter.tool = query.tool;
  if (query.status) {
    if (query.status !== 'success' && query.status !== 'error') {
      throw new PlatformError('invalid_argument', 'status must be "success" or "error".', { status: 400 });
    }
    filter.status = query.status;
  }
  if (query.tokenId) filter.tokenId = query.tokenId;
  const at: Record<string, Date> = {};
  if (query.from) at.$gte = parseBound(query.from, 'from', false);
  if (query.to) at.$lte = parseBound(query.to, 'to', true);
  if (Object.keys(at).length > 0) filter.at = at;
  return filter;
}

/**
 * The tools that appear in a project's log (the filter bar offers only tools actually called).
 * Looks for one call per known tool rather than reading every entry (entries hold outputs); of
 * the calls of unknown tool names (any caller can send any name) only the newest 200 are read.
 */
export async function calledTools(deps: SemanticDeps, projectId: string): Promise<string[]> {
  const log = deps.docs.collection<CallLogRecord>(collections.callLog);
  const known = toolDefinitions.map((t) => t.name as string);
  const called = await Promise.all(
    known.map(async (tool) => ((await log.find({ projectId, tool }, { limit: 1 })).length > 0 ? [tool] : [])),
  );
  const unknown = await log.find({ projectId, tool: { $nin: known } }, {
    sort: { at: -1 },
    limit: maxUnknownToolEntries,
  });
  return [...new Set([...called.flat(), ...unknown.map((e) => loggedToolName(e.tool))])].sort();
}

/** Newest calls of unknown tool names read to list those names (a caller can send any name). */
const maxUnknownToolEntries = 200;

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;

function wholeNumber(value: number, name: string): number {
  if (!Number.isSafeInteger(value)) {
    throw new PlatformError('invalid_argument', `"${name}" must be a whole number.`, { status: 400 });
  }
  return value;
}

function parseBound(value: string, name: string, endOfDay: boolean): Date {
  const date = new Date(dayPattern.test(value) ? `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : value);
  if (Number.isNaN(date.getTime())) {
    throw new PlatformError('invalid_argument', `"${name}" must be a date like 2026-01-31 or an ISO-8601 instant.`, {
      status: 400,
    });
  }
  return date;
}

/** Query of {@link callStats}: the filters of {@link CallLogQuery} and the bucket width. */
export interface CallStatsQuery extends Omit<CallLogQuery, 'limit' | 'skip'> {
  /** Minutes per bucket, 1–10,080; default: the smallest of 1, 5, 15, 60, 360, 1440 giving at most 200 buckets. */
  bucketMinutes?: number;
}

/** One bucket of {@link callStats}: calls starting at `start` (inclusive) for `bucketMinutes`. */
export interface CallStatsBucket {
  start: Date;
  calls: number;
  errors: number;
  /** execute_query calls in the bucket, and their duration percentiles in ms (null without any). */
  queries: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
}

/** Answer of {@link callStats}. `sampled` is true when more than {@link maxStatsEntries} entries matched (the newest
 * were counted). */
export interface CallStats {
  from: Date;
  to: Date;
  bucketMinutes: number;
  buckets: CallStatsBucket[];
  sampled: boolean;
}

/** Most entries {@link callStats} reads (20,000, newest first). */
export const maxStatsEntries = 20_000;
/** Most buckets {@link callStats} answers (1,000). */
export const maxStatsBuckets = 1_000;
const autoBucketMinutes = [1, 5, 15, 60, 360, 1440];

/**
 * Calls and errors per time bucket, and the p50/p95 duration of execute_query calls, for Monitoring's plots.
 * The range is `from`–`to` (both inclusive, as in {@link listCalls}); `to` defaults to now, `from` to 24 h before `to`.
 * @throws PlatformError `invalid_argument` (400) for an unreadable date or status, `from` after `to`, a bucket
 *   width that is not a whole number from 1 to 10,080, or more than {@link maxStatsBuckets} buckets
 *
 * Source: spec/semantic-query-service.md § Resources (call log entry); docs/decisions.md D9 (Monitoring plots).
 */
export async function callStats(deps: SemanticDeps, projectId: string, query: CallStatsQuery): Promise<CallStats> {
  const to = query.to ? parseBound(query.to, 'to', true) : deps.clock.now();
  const from = query.from ? parseBound(query.from, 'from', false) : new Date(to.getTime() - 86_400_000);
  if (from.getTime() > to.getTime()) {
    throw new PlatformError('invalid_argument', '"from" is after "to": give a range whose start comes first.', {
      status: 400,
    });
  }
  const spanMinutes = (to.getTime() - from.getTime() + 1) / 60_000;
  const bucketMinutes = query.bucketMinutes === undefined
    ? autoBucketMinutes.find((m) => spanMinutes / m <= 200) ?? 10_080
    : wholeNumber(query.bucketMinutes, 'bucketMinutes');
  if (bucketMinutes < 1 || bucketMinutes > 10_080) {
    throw new PlatformError('invalid_argument', '"bucketMinutes" must be a whole number from 1 to 10080.', {
      status: 400,
    });
  }
  const bucketMs = bucketMinutes * 60_000;
  const first = Math.floor(from.getTime() / bucketMs) * bucketMs;
  const count = Math.floor(to.getTime() / bucketMs) - first / bucketMs + 1;
  if (count > maxStatsBuckets) {
    throw new PlatformError(
      'invalid_argument',
      `The range holds ${count} buckets of ${bucketMinutes} min, more than ${maxStatsBuckets}: choose wider ` +
        `buckets or a shorter range.`,
      { status: 400 },
    );
  }
  const filter = { ...callFilter(projectId, query), at: { $gte: from, $lte: to } };
  const entries = await deps.docs.collection<CallLogRecord>(collections.callLog).find(filter, {
    sort: { at: -1 },
    limit: maxStatsEntries + 1,
  });
  const sampled = entries.length > maxStatsEntries;
  const slots = Array.from({ length: count }, () => ({ calls: 0, errors: 0, durations: [] as number[] }));
  for (const entry of entries.slice(0, maxStatsEntries)) {
    const slot = slots[Math.floor((entry.at.getTime() - first) / bucketMs)];
    if (!slot) continue;
    slot.calls += 1;
    if (entry.status === 'error') slot.errors += 1;
    if (entry.tool === 'execute_query') slot.durations.push(entry.durationMs);
  }
  const buckets = slots.map((s, i) => ({
    start: new Date(first + i * bucketMs),
    calls: s.calls,
    errors: s.errors,
    queries: s.durations.length,
    latencyP50Ms: percentile(s.durations, 0.5),
    latencyP95Ms: percentile(s.durations, 0.95),
  }));
  return { from, to, bucketMinutes, buckets, sampled };
}

/** The nearest-rank percentile `p` (0–1) of `values`, or null when empty. */
export function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
