/**
 * `cairn failed-jobs list [--limit N]`: the failure records the dispatchers keep in `failed_jobs` (newest first:
 * time, queue, job name and id, the ids the job carried, reason; never a payload), read from the deployment's
 * document store with its own environment (DOCDB_URI).
 *
 * Source: docs/architecture.md § Queues and collections (failed jobs); core/jobs/failed-jobs.ts.
 */
import { openDocumentStore } from '../../core/adapters/stores/open-stores.ts';
import { parseStoreSettings } from '../../core/config/store-settings.ts';
import type { EnvRecord } from '../../core/config/env-values.ts';
import { listFailedJobs, type FailedJobRecord } from '../../core/jobs/failed-jobs.ts';
import { CliError } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';

const usage = 'usage: cairn failed-jobs list [--limit N] (N from 1 to 1000, default 100)';

/** One record as a line: `<ISO time>  <queue> <name> <job id>  <key=value …>  <reason>`. */
export function failedJobLine(record: FailedJobRecord): string {
  const ids = Object.entries(record.ids).map(([key, value]) => `${key}=${value}`).join(' ');
  return `${record.at.toISOString()}  ${record.queue} ${record.name} ${record.jobId}  ${ids || '-'}  ${record.reason}`;
}

/**
 * Lists the newest failure records.
 * @throws CliError (exit 2) for another action or a limit that is not a whole number from 1 to 1000
 */
export async function runFailedJobs(args: string[], options: { limit?: string }, env: EnvRecord): Promise<CommandOutput> {
  const limit = options.limit === undefined ? 100 : Number(options.limit);
  if (args[0] !== 'list' || !Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliError(usage, 2);
  const docs = await openDocumentStore(parseStoreSettings(env).documents);
  try {
    const records = await listFailedJobs(docs, limit);
    const human = records.length === 0 ? 'no failed jobs recorded' : records.map(failedJobLine).join('\n');
    return { data: records, human };
  } finally {
    await docs.close();
  }
}
