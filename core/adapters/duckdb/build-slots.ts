/**
 * The slots of semantic-mcp's scope builds (scope-build.ts), shared as fairly as the query processes (process-pool.ts,
 * through the same FairQueue and ShareCounts): at most `slots` builds run at once (3), one project only 1 of them and
 * one organization 2, the rest wait in line served round-robin across projects, a build a query waits for before
 * one prepared ahead. A query waits for its build to start at most `maxWaitMs` (then `query_busy`; the build stays
 * queued, so the next try finds it started or done); a query whose caller has gone leaves at once
 * (`query_cancelled`), and a build nobody wants any more leaves the line, or is interrupted when running. A build
 * prepared ahead (at publish, on reading a model) waits at most `backgroundWaitMs` and is never interrupted.
 *
 * Source: docs/decisions.md D18 § 2 (one caller cannot starve the others), D18 § 7 (builds).
 */
import type { Logger } from '../../ports/logger.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import { FairQueue } from './fair-queue.ts';
import { ShareCounts } from './pool-shares.ts';
import { cancelledError } from './query-execution.ts';
import { recordScopeBuild, recordScopeBuildWait } from '../../telemetry/instruments.ts';

/** Whom a build is for (ids, never shown): builds are counted per project and per organization. */
export interface BuildShare {
  projectId: string;
  /** The project's organization; absent, the build counts toward no organization's share. */
  orgId?: string;
}

/**
 * Bounds of the build slots.
 *
 * Source: docs/decisions.md D18 § 7
 */
export interface BuildLimits {
  /** Builds running at once in this process (default 3; each uses 2 threads and at most 512 MiB). */
  slots: number;
  /**
   * Builds of one project running at once (default slots − 2, at least 1: another project of its organization and
   * another organization each find a slot).
   */
  runningPerProject: number;
  /** Builds of one organization's projects running at once (default slots − 1, at least 1: another finds a slot). */
  runningPerOrganization: number;
  /** Milliseconds a query waits for its build to start at most (default 15,000, as for a query process). */
  maxWaitMs: number;
  /** Milliseconds a build prepared ahead, which no query waits for, stays in line at most (default 120,000). */
  backgroundWaitMs: number;
  /** Builds prepared ahead in line per project at most (default 8); more are not queued (a query builds them). */
  backgroundPerProject: number;
}

/**
 * The default bounds for `slots` builds at once.
 *
 * Source: docs/decisions.md D18 § 7
 */
export function defaultBuildLimits(slots = 3): BuildLimits {
  return {
    slots,
    runningPerProject: Math.max(1, slots - 2),
    runningPerOrganization: Math.max(1, slots - 1),
    maxWaitMs: 15_000,
    backgroundWaitMs: 120_000,
    backgroundPerProject: 8,
  };
}

/** One build: `key` names it (builds of one key are one build), `task` does it (interrupted once `signal` aborts). */
export interface BuildRequest {
  key: string;
  task: (signal: AbortSignal) => Promise<string>;
  share?: BuildShare;
}

/**
 * Runs builds within their shares.
 *
 * Source: docs/decisions.md D18 § 7
 */
export interface BuildSlots {
  /**
   * The result of the build of `request.key`: joins the build queued or running under that key, else queues one.
   * @throws PlatformError `query_busy` (503) when the build has not started within `maxWaitMs` (it stays queued),
   *   `query_cancelled` (499) once `signal` aborts, or the task's own error
   */
  wait(request: BuildRequest, signal?: AbortSignal): Promise<string>;
  /** Queues `request` ahead of any query (or keeps the build of its key wanted); never throws. */
  prepare(request: BuildRequest): void;
}

/** A caller waiting for a job. */
interface Caller {
  settle(outcome: { path: string } | { error: Error }): void;
  /** The job started: the wait bound no longer applies. */
  started(): void;
}

interface Job extends BuildRequest {
  callers: Set<Caller>;
  /** Wanted by a preparation (kept in line until `backgroundWaitMs` passes, never interrupted). */
  background: boolean;
  running: boolean;
  abort: AbortController;
  dropTimer?: ReturnType<typeof setTimeout>;
  /** When it joined the line (`performance.now()` ms): its wait is metered (docs/decisions.md D25 § 2). */
  queuedAt: number;
}

/**
 * Creates empty build slots.
 *
 * Source: docs/decisions.md D18 § 7
 */
export function createBuildSlots(options: { limits?: Partial<BuildLimits>; logger: Logger }): BuildSlots {
  const given = Object.entries(options.limits ?? {}).filter(([, value]) => value !== undefined);
  return new FairBuildSlots(
    { ...defaultBuildLimits(options.limits?.slots), ...Object.fromEntries(given) },
    options.logger,
  );
}

/**
 * PlatformError `query_busy` (503) for a query whose build did not start within `maxWaitMs`.
 *
 * Source: docs/decisions.md D18 § 7
 */
export function buildBusyError(maxWaitMs: number): PlatformError {
  const seconds = Number((maxWaitMs / 1000).toFixed(3));
  return new PlatformError(
    'query_busy',
    `Query not run: this model's data is new to the engine and its build did not start within ${seconds} s (the ` +
      "longest a query waits for one); the engine is building other projects' data. The build stays queued: try " +
      'again in half a minute.',
    { status: 503 },
  );
}

