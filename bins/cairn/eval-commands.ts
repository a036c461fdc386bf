/**
 * `cairn eval …`, for people and CI systems: runs of an agent environment's evaluation cases over
 * `/api/agents/:agent/environments/:env/evaluations`.
 * - `eval run <agent> --env <name> [--workflow <slug>] [--case <stem>] [--draft] [--record|--replay <run>] [--junit <file>]`: starts a run of
 *   the published build (of the draft with `--draft`; `--record` keeps the model calls, `--replay <run>` answers
 *   them from that recording run: no model is called), prints each case as it ends and a summary, writes JUnit XML with `--junit`; exits 0 only when
 *   every case passed (1 otherwise, with the run's id in the last line).
 * - `eval list <agent> --env <name>`: the runs, newest first; `eval show <run> <agent> --env <name>`: one run.
 * `--json` prints the API's answer (for `run`: the run once it ended).
 *
 * Source: issue "Evaluations" § CLI.
 */
import { writeFileSync } from 'node:fs';
import { failureLine, junitReport } from '../../core/evaluation/junit.ts';
import type { CaseResult } from '../../core/evaluation/run-case.ts';
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import { table, type CommandOutput } from './semantic-commands.ts';

/** Options of the eval commands, as given on the command line. */
export interface EvalOptions {
  env?: string;
  org?: string;
  workflow?: string;
  case?: string;
  draft?: boolean;
  record?: boolean;
  replay?: string;
  junit?: string;
}

/** A run as the API answers it (evaluation-routes.ts `evaluationRunView`). */
interface RunView {
  id: string;
  agentSlug: string;
  environment: string;
  buildId: string;
  draft?: boolean;
  status: string;
  caseIds: string[];
  cases: CaseResult[];
  error: { code: string; message: string } | null;
  createdAt: string;
  costUsd?: number;
  judgeCostUsd?: number;
  summary: { total: number; done: number; passed: number; failed: number };
}

const usages = {
  run: 'cairn eval run <agent> --env <name> [--workflow <slug>] [--case <stem>] [--draft] [--record|--replay <run>] [--junit <file>]',
  list: 'cairn eval list <agent> --env <name>',
  show: 'cairn eval show <run> <agent> --env <name>',
};
type Command = keyof typeof usages;

/** How often `eval run` reads the run while it runs (ms), and how long it waits at most (ms): an hour. */
const POLL_MS = 500;
const WAIT_MS = 3_600_000;

const caseLine = (c: CaseResult) =>
  `${c.passed ? 'PASS' : 'FAIL'} ${c.id}: ${c.title} (${(c.durationMs / 1000).toFixed(1)} s)` +
  (c.passed ? '' : `\n     ${failureLine(c)}`);
const summaryLine = (run: RunView) =>
  run.status === 'error'
    ? `run ${run.id} could not run: ${run.error?.message ?? 'an error'}`
    : `${run.summary.passed} of ${run.summary.total} cases passed (${run.status}); run ${run.id}; cost ` +
      `$${(run.costUsd ?? 0).toFixed(4)}, judges $${(run.judgeCostUsd ?? 0).toFixed(4)}`;

/** Runs `cairn eval <args>`. @throws CliError with a one-line reason (exit 2 on a usage error) */
export async function runEval(
  target: ApiTarget,
  args: string[],
  options: EvalOptions & { note(line: string): void; sleep?(ms: number): Promise<void> },
): Promise<CommandOutput & { exitCode?: number }> {
  const [command, ...rest] = args;
  if (!command || !(command in usages)) {
    const known = Object.keys(usages).join(', ');
    throw new CliError(`unknown eval command "${command ?? ''}"; use one of ${known} (see cairn --help)`, 2);
  }
  const cmd = command as Command;
  const wanted = cmd === 'show' ? 2 : 1;
  if (rest.length !== wanted || !options.env) throw new CliError(`usage: ${usages[cmd]}`, 2);
  const agent = rest[wanted - 1]!;
  const base = `/api/agents/${encodeURIComponent(agent)}/environments/${encodeURIComponent(options.env)}/evaluations`;
  if (cmd === 'list') {
    const answer = await callApi<{ runs: RunView[] }>(target, 'GET', base);
    const rows = answer.runs.map((r) => [r.id, r.status, `${r.summary.passed}/${r.summary.total}`, r.createdAt]);
    return { data: answer, human: rows.length ? table(['RUN', 'STATUS', 'PASSED', 'STARTED'], rows) : 'no runs yet' };
  }
  if (cmd === 'show') {
    const answer = await callApi<{ run: RunView }>(target, 'GET', `${base}/${encodeURIComponent(rest[0]!)}`);
    const lines = [...answer.run.cases.map(caseLine), summaryLine(answer.run)];
    return { data: answer, human: lines.join('\n') };
  }
  const body = {
    ...(options.workflow ? { workflow: options.workflow } : {}),
    ...(options.case ? { case: options.case } : {}),
    ...(options.draft ? { draft: true } : {}),
    ...(options.record ? { record: true } : {}),
    ...(options.replay ? { replay: options.replay } : {}),
  };
  let run = (await callApi<{ run: RunView }>(target, 'POST', base, body)).run;
  const of = run.draft ? `the draft of ${agent} (${options.env})` : `${agent} (${options.env})`;
  options.note(`run ${run.id}: ${run.caseIds.length} case(s) of ${of}, build ${run.buildId}`);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let printed = 0;
  for (let waited = 0; !['passed', 'failed', 'error'].includes(run.status); waited += POLL_MS) {
    if (waited > WAIT_MS) throw new CliError(`run ${run.id} did not end within an hour; cairn eval show it later`);
    await sleep(POLL_MS);
    run = (await callApi<{ run: RunView }>(target, 'GET', `${base}/${encodeURIComponent(run.id)}`)).run;
    for (; printed < run.cases.length; printed += 1) options.note(caseLine(run.cases[printed]!));
  }
  if (options.junit) {
    writeFileSync(options.junit, junitReport({ agent, environment: options.env, cases: run.cases }));
  }
  return { data: { run }, human: summaryLine(run), exitCode: run.status === 'passed' ? 0 : 1 };
}
