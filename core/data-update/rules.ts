/**
 * Pure rules of data updates: the shape a release's update list must have, which updates are
 * pending, the refusals to start on unreadable data, and the `[data-updates]` lines.
 *
 * Source: spec/platform-service.md § Data update at boot; § Errors (data update refusals); § Operational log lines
 * ([data-updates]).
 */
import { PlatformError } from '../ports/platform-error.ts';
import { type CollectionCensus, documentsUpTo } from './census.ts';
import type { AppliedDataUpdate, DataUpdate, PendingDataUpdate, ReleaseData } from './model.ts';
import { quarantineCommand } from './quarantine.ts';

/**
 * Checks that, per collection, the release's updates form one chain of single steps from its
 * baseline to its current version, in list order, and name only collections the release knows.
 * @throws PlatformError `invalid_release` naming the collection and step (a defect of the release)
 */
export function checkRelease(release: ReleaseData): void {
  const fail = (why: string) =>
    new PlatformError('invalid_release', `Data updates of this release are inconsistent: ${why}.`);
  const next = new Map<string, number>();
  for (const [name, v] of Object.entries(release.collections)) {
    if (!Number.isInteger(v.baseline) || !Number.isInteger(v.current) || v.baseline < 1 || v.current < v.baseline) {
      throw fail(`collection ${name} has baseline ${v.baseline} and current ${v.current}`);
    }
    next.set(name, v.baseline);
  }
  for (const u of release.updates) {
    const expected = next.get(u.collection);
    if (expected === undefined) throw fail(`update ${u.from}→${u.to} names unknown collection ${u.collection}`);
    if (u.from !== expected || u.to !== u.from + 1) {
      throw fail(`collection ${u.collection} needs an update ${expected}→${expected + 1} next, not ${u.from}→${u.to}`);
    }
    next.set(u.collection, u.to);
  }
  for (const [name, v] of Object.entries(release.collections)) {
    if (next.get(name) !== v.current) {
      throw fail(`collection ${name} has updates up to ${next.get(name)} but its current version is ${v.current}`);
    }
  }
}

/**
 * The updates that still have documents to rewrite, oldest first (release order).
 * Source: spec/platform-service.md § Data update at boot (step 4: oldest first).
 */
export function pendingUpdates(census: CollectionCensus[], release: ReleaseData): PendingUpdate[] {
  const byName = new Map(census.map((c) => [c.collection, c]));
  return release.updates.flatMap((update) => {
    const c = byName.get(update.collection);
    const documents = c ? documentsUpTo(c, update.from) : 0;
    return documents > 0 ? [{ update, documents }] : [];
  });
}

/** A data update with documents left to rewrite. */
export interface PendingUpdate {
  update: DataUpdate;
  /** Documents it will rewrite (see {@link PendingDataUpdate.documents}). */
  documents: number;
}

/** The pending updates as plain records for listing. */
export function describePending(pending: PendingUpdate[]): PendingDataUpdate[] {
  return pending.map(({ update: { collection, from, to, description }, documents }) => ({
    collection,
    from,
    to,
    description,
    documents,
  }));
}

/**
 * The refusal lines for unreadable data: documents without a version and below the baseline always;
 * documents above the current version unless `allowNewerData`.
 * @returns lines beginning `[data-updates] refusing to start: `, empty when the data is readable
 *
 * Source: spec/platform-service.md § Errors (data update refusals).
 */
export function refusalLines(census: CollectionCensus[], allowNewerData: boolean): string[] {
  const lines: string[] = [];
  const start = '[data-updates] refusing to start:';
  for (const c of census) {
    if (c.unversioned.count > 0) {
      const ids = c.unversioned.sampleIds.length > 0 ? ` (for example _id ${c.unversioned.sampleIds.join(', ')})` : '';
      lines.push(
        `${start} collection ${c.collection} holds ${c.unversioned.count} documents without a schemaVersion${ids}, ` +
          `written around the platform; find and correct them (filter {"schemaVersion": {"$not": {"$type": ` +
          `"number"}}}), or set each aside: ${quarantineCommand(c.collection, c.unversioned.sampleIds[0] ?? '<id>')}` +
          '; no version is guessed',
      );
    }
    if (c.below.count > 0) {
      lines.push(
        `${start} collection ${c.collection} holds ${c.below.count} documents ` +
          `at version ${c.below.lowest ?? '?'} (lowest), ` +
          `below version ${c.baseline}, the oldest this release can update; the ` +
          `database is older than any data update of this release: reset it, or ` +
          `convert it with the one-off tool the release named`,
      );
    }
    if (c.above.count > 0 && !allowNewerData) {
      lines.push(
        `${start} collection ${c.collection} holds ${c.above.count} documents ` +
          `at version ${c.above.highest ?? '?'} (highest), ` +
          `above version ${c.current}, the newest this release knows; an older ` +
          `release started on data a newer release updated: roll forward to the ` +
          `newer release, restore the backup taken before its update, or roll ` +
          `back with PLATFORM_ALLOW_NEWER_DATA=true if the newer release says ` + `its update is readable by this one`,
      );
    }
  }
  return lines;
}

/**
 * Throws the refusal for unreadable data.
 * @throws PlatformError `data_refused` whose message is the refusal lines, the first line first
 */
export function assertReadable(census: CollectionCensus[], allowNewerData: boolean): void {
  const lines = refusalLines(census, allowNewerData);
  if (lines.length > 0) throw new PlatformError('data_refused', lines.join('\n'));
}

/**
 * The warning line written on every boot while PLATFORM_ALLOW_NEWER_DATA is set.
 * Source: spec/platform-service.md § Versioning (every boot warns while it is set).
 */
export function newerDataWarning(census: CollectionCensus[]): string {
  const newer = census.filter((c) => c.above.count > 0).map((c) =>
    `collection ${c.collection}: ${c.above.count} documents up to version ${
      c.above.highest ?? '?'
    }, this release knows ${c.current}`
  );
  const found = newer.length > 0
    ? `starting on documents above the versions this release knows (${newer.join('; ')})`
    : 'no documents are above the versions this release knows';
  return `[data-updates] warning: PLATFORM_ALLOW_NEWER_DATA=true: ${found}; safe only when the newer release says ` +
    `its update is readable by this one; remove the variable after rolling forward`;
}

/** The line for one data update applied. */
export function appliedLine(u: AppliedDataUpdate): string {
  return `[data-updates] ${u.collection} ${u.from}→${u.to} ${u.description}: ${u.documents} documents in ${u.ms} ms`;
}

/** The line a process writes while another holds the data-update lock. */
export function waitingLine(holder: string): string {
  return `[data-updates] waiting for another process to finish data updates (held by ${holder})`;
}
