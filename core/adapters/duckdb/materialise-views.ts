/**
 * Re-materialises a model's scoped views on every execute_query call: one transaction creates the
 * scope schema, replaces each view from its view_query and drops views no longer in the model.
 * A failing view_query rolls the whole set back and refuses the query (no stale view is served).
 *
 * Source: ../shared/spec/semantic-query-service.md § What the service does (3), § States (view_query changed).
 */
import { VARCHAR, type DuckDBConnection, type DuckDBInstance } from '@duckdb/node-api';
import { PlatformError } from '../../ports/platform-error.ts';
import type { ScopedView } from '../../ports/query-engine.ts';
import { engineMessage, quoteIdentifier } from './sql-text.ts';

/**
 * Creates `scope` if needed and replaces its views with `views` (CREATE OR REPLACE VIEW), in one
 * transaction on a connection of its own.
 * @throws PlatformError `view_materialisation_failed` (422): `Dataset "<name>" could not be
 *   materialised from its view_query: <engine message>`
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export async function materialiseViews(instance: DuckDBInstance, scope: string, views: readonly ScopedView[]): Promise<void> {
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

async function dropStaleViews(connection: DuckDBConnection, scope: string, views: readonly ScopedView[]): Promise<void> {
  const reader = await connection.runAndReadAll(
    'SELECT view_name FROM duckdb_views() WHERE database_name = current_database() AND schema_name = $1 AND NOT internal',
    [scope],
    [VARCHAR],
  );
  const wanted = new Set(views.map((view) => view.name.toLowerCase()));
  for (const [name] of reader.getRows() as [string][]) {
    if (!wanted.has(name.toLowerCase())) await connection.run(`DROP VIEW ${quoteIdentifier(scope)}.${quoteIdentifier(name)}`);
  }
}
