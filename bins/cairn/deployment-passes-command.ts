/**
 * `cairn deployment-passes list|apply [--agent <id>]`: the operator tool for a release that changes how desired
 * deployments are computed: `list` shows every environment's pass (its last reconciliation), `apply` requests a
 * reconciliation of each (reason `release`). Works on the deployment's stores directly, with its environment.
 * With QUEUE_URL the passes are queued at once; with the container's embedded queue store (which only the API and
 * the dispatcher can reach) they are recorded, and a running dispatcher's retry sweep queues them within 10 minutes.
 *
 * Source: spec/platform-service.md § Trigger deployment (an operator tool lists, or with an apply switch
 * requests, the passes; an agent id may limit it to one agent).
 */
import { FAIR_QUEUES } from '../../core/boot/fair-queues.ts';
import { createBullJobQueue } from '../../core/adapters/redis/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openDocumentStore } from '../../core/adapters/stores/open-stores.ts';
import { environmentsToReconcile } from '../../core/boot/deployment-wiring.ts';
import type { EnvRecord } from '../../core/config/env-values.ts';
import { parseStoreSettings } from '../../core/config/store-settings.ts';
import { ensureDeploymentIndexes, passLine, reconciliationDeps, releasePasses } from '../../core/deployment/index.ts';
import { CliError } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';

const usage = 'cairn deployment-passes list|apply [--agent <agent id>]';

/** Runs `cairn deployment-passes <list|apply>`. @throws CliError (exit 2 on a usage error; 1 when no environment matches) */
export async function runDeploymentPasses(args: string[], options: { agent?: string }, env: EnvRecord, print: (line: string) => void): Promise<CommandOutput> {
  const action = args[0];
  if ((action !== 'list' && action !== 'apply') || args.length > 1) throw new CliError(`usage: ${usage}`, 2);
  const stores = parseStoreSettings(env);
  const docs = await openDocumentStore(stores.documents);
  const queue = action === 'apply' && stores.queueUrl ? createBullJobQueue({ connection: stores.queueUrl, fairQueues: FAIR_QUEUES }) : undefined;
  try {
    const environments = await environmentsToReconcile(docs, options.agent);
    if (environments.length === 0) throw new CliError(options.agent ? `agent "${options.agent}" has no environment; give an agent id (not a slug), or leave out --agent for every agent` : 'no environment exists yet: nothing to reconcile');
    if (action === 'apply') await ensureDeploymentIndexes({ docs });
    const passes = await releasePasses(reconciliationDeps({ docs, clock: systemClock, ids: cryptoIds, queue }), environments, action === 'apply');
    for (const pass of passes) print(passLine(pass));
    if (action === 'list') print(`${passes.length} environments; run cairn deployment-passes apply${options.agent ? ` --agent ${options.agent}` : ''} to request their passes`);
    else print(`requested ${passes.length} passes${queue ? '' : ' (no QUEUE_URL: a running dispatcher\'s retry sweep queues them within 10 minutes)'}`);
    return { data: { passes }, human: '' };
  } finally {
    await queue?.close();
    await docs.close();
  }
}
