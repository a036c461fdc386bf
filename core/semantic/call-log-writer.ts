/**
 * The call log's writer: a tools/call is recorded after its answer has gone out (the write is off
 * the response path), with every field a caller chooses bounded (input and output to an excerpt, an unknown
 * tool name and the model name to a marked excerpt), and every pending write is awaited on a clean stop
 * (`drain`), so no entry is lost.
 *
 * Source: spec/semantic-query-service.md § Events, § Resources (call log entry).
 */
import { loggedToolName, markedExcerpt, maxLoggedModelNameChars, recordCall } from './call-log.ts';
import type { SemanticDeps } from './deps.ts';
import type { CallLogRecord } from './records.ts';

/**
 * Characters of JSON kept per logged input and per logged output (65,536). A larger value is
 * stored as {@link LogExcerpt}: the first characters of its JSON text and its full length.
 *
 * Source: spec/semantic-query-service.md § Resources (call log entry)
 */
export const maxLoggedChars = 65_536;

/**
 * What the call log keeps of an input or output larger than {@link maxLoggedChars}.
 *
 * Source: spec/semantic-query-service.md § Resources (call log entry)
 */
export interface LogExcerpt {
  /** The first `maxLoggedChars` characters of the value's JSON text. */
  excerpt: string;
  /** Always true: the value was cut. */
  truncated: true;
  /** Length of the whole JSON text, in characters. */
  originalChars: number;
}

export { loggedToolName, markedExcerpt, maxLoggedModelNameChars, maxLoggedToolNameChars } from './call-log.ts';

/** An entry as {@link CallLogWriter.record} takes it. */
export type CallLogEntry = Omit<CallLogRecord, '_id' | 'schemaVersion'>;

/**
 * Records calls off the response path.
 *
 * Source: spec/semantic-query-service.md § Events
 */
export interface CallLogWriter {
  /** Starts writing `entry` (bounded) and returns at once; a failed write goes to `onError`. */
  record(entry: CallLogEntry): void;
  /** Resolves when every write started so far has settled (call before closing the stores). */
  drain(): Promise<void>;
  /** Writes started and not yet settled. */
  pendingCount(): number;
}

/**
 * Options of {@link createCallLogWriter}.
 *
 * Source: spec/semantic-query-service.md § Events
 */
export interface CallLogWriterOptions {
  /** Told of a write that failed (the caller logs it; the entry is then lost). */
  onError(error: unknown, entry: CallLogEntry): void;
  /**
   * Runs `work` later, after the answer has gone out (the bin passes its runtime's `setImmediate`);
   * bounding an entry serialises its output, which is not the caller's time to pay. Default: at once.
   */
  defer?(work: () => void): void;
}

/**
 * Creates a writer over the document store.
 * @param deps - the stores (`docs`) and `ids`
 *
 * Source: spec/semantic-query-service.md § Events
 */
export function createCallLogWriter(deps: SemanticDeps, options: CallLogWriterOptions): CallLogWriter {
  const pending = new Set<Promise<void>>();
  const defer = options.defer ?? ((work: () => void) => work());
  return {
    record(entry) {
      const write: Promise<void> = new Promise<CallLogEntry>((resolve) => defer(() => resolve(boundEntry(entry))))
        .then(async (bounded) => {
          try {
            await recordCall(deps, bounded);
          } catch (error) {
            options.onError(error, bounded);
          }
        })
        .finally(() => pending.delete(write));
      pending.add(write);
    },
    async drain() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    pendingCount: () => pending.size,
  };
}

/**
 * `value` itself when its JSON text has at most `maxChars` characters, else a {@link LogExcerpt}.
 * @param maxChars - default {@link maxLoggedChars}
 *
 * Source: spec/semantic-query-service.md § Resources (call log entry)
 */
export function boundForLog<T>(value: T, maxChars = maxLoggedChars): T | LogExcerpt {
  const text = JSON.stringify(value) ?? 'null';
  if (text.length <= maxChars) return value;
  return { excerpt: text.slice(0, maxChars), truncated: true, originalChars: text.length };
}

/** `entry` with every caller-chosen field bounded: tool name, model name, input and output. */
function boundEntry(entry: CallLogEntry): CallLogEntry {
  const bounded: CallLogEntry = {
    ...entry,
    tool: loggedToolName(entry.tool),
    input: boundForLog(entry.input),
    output: boundForLog(entry.output),
  };
  if (entry.modelName !== undefined) bounded.modelName = markedExcerpt(entry.modelName, maxLoggedModelNameChars);
  return bounded;
}
