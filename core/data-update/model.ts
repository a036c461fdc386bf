/**
 * Data updates: every stored document carries `schemaVersion` for its collection's shape; a release
 * knows, per collection, the oldest version it can update from (baseline) and the version it writes
 * (current), and an ordered list of forward-only updates between them.
 *
 * Source: spec/platform-service.md § Data update at boot; § Versioning.
 */
import type { BaseDocument, DocumentStore } from '../ports/document-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { Lease } from '../ports/lease.ts';

/** A stored document as a data update sees it. */
export type StoredDocument = BaseDocument & Record<string, unknown>;

/** One forward-only data update of one collection, from one version to the next. */
export interface DataUpdate {
  /** Collection whose documents it rewrites. */
  collection: string;
  /** Version of the documents it reads. */
  from: number;
  /** Version of the documents it writes: `from + 1`. */
  to: number;
  /** Short text for the log line, e.g. `adds the startedBy field`. */
  description: string;
  /**
   * Rewrites one document (given a copy at version `from`). The result's `schemaVersion` is set to
   * `to` and its `_id` kept, whatever it says. Fields it leaves out are removed.
   */
  apply(doc: StoredDocument): StoredDocument | Promise<StoredDocument>;
}

/** The versions a release knows for one collection. */
export interface CollectionVersions {
  /** Oldest version this release has a data update from (documents below it are refused). */
  baseline: number;
  /** Version this release writes (documents above it are refused unless allowed). */
  current: number;
}

/** What a release knows about stored data. */
export interface ReleaseData {
  /** Every collection the release stores, by name. */
  collections: Record<string, CollectionVersions>;
  /** Data updates, oldest first; per collection a chain from `baseline` to `current`. */
  updates: DataUpdate[];
}

/** Ports the data update runners use. */
export interface DataUpdateDeps {
  docs: DocumentStore;
  /** The queue store's locks; the data-update lock is {@link DATA_UPDATE_LOCK}. */
  lease: Lease;
  clock: Clock;
  /** Receives each `[data-updates]` line (standard output in production). */
  logger: (line: string) => void;
  /** Waits `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
  /** This process's name as lock owner, shown to waiting processes (e.g. `api@host:pid`). */
  owner: string;
}

/** Options of the boot run. */
export interface DataUpdateOptions {
  /** PLATFORM_ALLOW_NEWER_DATA: start on documents above the current version (with a warning line). */
  allowNewerData: boolean;
  /** Lapse time of the lock, renewed while applying, in ms; default {@link DATA_UPDATE_LOCK_TTL_MS}. */
  lockTtlMs?: number;
  /** Time between two looks at the lock and the data while another process applies, in ms; default {@link
   * DATA_UPDATE_POLL_MS}. */
  pollMs?: number;
}

/** One data update applied by this process. */
export interface AppliedDataUpdate {
  collection: string;
  from: number;
  to: number;
  description: string;
  /** Documents this process rewrote. */
  documents: number;
  /** Wall time by the clock, in ms. */
  ms: number;
}

/** One data update still to apply. */
export interface PendingDataUpdate {
  collection: string;
  from: number;
  to: number;
  description: string;
  /** Documents it will rewrite: those now at `from` and those an earlier update will bring to `from`. */
  documents: number;
}

/** Name of the queue-store lock held while data updates are applied. */
export const DATA_UPDATE_LOCK = 'data-updates';
/** Default lapse time of the data-update lock, in ms; renewed every third of it while applying. */
export const DATA_UPDATE_LOCK_TTL_MS = 60_000;
/** Default time between two looks while another process applies, in ms. */
export const DATA_UPDATE_POLL_MS = 5_000;
/** Time between two waiting lines, in ms. */
export const DATA_UPDATE_WAIT_LOG_MS = 30_000;
/** Interval of the data update sweep in the dispatcher, in ms. */
export const DATA_UPDATE_SWEEP_INTERVAL_MS = 5 * 60_000;
