/**
 * Data updates at boot, the data update sweep and the pending list (public edge of `core/data-update`).
 *
 * Source: spec/platform-service.md § Data update at boot; § Versioning.
 */
export {
  type AppliedDataUpdate,
  type CollectionVersions,
  DATA_UPDATE_LOCK,
  DATA_UPDATE_LOCK_TTL_MS,
  DATA_UPDATE_POLL_MS,
  DATA_UPDATE_SWEEP_INTERVAL_MS,
  DATA_UPDATE_WAIT_LOG_MS,
  type DataUpdate,
  type DataUpdateDeps,
  type DataUpdateOptions,
  type PendingDataUpdate,
  type ReleaseData,
  type StoredDocument,
} from './model.ts';
export { listPendingDataUpdates, runDataUpdatesAtBoot, runDataUpdateSweep } from './run-data-updates.ts';
export { appliedLine, refusalLines, waitingLine } from './rules.ts';
export {
  QUARANTINE_COLLECTION,
  quarantineCommand,
  type QuarantinedDocument,
  quarantineDocument,
  quarantineSchemaVersion,
} from './quarantine.ts';
