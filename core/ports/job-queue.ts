/**
 * Job queue port (BullMQ on Redis): named queues of JSON jobs consumed by dispatchers.
 *
 * Source: spec/platform-service.md § Processes (dispatcher consumes every queue).
 */

/**
 * Who is waiting on a job: `interactive` (a person or a caller waits: chat, AG-UI, an MCP tool call, a reply, a
 * decision) or `background` (webhook, schedule, poll, callback and completion firings, evaluations).
 * Source: docs/decisions.md D24 § 1 (interactive first).
 */
export type JobLane = 'interactive' | 'background';

/**
 * Where a job of a fair queue waits: its lane, its tenant (the organization) and its group within the tenant (the
 * agent). Taken fairly: interactive first without starving background, then round robin between tenants, then
 * between a tenant's groups, then in order. Source: docs/decisions.md D24 § 1.
 */
export interface JobPlace {
  lane: JobLane;
  /** The organization's id. */
  tenant: string;
  /** The agent's id within the organization. */
  group: string;
}

/** Options of {@link JobQueue.add}. */
export interface JobAddOptions {
  /** Makes the add idempotent: a job of that id still in the queue store adds nothing. */
  jobId?: string;
  /** Runs the job no sooner than this many milliseconds from now (not on a fair queue). */
  delayMs?: number;
  /** The job's place on a fair queue (required there, ignored elsewhere). */
  place?: JobPlace;
}

/** Counts of jobs per state; `lanes` (fair queues only) splits `waiting` by lane. */
export interface JobCounts {
  waiting: number;
  active: number;
  completed: number;
  failed: number;
  delayed: number;
  lanes?: Record<JobLane, number>;
}

/**
 * Named queues of JSON jobs. A queue the adapter was built to keep fair (the turn queues) hands jobs out by their
 * {@link JobPlace}, not in the order they were added, and keeps no ended job.
 */
export interface JobQueue {
  /** Adds a job; `jobId` makes the add idempotent. @returns the job id */
  add(queue: string, name: string, data: unknown, options?: JobAddOptions): Promise<string>;
  /**
   * Consumes `queue` with `handler`, `concurrency` jobs at a time, until the returned stop is called.
   * A handler that throws fails the job (kept for inspection within the adapter's bound on failed jobs).
   */
  consume(
    queue: string,
    handler: (job: { id: string; name: string; data: unknown }) => Promise<void>,
    options?: { concurrency?: number },
  ): { stop(): Promise<void> };
  /**
   * Where job `jobId` of `queue` is: `pending` (waiting, delayed or running), `ended` (kept completed or failed: an
   * `add` of that id adds nothing until it is removed) or `missing` (never added, removed, or lost with the store).
   */
  jobState(queue: string, jobId: string): Promise<'pending' | 'ended' | 'missing'>;
  /** Removes job `jobId` unless it is running; @returns whether one was removed. */
  remove(queue: string, jobId: string): Promise<boolean>;
  /** Counts of jobs per state. */
  counts(queue: string): Promise<JobCounts>;
  /** Closes connections. */
  close(): Promise<void>;
}
