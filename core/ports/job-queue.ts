/**
 * Job queue port (BullMQ on Redis): named queues of JSON jobs consumed by dispatchers.
 *
 * Source: spec/platform-service.md § Processes (dispatcher consumes every queue).
 */
export interface JobQueue {
  /** Adds a job; `jobId` makes the add idempotent. @returns the job id */
  add(queue: string, name: string, data: unknown, options?: { jobId?: string; delayMs?: number }): Promise<string>;
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
  counts(
    queue: string,
  ): Promise<{ waiting: number; active: number; completed: number; failed: number; delayed: number }>;
  /** Closes connections. */
  close(): Promise<void>;
}
