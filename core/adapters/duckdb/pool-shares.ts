/**
 * Fair shares of the query process pool: how many queries one project and one token may have running
 * and waiting, how long a query waits for a process, and the answers given when a bound is reached.
 * The pool (process-pool.ts) applies them; semantic-mcp's settings choose the figures.
 *
 * Source: spec/semantic-query-service.md § Limits; docs/decisions.md D18 § 2 (one caller cannot starve the
 * others).
 */
import { PlatformError } from '../../ports/platform-error.ts';

/** Who a query runs for (ids, never shown to callers): shares are counted per project and per token. */
export interface QueryShare {
  projectId: string;
  tokenId: string;
}

/**
 * Bounds of the pool's shares. A query beyond a running bound waits; a query beyond a waiting bound is
 * refused at once (`too_many_queries`); a query that waits longer than `maxWaitMs` is refused (`query_busy`).
 *
 * Source: docs/decisions.md D18 § 2
 */
export interface ShareLimits {
  /** Queries of one project running at once (default maxProcesses − 1, at least 1: a quiet project finds room). */
  runningPerProject: number;
  /** Queries of one token running at once (default 2). */
  runningPerToken: number;
  /** Queries of one project waiting for a process at once (default 8). */
  waitingPerProject: number;
  /** Queries of one token waiting for a process at once (default 4). */
  waitingPerToken: number;
  /** Milliseconds a query waits for a process at most (default 15,000); the query's own 30 s start after. */
  maxWaitMs: number;
}

/**
 * The default bounds for a pool of `maxProcesses` children.
 *
 * Source: docs/decisions.md D18 § 2
 */
export function defaultShareLimits(maxProcesses: number): ShareLimits {
  return {
    runningPerProject: Math.max(1, maxProcesses - 1),
    runningPerToken: 2,
    waitingPerProject: 8,
    waitingPerToken: 4,
    maxWaitMs: 15_000,
  };
}

/**
 * Whom a share counts for: a project, and the token (queries) or the organization (scope builds) when given.
 *
 * Source: docs/decisions.md D18 § 2
 */
export interface CountedShare {
  projectId: string;
  tokenId?: string;
  orgId?: string;
}

/**
 * Work running per project, per token and per organization (keys `p:<id>`, `t:<id>`, `o:<id>`): the query pool counts
 * its queries here, the scope builder its builds (build-slots.ts).
 */
export class ShareCounts {
  private readonly counts = new Map<string, number>();

  /** Work of `share`'s project, token and organization now running (0 for an id the share does not name). */
  running(share: CountedShare): { project: number; token: number; organization: number } {
    const count = (
      key: string,
      id: string | undefined,
    ) => (id === undefined ? 0 : this.counts.get(`${key}:${id}`) ?? 0);
    return {
      project: count('p', share.projectId),
      token: count('t', share.tokenId),
      organization: count('o', share.orgId),
    };
  }

  add(share: CountedShare | undefined): void {
    if (share) { for (const key of keysOf(share)) this.counts.set(key, (this.counts.get(key) ?? 0) + 1); }
  }

  remove(share: CountedShare | undefined): void {
    if (!share) return;
    for (const key of keysOf(share)) {
      const left = (this.counts.get(key) ?? 0) - 1;
      if (left > 0) this.counts.set(key, left);
      else this.counts.delete(key);
    }
  }
}

function keysOf(share: CountedShare): string[] {
  const keys = [`p:${share.projectId}`];
  if (share.tokenId !== undefined) keys.push(`t:${share.tokenId}`);
  if (share.orgId !== undefined) keys.push(`o:${share.orgId}`);
  return keys;
}

/** True when `share` may start one more query under `limits` (a query without a share always may). */
export function mayRun(counts: ShareCounts, share: QueryShare | undefined, limits: ShareLimits): boolean {
  if (!share) return true;
  const running = counts.running(share);
  return running.project < limits.runningPerProject && running.token < limits.runningPerToken;
}

/**
 * The refusal of a query whose token or project already has as many queries waiting as `limits` allow, or
 * undefined when it may wait. `waiting` lists the shares of the queries waiting now.
 *
 * Source: docs/decisions.md D18 § 2 (an answer naming the limit)
 */
export function waitRefusal(
  share: QueryShare | undefined,
  waiting: (QueryShare | undefined)[],
  limits: ShareLimits,
): PlatformError | undefined {
  if (!share) return undefined;
  const byToken = waiting.filter((other) => other?.tokenId === share.tokenId).length;
  if (byToken >= limits.waitingPerToken) {
    return tooMany(
      `this token already has ${byToken} queries waiting for a query process ` +
        `(at most ${limits.waitingPerToken} may wait per token, ${limits.runningPerToken} run at once)`,
    );
  }
  const byProject = waiting.filter((other) => other?.projectId === share.projectId).length;
  if (byProject >= limits.waitingPerProject) {
    return tooMany(
      `this project already has ${byProject} queries waiting for a query process ` +
        `(at most ${limits.waitingPerProject} may wait per project, ${limits.runningPerProject} run at once)`,
    );
  }
  return undefined;
}

function tooMany(reason: string): PlatformError {
  return new PlatformError(
    'too_many_queries',
    `Query refused: ${reason}. Wait for the answers of the queries ` +
      'already sent before sending more, or send them one after another.',
    { status: 429 },
  );
}

/**
 * PlatformError `query_busy` (503) for a query that found no free query process within `maxWaitMs`.
 *
 * Source: docs/decisions.md D18 § 2 (a bounded wait in the pool)
 */
export function busyError(maxWaitMs: number): PlatformError {
  const seconds = Number((maxWaitMs / 1000).toFixed(3));
  return new PlatformError(
    'query_busy',
    `Query not run: no query process became free within ${seconds} s (the longest ` +
      'a query waits for one); the engine is busy with other queries. Try again in a few seconds.',
    { status: 503 },
  );
}
