/**
 * The view barrier by construction: for each (data build, scope) a DuckDB file
 * `<cacheDir>/<data dir>/scopes/<scope>.duckdb` holds one table per dataset with exactly the rows and
 * columns its view_query returns, so rows a view hides are physically absent from what a query sees.
 * No optimizer setting has to hold: a caller's predicate can only ever run on rows the view returned
 * (docs/decisions.md D18 § 1: DuckDB pushes a caller's filter into the base scan beside the view's own filter).
 * ENUM columns (also inside LIST, ARRAY, STRUCT, MAP and UNION) are stored as VARCHAR, so a type
 * never names a value that only a hidden row holds.
 *
 * scope-tables.ts writes the file (data attached READ_ONLY, external access off and configuration
 * locked before any view_query runs, each view_query one prepared statement); here it is built under
 * a temporary name and renamed into place (atomic), in the build slots (build-slots.ts: a share per project and per
 * organization, a bounded wait, interrupted once no caller waits). A view_query that cannot be materialised is
 * remembered as long as the scope (its views and data) is unchanged, at most {@link failuresKept} of them. A new scope
 * of a family (see {@link scopeFamily}) retires the family's older files once no call in this process
 * still holds a lease on them; a query process that has one open keeps reading it (Linux keeps
 * unlinked files) and is never handed the new scope, because the pool keys processes by data key and
 * scope.
 *
 * Source: spec/semantic-query-service.md § What the service does (3),
 * § States (view_query changed).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Logger } from '../../ports/logger.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import type { ScopedView } from '../../ports/query-engine.ts';
import { type BuildLimits, type BuildShare, createBuildSlots } from './build-slots.ts';
import { cacheDirectoryName } from './data-build.ts';
import { scopeFamily } from './materialise-views.ts';
import { writeScopeTables } from './scope-tables.ts';

/** Milliseconds one scope build may take before it is interrupted (default of `buildTimeoutMs`). */
export const defaultScopeBuildTimeoutMs = 120_000;

/** Refused builds remembered at most (the oldest is forgotten first): each until its scope changes. */
export const failuresKept = 1_000;

/**
 * Dependencies of {@link createScopeBuilder}.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export interface ScopeBuilderDeps {
  /** Directory holding `<data dir>/scopes/<scope>.duckdb` (the data builder's cache directory). */
  cacheDir: string;
  logger: Logger;
  /** Milliseconds a build may take; then it is interrupted and refused (default 120,000). */
  buildTimeoutMs?: number;
  /** Builds at once, shares per project and organization, and waits (defaults: build-slots.ts defaultBuildLimits). */
  limits?: Partial<BuildLimits>;
}

/** What a scope file is built from. */
export interface ScopeFileRequest {
  /** The DataSet key (names the data directory). */
  dataKey: string;
  /** The data database built for `dataKey` (attached read-only while building). */
  dataFile: string;
  /** Scope name, `<family>_<12 hex digest>`; an unchanged name promises unchanged views. */
  scope: string;
  views: readonly ScopedView[];
  /** Whose build it is: builds are shared per project and organization (absent: no share). */
  share?: BuildShare;
  /** Aborted when the caller has gone: it stops waiting, and the build stops once nobody waits for it. */
  signal?: AbortSignal;
}

/**
 * Gives the materialised file of a scope, building it on first use.
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export interface ScopeBuilder {
  /**
   * A lease on the scope's file: the absolute path of `<cacheDir>/<data dir>/scopes/<scope>.duckdb`,
   * whose `main` schema holds one table per view, named after the dataset. A newer scope of the
   * family does not remove the file while it is leased; call `release` once a process has opened it.
   * @throws PlatformError `view_materialisation_failed` (422) naming the dataset and the engine's
   *   error class only (the engine's text may quote a hidden row; it is logged server-side), or
   *   saying the build passed its time limit (remembered: the same scope is refused again without a build);
   *   `query_busy` (503) when the build did not start within the slots' wait, `query_cancelled` (499) once
   *   `request.signal` aborts
   */
  scopeFile(request: ScopeFileRequest): Promise<ScopeLease>;
  /** Queues the scope's build ahead of any query, unless it is built or refused already; never throws. */
  prepare(request: Omit<ScopeFileRequest, 'signal'>): void;
}

/** A scope file that stays in place until `release` (once; resolves when a retired file is gone). */
export interface ScopeLease {
  path: string;
  release(): Promise<void>;
}

