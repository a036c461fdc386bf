/**
 * A model's scoped views in a query instance: one transaction creates the scope schema, replaces
 * each view from its view_query and drops views no longer in the model. A failing view_query rolls
 * the whole set back and refuses the query (no stale view is served). The scope's name carries a
 * digest of the views, so a scope already materialised in this instance is current and is not
 * rebuilt; a new digest of the same family replaces (and drops) the family's previous scope, so a
 * changed view_query takes effect on the next call.
 *
 * Source: spec/semantic-query-service.md § What the service does (3), § States (view_query changed).
 */
import { type DuckDBConnection, type DuckDBInstance, VARCHAR } from '@duckdb/node-api';
import { PlatformError } from '../../ports/platform-error.ts';
import type { ScopedView } from '../../ports/query-engine.ts';
import { engineMessage, quoteIdentifier } from './sql-text.ts';

/**
 * The scopes materialised in one query instance (one per family), used by one query at a time.
 *
 * Source: spec/semantic-query-service.md § States (view_query changed)
 */
export interface ScopeViews {
  /**
   * Makes `scope` current: nothing when it already is; else materialises `views` into it and then
   * drops the previous scope of its family.
   * @returns true when the views were materialised, false when the scope was current
   * @throws PlatformError `view_materialisation_failed` (the previous scope stays current)
   */
  ensure(scope: string, views: readonly ScopedView[]): Promise<boolean>;
}

/**
 * `_scope_flights_0123456789ab` → `_scope_flights`; a name without a 12-hex digest is its own family.
 *
 * Source: spec/semantic-query-service.md § States (view_query changed)
 */
export function scopeFamily(scope: string): string {
  const match = /^(.+)_[0-9a-f]{12}$/.exec(scope);
  return match ? match[1] : scope;
}

/**
 * Creates the scope registry of `instance` (empty: the instance is new).
 *
 * Source: spec/semantic-query-service.md § States (view_query changed)
 */
export function createScopeViews(instance: DuckDBInstance): ScopeViews {
  const current = new Map<string, string>();
  return {
    async ensure(scope, views) {
      const family = scopeFamily(scope);
      const previous = current.get(family);
      if (previous === scope) return false;
      await materialiseViews(instance, scope, views);
      current.set(family, scope);
      if (previous !== undefined) await dropScope(instance, previous);
      return true;
    },
  };
}

async function dropScope(instance: DuckDBInstance, scope: string): Promise<void> {
  const connection = await instance.connect();
  try {
    await connection.run(`DROP SCHEMA IF EXISTS ${quoteIdentifier(scope)} CASCADE`);
  } finally {
    connection.closeSync();
  }
}

/**
 * Creates `scope` if needed and replaces its views with `views` (CREATE OR REPLACE VIEW), in one
 * transaction on a connection of its own.
 * @throws PlatformError `view_materialisation_failed` (422): `Dataset "<name>" could not be
 *   materialised from its view_query: <engine message>`
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export async function materialiseViews(
  instance: DuckDBInstance,
  scope: string,
  views: readonly ScopedView[],
): Promise<void> {
  const connection = await instance.connect();
  try {
    await connection.run('BEGIN TRANSACTION');
    try {
      await connection.run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdentifier(scope)}`);
      for (const view of views) await replaceView(connection, scope, view);
      await dropStaleViews(connection, scope, views);
      await connection.run('COMMIT');
    } catch (error) {
      await connection.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
  } finally {
    connection.closeSync();
  }
}

/** One CREATE OR REPLACE VIEW, prepared so a view_query can never smuggle in a second statement. */
async function replaceView(connection: DuckDBConnection, scope: string, view: ScopedView): Promise<void> {
  const sql = `CREATE OR REPLACE VIEW ${quoteIdentifier(scope)}.${quoteIdentifier(view.name)} AS ${view.sql}`;
  try {
    const prepared = await connection.prepare(sql);
    await prepared.run();
  } catch (error) {
    throw new PlatformError(
      'view_materialisation_failed',
      `Dataset "${view.name}" could not be materialised from its view_query: ${engineMessage(error)}`,
      { status: 422, cause: error },
    );
  }
}

async function dropStaleViews(
  connection: DuckDBConnection,
  scope: string,
  views: readonly ScopedView[],
): Promise<void> {
  const reader = await connection.runAndReadAll(
    'SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = $1 AND NOT ' +
      'internal',
    [scope],
    [VARCHAR],
  );
  const wanted = new Set(views.map((view) => view.name.toLowerCase()));
  for (const [name] of reader.getRows() as [string][]) {
    if (!wanted.has(name.toLowerCase())) {
      await connection.run(`DROP VIEW ${quoteIdentifier(scope)}.${quoteIdentifier(name)}`);
    }
  }
}
