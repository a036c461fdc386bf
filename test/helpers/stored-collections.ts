/**
 * The collections a product run stored in its embedded document store that the release does not list
 * (core/boot/platform-release.ts): each one would miss its schemaVersion index at boot and its data updates.
 */
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { platformRelease } from '../../core/boot/platform-release.ts';

/** Names of the collections stored under `dataDir` (docdb.sqlite) that platformRelease() does not list. */
export function unlistedCollections(dataDir: string): string[] {
  const db = new DatabaseSync(join(dataDir, 'docdb.sqlite'), { readOnly: true });
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'c\\_%' ESCAPE '\\'").all() as { name: string }[];
    const listed = new Set(Object.keys(platformRelease().collections));
    return tables.map((t) => t.name.slice(2)).filter((name) => !listed.has(name)).sort();
  } finally {
    db.close();
  }
}
