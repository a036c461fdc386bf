/**
 * `cairn deployment …`: the trigger deployments of an agent environment over
 * `/api/agents/:agent/environments/:env/deployments`. `list` prints each deployment (workflow, trigger, kind,
 * status, connection) with the message of each one in error and the last reconciliation; `retry` is a member's
 * Retry now (every deployment is tried again). `--json` prints the API's answer.
 *
 * Source: spec/platform-service.md § Trigger deployment; docs/decisions.md D8 § Triggers.
 */
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';
import { table } from './semantic-commands.ts';

/** Options of the deployment commands, as given on the command line. */
export interface DeploymentOptions {
  agent?: string;
  env?: string;
}

/** A deployment as the API answers it. */
interface DeploymentView {
  workflow: string;
  trigger: string;
  type: string;
  status: string;
  message: string | null;
  connection: string | null;
  failuresInRow: number;
  nextRetryAt: string | null;
  retriesExhausted: boolean;
}

/** A reconciliation request as the API answers it. */
interface ReconciliationView { reason: string; status: string; requestedAt: string; endedAt: string | null; serving: number; errors: number }

const usages = {
  list: 'cairn deployment list --agent <slug> --env <name>',
  retry: 'cairn deployment retry --agent <slug> --env <name>',
};
type Command = keyof typeof usages;

/** The deployments route of `--agent`/`--env`. @throws CliError (exit 2) when one is missing */
export function deploymentPath(command: Command, options: DeploymentOptions): string {
  for (const name of ['agent', 'env'] as const) {
    if (!options[name]) throw new CliError(`--${name} is required; usage: ${usages[command]}`, 2);
  }
  return `/api/agents/${encodeURIComponent(options.agent!)}/environments/${encodeURIComponent(options.env!)}/deployments`;
}

/** One line about a reconciliation request. */
export function reconciliationText(r: ReconciliationView | null): string {
  if (!r) return 'no reconciliation has been requested (publish the environment to deploy its triggers)';
  const counts = r.status === 'done' ? `: ${r.serving} serving, ${r.errors} in error` : '';
  return `reconciliation ${r.status} (${r.reason}, requested ${r.requestedAt})${counts}`;
}

/** The retry state of a deployment in error, as text. */
const retryText = (d: DeploymentView) => d.status !== 'error' ? '' : d.retriesExhausted ? 'retries exhausted' : d.nextRetryAt ? `retry at ${d.nextRetryAt}` : 'retrying';

/** Human text of `list`. */
export function formatDeployments(answer: { deployments: DeploymentView[]; reconciliation: ReconciliationView | null }, where: string): string {
  const head = answer.deployments.length === 0 ? `no trigger deployments in ${where}` : table(
    ['WORKFLOW', 'TRIGGER', 'TYPE', 'STATUS', 'CONNECTION', 'RETRY'],
    answer.deployments.map((d) => [d.workflow, d.trigger, d.type, d.status, d.connection ?? '-', retryText(d)]),
  );
  const errors = answer.deployments.filter((d) => d.status === 'error').map((d) => `${d.workflow}/${d.trigger}: ${d.message ?? ''}`);
  return [head, ...(errors.length ? ['', ...errors] : []), '', reconciliationText(answer.reconciliation)].join('\n');
}

/** Runs `cairn deployment <args>`. @throws CliError with a one-line reason (exit 2 on a usage error) */
export async function runDeployment(target: ApiTarget, args: string[], options: DeploymentOptions): Promise<CommandOutput> {
  const [command, ...rest] = args;
  if (!command || !(command in usages)) throw new CliError(`unknown deployment command "${command ?? ''}"; use one of ${Object.keys(usages).join(', ')} (see cairn --help)`, 2);
  const cmd = command as Command;
  if (rest.length > 0) throw new CliError(`unexpected argument "${rest[0]}"; usage: ${usages[cmd]}`, 2);
  if (cmd === 'list') {
    const answer = await callApi<{ deployments: DeploymentView[]; reconciliation: ReconciliationView | null }>(target, 'GET', deploymentPath(cmd, options));
    return { data: answer, human: formatDeployments(answer, `${options.agent}/${options.env}`) };
  }
  const answer = await callApi<{ reconciliation: ReconciliationView }>(target, 'POST', `${deploymentPath(cmd, options)}/retry`, {});
  return { data: answer, human: `Retry now requested: ${reconciliationText(answer.reconciliation)}` };
}
