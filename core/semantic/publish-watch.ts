/**
 * Builds at publish: the API publishes (writes the build and the project's `publishedBuildKey`), semantic-mcp serves,
 * so each semantic-mcp process reads the projects published since it last looked (every `everyMs`) and queues the
 * scope build of every queryable model of each new production build with the engine, in the background. The first
 * question of a newly published model then finds its data built instead of waiting for it. The publish answer never
 * waits for this; a build that fails is left for the first query to report.
 *
 * Source: spec/semantic-query-service.md § What the service does (3); docs/decisions.md D18 § 7.
 */
import type { Logger } from '../ports/logger.ts';
import type { QueryEngine } from '../ports/query-engine.ts';
import type { SemanticDeps } from './deps.ts';
import { type AssembledPlane, assemblePlane } from './planes.ts';
import { collections, type ProjectRecord } from './records.ts';
import { prepareModelScope } from './tools/query-tools.ts';

/** Milliseconds between two reads of new publishes (default of {@link PublishWatchOptions.everyMs}). */
export const defaultPublishWatchMs = 2_000;
/** Milliseconds a publish may be stamped behind the newest one seen (another API process's clock) and still be seen. */
const clockSkewMs = 10_000;
/** Builds remembered as prepared (the oldest forgotten first). */
const buildsRemembered = 1_000;
/** Projects read per look at most (the rest on the next look). */
const projectsPerLook = 100;

/**
 * Options of {@link watchPublishes}.
 *
 * Source: docs/decisions.md D18 § 7
 */
export interface PublishWatchOptions {
  engine: QueryEngine;
  logger: Logger;
  /** Publishes stamped before this are not prepared (semantic-mcp: one minute before it started). */
  since: Date;
  /** Parsed planes by content key, shared with the endpoints (see assemblePlane). */
  planeCache?: Map<string, AssembledPlane>;
  /** Milliseconds between two looks (default 2,000). */
  everyMs?: number;
}

/** A running watch; `stop` ends it once the look under way, if any, has ended. */
export interface PublishWatch {
  /** Looks once now (the timer keeps running); resolves once the builds are queued. */
  look(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts watching for publishes. A look that fails (the store unreachable) is logged and tried again at the next one.
 *
 * Source: docs/decisions.md D18 § 7
 */
export function watchPublishes(deps: SemanticDeps, options: PublishWatchOptions): PublishWatch {
  const prepared = new Set<string>();
  let cursor = options.since;
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const lookOnce = async () => {
    const since = new Date(cursor.getTime() - clockSkewMs);
    const projects = await deps.docs.collection<ProjectRecord>(collections.projects)
      .find({ publishedAt: { $gt: since } }, { sort: { publishedAt: 1 }, limit: projectsPerLook });
    for (const project of projects) {
      if (project.publishedAt && project.publishedAt > cursor) cursor = project.publishedAt;
      const build = project.publishedBuildKey;
      if (!build || prepared.has(build)) continue;
      remember(prepared, build);
      await preparePublished(deps, project, options);
    }
  };
  const look = () => {
    current = current.then(lookOnce).catch((error: unknown) => {
      options.logger.warn({ err: String(error) }, 'new publishes could not be read; trying again');
    });
    return current;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => void look().then(schedule), options.everyMs ?? defaultPublishWatchMs);
  };
  schedule();
  return {
    look,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}

/** Queues the scope build of every queryable model of `project`'s production plane. */
async function preparePublished(deps: SemanticDeps, project: ProjectRecord, options: PublishWatchOptions) {
  const plane = await assemblePlane(deps, project, 'production', options.planeCache);
  for (const model of plane.models) prepareModelScope({ deps, engine: options.engine, project, plane }, model);
  const models = plane.models.map((model) => model.name);
  options.logger.info({ project: project.slug, revision: plane.revision, models }, 'publish seen: building its models');
}

function remember(prepared: Set<string>, build: string): void {
  if (prepared.size >= buildsRemembered) prepared.delete(prepared.values().next().value as string);
  prepared.add(build);
}
