/**
 * cairn: the operator command. Talks to a running instance over its HTTP API.
 * `--url` (default $CAIRN_URL or http://127.0.0.1:8080), `--token` ($CAIRN_TOKEN), `--json`.
 * Exits 0 on success, 1 with a one-line reason on failure, 2 on a usage error.
 */
import { parseArgs } from 'node:util';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { runAgent } from './agent-commands.ts';
import { CliError } from './api-client.ts';
import { runConnection } from './connection-commands.ts';
import { runDeployment } from './deployment-commands.ts';
import { runDeploymentPasses } from './deployment-passes-command.ts';
import { runConfig, runDataUpdates, runSecrets } from './operator-commands.ts';
import { runFailedJobs } from './failed-jobs-command.ts';
import { runSemantic, type CommandOutput } from './semantic-commands.ts';
import { runSession } from './session-commands.ts';
import { runEval } from './eval-commands.ts';
import { runEnvironment } from './environment-commands.ts';
import { runDesign } from './design-command.ts';
import { runSkill } from './skill-commands.ts';
import { runCollection } from './collection-commands.ts';
import { terminalSafe, terminalSafeJson } from './terminal-text.ts';

const help = `cairn — operate a cairn instance

Usage: cairn [--url URL] [--token TOKEN] [--json] <command>

Semantic models:
  semantic import <dir> --project <slug> [--org <id>] [--publish] [--page-size N]
                                                       save models/*.yaml and data/* as the project's sources
  semantic publish <slug>                              publish the saved sources to the production endpoint
  semantic token create <slug> --models a,b [--expires YYYY-MM-DD] [--name N]
                                                       create an access token (printed once, alone)
  semantic token list <slug>                           tokens with Last Used and Events (30d)
  semantic token revoke <slug> <token-id>
  semantic log <slug> [--tool T] [--status success|error] [--token-id ID] [--from DATE] [--to DATE] [--limit N]
  semantic improvements <slug>                         improvement requests agents submitted

Agents:
  agent validate <dir> | --agent <slug> --env <name>  check an agent repository (AGENTS.md, workflows/, skills/)
                                                       on disk, or an environment's draft; prints
                                                       file:line:col key: message per problem
  agent import <dir> --agent <slug> [--org <id>] [--env <name>] [--publish]
                                                       create the agent when missing, save the files to the
                                                       environment's draft (default main), publish with --publish

Sessions (<agent> is an agent id or slug; --org when the slug is in several organizations):
  session start <agent> <workflow> --env <name> [--org <id>] [--trigger <id>] [--message TEXT] [--var k=v]…
                                                       start a session; prints its status, and its id as the last word
                                                       (--var: true/false → boolean, numbers → number, else text)
  session list --agent <slug> [--env <name>] [--workflow <slug>] [--org <id>]
                                                       sessions, newest first: id, workflow, env, status, state, cost
  session show <id> [--wait]                           status, state, pending, trail, messages, usage, cost, children;
                                                       --wait polls until it is no longer running (120 s at most)
  session decide <id> --to <state> [--comment TEXT] [--field k=v]…
                                                       take the pending decision (--field: the values of the
                                                       fields it asks for, typed as --var)
  session reply <id> TEXT                              answer a session waiting for input
  session cancel <id>

Evaluations (the workflows/<slug>/tests/*.test.yaml cases of the published build, or of the draft with --draft):
  eval run <agent> --env <name> [--workflow <slug>] [--case <stem>] [--draft] [--record|--replay <run>] [--junit <file>]
                                                       run the cases, print each as it ends and a summary;
                                                       exit 0 only when every case passed; JUnit XML with --junit;
                                                       --record keeps the model's answers, --replay <run> answers
                                                       from them (no model call, no cost)
  eval list <agent> --env <name>                       runs, newest first
  eval show <run> <agent> --env <name>                 one run's cases, each failing step with what was expected
  environment set <agent> --env <name> --evaluation-gate on|off
                                                       with the gate on, a publish runs the draft's cases first and
                                                       is refused when one fails; a promotion needs a passing run

Skills of the followed skill registries (the config's skillRegistries):
  skill list [--registry <id>]                         each registry's commit and skills (registry/slug, description)
  skill add <agent> --env <name> <registry>/<skill>    copy a skill into the environment's draft (Maintainer)

Collections your organization connects (its agents are offered only those; Organization Administrators change them):
  collection list --org <org>                          each collection: token or OAuth app, connected or not
  collection set-token <collection> --org <org> < FILE store your organization's token (read from standard input)
  collection connect <collection> --org <org>          sign in through the collection's OAuth app: prints the URL
  collection disconnect <collection> --org <org>       remove the connection (an OAuth grant is revoked)

The design agent (Maintainer of the agent; it changes the environment's draft only, never publishes):
  design <agent> --env <name> --message TEXT [--thread ID]
                                                       one message; prints the reply as it streams, each tool it
                                                       calls on stderr, and "thread <id>" to continue with --thread

Incoming connections (<agent> is an agent id or slug):
  connection create --agent <slug> --env <name> --id <identifier> --protocol agui|mcp|webhook --auth public|bearer|oidc
                    [--issuer URL --audience A [--jwks-url URL] [--algorithms RS256,…]] [--origins a,b] [--rate CALLER,ENDPOINT]
                                                       register; prints the endpoint URL and, in bearer mode, the token once
  connection list --agent <slug> --env <name>          identifier, protocol, auth, status, URL
  connection show|regenerate-token|delete --agent <slug> --env <name> --id <identifier>
                                                       regenerate-token prints the new token once; the old stops at once

Trigger deployments:
  deployment list --agent <slug> --env <name>          each trigger deployment: status, connection, retry; messages of errors
  deployment retry --agent <slug> --env <name>         Retry now: try every deployment of the environment again

Operating the stores directly (with the deployment's environment):
  config resolve [--base64] [--file PATH]              validate the config as a boot would; print it as one JSON line
  data-updates list|apply                              list pending data updates, or apply them as a boot would
  data-updates quarantine <collection> <id>            set aside a document a boot refuses (into quarantined_documents)
  secrets move --from db|cloud-secrets-manager --to … [--ids a,b] [--apply]
                                                       move credential secrets between stores (stop the service first)
  failed-jobs list [--limit N]                         the newest failed jobs the dispatchers recorded (queue, job, ids, reason)
  deployment-passes list|apply [--agent <id>]          after a release changing trigger deployments: list, or request,
                                                       a reconciliation of every environment (of one agent)

Environment: CAIRN_URL (default http://127.0.0.1:8080), CAIRN_TOKEN.`;

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv, allowPositionals: true, strict: true,
      options: {
        url: { type: 'string' }, token: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' },
        project: { type: 'string' }, publish: { type: 'boolean' }, 'page-size': { type: 'string' }, models: { type: 'string' }, expires: { type: 'string' }, name: { type: 'string' },
        tool: { type: 'string' }, status: { type: 'string' }, limit: { type: 'string' },
        'token-id': { type: 'string' }, base64: { type: 'boolean' }, file: { type: 'string' }, apply: { type: 'boolean' },
        from: { type: 'string' }, to: { type: 'string' }, ids: { type: 'string' },
        agent: { type: 'string' }, org: { type: 'string' }, env: { type: 'string' },
        workflow: { type: 'string' }, trigger: { type: 'string' }, message: { type: 'string' }, var: { type: 'string', multiple: true }, field: { type: 'string', multiple: true },
        wait: { type: 'boolean' }, comment: { type: 'string' },
        id: { type: 'string' }, protocol: { type: 'string' }, auth: { type: 'string' }, issuer: { type: 'string' }, audience: { type: 'string' },
        'jwks-url': { type: 'string' }, algorithms: { type: 'string' }, origins: { type: 'string' }, rate: { type: 'string' },
        case: { type: 'string' }, junit: { type: 'string' }, draft: { type: 'boolean' }, 'evaluation-gate': { type: 'string' },
        record: { type: 'boolean' }, replay: { type: 'string' }, thread: { type: 'string' }, registry: { type: 'string' },
      },
    });
  } catch (error) {
    console.error(`cairn: ${(error as Error).message} (see cairn --help)`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) { console.log(help); return positionals.length === 0 && !values.help ? 2 : 0; }
  const target = { url: values.url ?? process.env.CAIRN_URL ?? 'http://127.0.0.1:8080', token: values.token ?? process.env.CAIRN_TOKEN };
  const [group, ...rest] = positionals;
  try {
    const note = (line: string) => console.error(terminalSafe(line));
    const appDirOf = () => appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR);
    let out: CommandOutput & { exitCode?: number };
    if (group === 'agent') out = await runAgent(rest, target, { agent: values.agent, org: values.org, env: values.env, publish: values.publish });
    else if (group === 'session') out = await runSession(target, rest, values, { note });
    else if (group === 'eval') out = await runEval(target, rest, { ...values, note });
    else if (group === 'environment') out = await runEnvironment(target, rest, values);
    else if (group === 'skill') out = await runSkill(target, rest, values);
    else if (group === 'collection') out = await runCollection(target, rest, values);
    else if (group === 'design') out = await runDesign(target, rest, { ...values, note, write: (text) => process.stdout.write(terminalSafe(text)) });
    else if (group === 'connection') out = await runConnection(target, rest, values);
    else if (group === 'deployment') out = await runDeployment(target, rest, values);
    else if (group === 'semantic') out = await runSemantic(target, rest, { ...values, token: values['token-id'] }, note);
    else if (group === 'config') out = runConfig(rest, values, { env: process.env, appDir: appDirOf(), note });
    else if (group === 'data-updates') out = await runDataUpdates(rest, process.env, values.json ? note : (line) => console.log(line));
    else if (group === 'deployment-passes') out = await runDeploymentPasses(rest, values, process.env, values.json ? note : (line) => console.log(line));
    else if (group === 'failed-jobs') out = await runFailedJobs(rest, values, process.env);
    else if (group === 'secrets') out = await runSecrets(rest, values, process.env, values.json ? note : (line) => console.log(line));
    else throw new CliError(`unknown command "${group}" (see cairn --help)`, 2);
    if (values.json) console.log(terminalSafeJson(JSON.stringify(out.data, null, 2)));
    else if (out.human) console.log(terminalSafe(out.human));
    return out.exitCode ?? 0;
  } catch (error) {
    console.error(`cairn: ${terminalSafe(error instanceof Error ? error.message : String(error))}`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
