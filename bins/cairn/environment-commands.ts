/**
 * `cairn environment set <agent> --env <name> --evaluation-gate on|off`: an agent environment's settings over
 * `PATCH /api/agents/:agent/environments/:env` (Maintainer). With the gate on, a publish runs the draft's cases
 * first and is refused when any fails; a promotion into the environment needs a passing run of the build.
 * `--json` prints the environment the API answers.
 *
 * Source: issue "Evaluations" § Gate, § CLI.
 */
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';

/** Options of the environment commands, as given on the command line. */
export interface EnvironmentOptions {
  env?: string;
  'evaluation-gate'?: string;
}

const usage = 'cairn environment set <agent> --env <name> --evaluation-gate on|off';

/** Runs `cairn environment <args>`. @throws CliError with a one-line reason (exit 2 on a usage error) */
export async function runEnvironment(
  target: ApiTarget,
  args: string[],
  options: EnvironmentOptions,
): Promise<CommandOutput> {
  const [command, agent, ...rest] = args;
  if (command !== 'set') throw new CliError(`unknown environment command "${command ?? ''}"; usage: ${usage}`, 2);
  if (!agent || rest.length > 0 || !options.env) throw new CliError(`usage: ${usage}`, 2);
  const gate = options['evaluation-gate'];
  if (gate !== 'on' && gate !== 'off') {
    throw new CliError(`--evaluation-gate takes on or off${gate === undefined ? '' : `, not "${gate}"`}; usage: ${usage}`, 2);
  }
  const path = `/api/agents/${encodeURIComponent(agent)}/environments/${encodeURIComponent(options.env)}`;
  const answer = await callApi<{ name: string; evaluationGate: boolean }>(target, 'PATCH', path, {
    evaluationGate: gate === 'on',
  });
  const human = answer.evaluationGate
    ? `evaluation gate of ${agent} (${answer.name}) is on: a publish runs the draft's cases first and is refused ` +
      'when one fails; a promotion here needs a run of the build in which every case passed'
    : `evaluation gate of ${agent} (${answer.name}) is off`;
  return { data: answer, human };
}