class FairBuildSlots implements BuildSlots {
  private readonly jobs = new Map<string, Job>();
  private readonly line = new FairQueue<Job>();
  private readonly counts = new ShareCounts();
  private running = 0;

  constructor(private readonly limits: BuildLimits, private readonly logger: Logger) {}

  wait(request: BuildRequest, signal?: AbortSignal): Promise<string> {
    if (signal?.aborted) return Promise.reject(cancelledError());
    const job = this.jobOf(request);
    return new Promise((resolve, reject) => {
      const leave = (error: Error, message: string) => {
        if (!job.callers.delete(caller)) return;
        caller.settle({ error });
        this.logger.info({ ...job.share, key: job.key }, message);
        if (error instanceof PlatformError && error.code === 'query_busy') this.keepInBackground(job);
        else this.dropIfUnwanted(job);
      };
      const onAbort = () => leave(cancelledError(), 'query cancelled while waiting for its scope build');
      const timer = job.running ? undefined : setTimeout(
        () => leave(buildBusyError(this.limits.maxWaitMs), 'query refused: its scope build did not start in time'),
        this.limits.maxWaitMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      const caller: Caller = {
        settle: (outcome) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          if ('path' in outcome) resolve(outcome.path);
          else reject(outcome.error);
        },
        started: () => clearTimeout(timer),
      };
      job.callers.add(caller);
      this.pump();
    });
  }

  prepare(request: BuildRequest): void {
    const queued = this.jobs.get(request.key);
    if (!queued || queued.abort.signal.aborted) {
      const projectId = request.share?.projectId;
      const ahead = this.line.list.filter((job) => job.share?.projectId === projectId && job.callers.size === 0);
      if (ahead.length >= this.limits.backgroundPerProject) {
        this.logger.info({ ...request.share, key: request.key }, 'scope build not prepared: too many queued');
        return;
      }
    }
    this.keepInBackground(this.jobOf(request));
    this.pump();
  }

  /** The live job of `request.key`, or a new one in line. */
  private jobOf(request: BuildRequest): Job {
    const known = this.jobs.get(request.key);
    if (known && !known.abort.signal.aborted) return known;
    const job: Job = {
      ...request,
      callers: new Set(),
      background: false,
      running: false,
      abort: new AbortController(),
      queuedAt: performance.now(),
    };
    this.jobs.set(job.key, job);
    this.line.push(job);
    return job;
  }

  /** Marks `job` wanted by a preparation: it stays in line for `backgroundWaitMs` more. */
  private keepInBackground(job: Job): void {
    job.background = true;
    if (job.running) return;
    clearTimeout(job.dropTimer);
    job.dropTimer = setTimeout(() => {
      job.background = false;
      this.dropIfUnwanted(job);
    }, this.limits.backgroundWaitMs);
  }

  /** A job no caller waits for and no preparation wants leaves the line, or is interrupted when running. */
  private dropIfUnwanted(job: Job): void {
    if (job.callers.size > 0 || job.background) return;
    clearTimeout(job.dropTimer);
    if (job.running) {
      this.logger.info({ ...job.share, key: job.key }, 'scope build interrupted: no caller waits for it');
      job.abort.abort();
      return;
    }
    this.line.remove(job);
    if (this.jobs.get(job.key) === job) this.jobs.delete(job.key);
  }

  /** Starts jobs while slots and shares allow, those a caller waits for first. */
  private pump(): void {
    const mayStart = (job: Job) => this.mayStart(job);
    while (this.running < this.limits.slots) {
      const job = this.line.next((other) => other.callers.size > 0 && mayStart(other)) ?? this.line.next(mayStart);
      if (!job) return;
      this.start(job);
    }
  }

  private mayStart(job: Job): boolean {
    if (!job.share) return true;
    const running = this.counts.running(job.share);
    return running.project < this.limits.runningPerProject &&
      (job.share.orgId === undefined || running.organization < this.limits.runningPerOrganization);
  }

  private start(job: Job): void {
    this.line.take(job);
    clearTimeout(job.dropTimer);
    job.running = true;
    this.running += 1;
    this.counts.add(job.share);
    for (const caller of job.callers) caller.started();
    const startedAt = performance.now();
    recordScopeBuildWait((startedAt - job.queuedAt) / 1000);
    const end = (outcome: { path: string } | { error: Error }) => {
      recordScopeBuild((performance.now() - startedAt) / 1000, buildOutcome(outcome, job.abort.signal.aborted));
      this.running -= 1;
      this.counts.remove(job.share);
      if (this.jobs.get(job.key) === job) this.jobs.delete(job.key);
      const settled = job.abort.signal.aborted ? { error: cancelledError() } : outcome;
      for (const caller of job.callers) caller.settle(settled);
      job.callers.clear();
      this.pump();
    };
    job.task(job.abort.signal).then((path) => end({ path }), (error: Error) => end({ error }));
  }
}

/** `ok`, `cancelled` (nobody waited any more) or the failure's PlatformError code (`other` for anything else). */
function buildOutcome(outcome: { path: string } | { error: Error }, aborted: boolean): string {
  if (aborted) return 'cancelled';
  if ('path' in outcome) return 'ok';
  return outcome.error instanceof PlatformError ? outcome.error.code : 'other';
}