/**
 * Creates a builder. Concurrent builds of one file in this process are one build; another process
 * building the same file is harmless (both rename complete files into place).
 *
 * Source: spec/semantic-query-service.md § What the service does
 */
export function createScopeBuilder(deps: ScopeBuilderDeps): ScopeBuilder {
  const failed = new Map<string, unknown>();
  const slots = createBuildSlots({ limits: deps.limits, logger: deps.logger });
  const files = createLeases();
  const buildRequest = (request: ScopeFileRequest, target: string) => ({
    key: target,
    share: request.share,
    task: (signal: AbortSignal) =>
      buildScope(deps, { ...request, signal }, target, files).catch((error: unknown) => {
        if (error instanceof PlatformError && error.code === 'view_materialisation_failed') {
          remember(failed, target, error);
        }
        throw error;
      }),
  });
  return {
    async scopeFile(request) {
      const target = targetOf(deps, request);
      const release = files.take(target);
      try {
        if (existsSync(target)) return { path: target, release };
        if (failed.has(target)) throw failed.get(target);
        return { path: await slots.wait(buildRequest(request, target), request.signal), release };
      } catch (error) {
        await release();
        throw error;
      }
    },
    prepare(request) {
      const target = targetOf(deps, request);
      if (!existsSync(target) && !failed.has(target)) slots.prepare(buildRequest(request, target));
    },
  };
}

/** `<cacheDir>/<data dir>/scopes/<scope>.duckdb`. */
function targetOf(deps: ScopeBuilderDeps, request: Pick<ScopeFileRequest, 'dataKey' | 'scope'>): string {
  const directory = join(deps.cacheDir, cacheDirectoryName(request.dataKey), 'scopes');
  return join(directory, `${cacheDirectoryName(request.scope)}.duckdb`);
}

/** Remembers `target`'s refusal (most recent last), forgetting the oldest past {@link failuresKept}. */
function remember(failed: Map<string, unknown>, target: string, error: unknown): void {
  failed.delete(target);
  if (failed.size >= failuresKept) failed.delete(failed.keys().next().value as string);
  failed.set(target, error);
}

type Leases = ReturnType<typeof createLeases>;

/** Leased files of this process; a superseded file is removed once its last lease ends. */
function createLeases() {
  const counts = new Map<string, number>();
  const superseded = new Set<string>();
  return {
    take(path: string): () => Promise<void> {
      counts.set(path, (counts.get(path) ?? 0) + 1);
      let released = false;
      return async () => {
        if (released) return;
        released = true;
        const left = (counts.get(path) ?? 1) - 1;
        if (left > 0) return void counts.set(path, left);
        counts.delete(path);
        if (superseded.delete(path)) await rm(path, { force: true }).catch(() => undefined);
      };
    },
    /** Removes `path` now, or when its last lease ends. */
    retire(path: string): Promise<void> {
      if (!counts.has(path)) return rm(path, { force: true });
      superseded.add(path);
      return Promise.resolve();
    },
  };
}

async function buildScope(
  deps: ScopeBuilderDeps,
  request: ScopeFileRequest,
  target: string,
  files: Leases,
): Promise<string> {
  const directory = dirname(target);
  await mkdir(directory, { recursive: true });
  const temporary = `${target}.${randomUUID()}.tmp`;
  const started = performance.now();
  try {
    await writeScopeTables(temporary, request, deps.buildTimeoutMs ?? defaultScopeBuildTimeoutMs, deps.logger);
    await rename(temporary, target);
    const ms = Math.round(performance.now() - started);
    deps.logger.info({ dataKey: request.dataKey, scope: request.scope, ms }, 'scope file built');
    await removeFamily(files, target, request.scope);
    return target;
  } finally {
    const leftovers = [temporary, `${temporary}.wal`, `${temporary}.tmp`];
    await Promise.all(leftovers.map((path) => rm(path, { recursive: true, force: true })));
  }
}

/** Retires the other files of `scope`'s family beside `target` (older versions of one model's views). */
async function removeFamily(files: Leases, target: string, scope: string): Promise<void> {
  const family = scopeFamily(scope);
  const directory = dirname(target);
  for (const entry of await readdir(directory)) {
    if (!entry.endsWith('.duckdb')) continue;
    const path = join(directory, entry);
    if (path !== target && scopeFamily(entry.slice(0, -'.duckdb'.length)) === family) await files.retire(path);
  }
}
