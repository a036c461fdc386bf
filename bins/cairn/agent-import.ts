/**
 * `cairn agent import <dir> --agent <slug> [--org <id>] [--env <name>] [--publish]`: reads an agent
 * repository from disk, creates the agent when its organization has none with that slug (in `--org`, or
 * the caller's only, default or personal organization), saves every file as one commit on the
 * environment's draft (default `main`; the files replace the draft's), and with `--publish` publishes it
 * (a queued environment operation: the command waits for it to end, at most 120 s).
 * Prints the commit and the published build; a refused publish prints each problem as
 * `file:line:col key: message` and exits 1.
 *
 * Source: docs/decisions.md D7 § Operators, § Agents and environments.
 */
import { lstat, readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { listFiles } from '../../core/adapters/runtime/list-files.ts';
import type { AgentFile } from '../../core/agent/index.ts';
import { describeAgent } from '../../core/agent/agents.ts';
import { callApi, CliError, uploadBytes, type ApiTarget } from './api-client.ts';
import { runEnvironmentOperation, type OperationProblem } from './environment-operation.ts';
import type { CommandOutput } from './semantic-commands.ts';
import { terminalSafe } from './terminal-text.ts';

/** The command's output and its exit code (1 when publish was refused). */
export type AgentImportOutput = CommandOutput & { exitCode?: number };

/** Options of the import command. */
export interface AgentImportOptions {
  agent?: string;
  org?: string;
  env?: string;
  publish?: boolean;
}

interface OrgView { id: string; name: string; kind: string }
interface AgentView { id: string; slug: string; name: string }
interface EnvView { name: string; draft: { commitId: string }; published: { buildId: string; commitId: string; counts: Record<string, number> } | null }
type Problem = OperationProblem;


/** Every regular file of `dir` (but `.git` and symbolic links) as UTF-8 text. @throws CliError when `dir` is not a directory */
export async function readImportFiles(dir: string): Promise<AgentFile[]> {
  if (!(await lstat(dir).catch(() => undefined))?.isDirectory()) throw new CliError(`${dir} is not a directory: give the folder holding AGENTS.md, workflows/ and skills/`);
  const paths = (await listFiles(dir)).sort();
  return Promise.all(paths.map(async (path) => ({ path: relative(dir, path).split(sep).join('/'), text: await readFile(path, 'utf8') })));
}

async function organizationOf(target: ApiTarget, org: string | undefined): Promise<string> {
  if (org) return org;
  const { organizations } = await callApi<{ organizations: OrgView[] }>(target, 'GET', '/api/orgs');
  const chosen = organizations.length === 1 ? organizations[0] : organizations.find((o) => o.kind === 'default') ?? organizations.find((o) => o.kind === 'personal');
  if (!chosen) throw new CliError(`you are a member of ${organizations.length} organizations; choose one with --org (${organizations.map((o) => o.id).join(', ') || 'none'})`, 2);
  return chosen.id;
}

/** The agent `slug` of `org`, created when missing and named `name`. */
async function agentOf(target: ApiTarget, org: string, slug: string, name: string): Promise<{ agent: AgentView; created: boolean }> {
  const { agents } = await callApi<{ agents: AgentView[] }>(target, 'GET', `/api/orgs/${encodeURIComponent(org)}/agents`);
  const existing = agents.find((a) => a.slug === slug);
  if (existing) return { agent: existing, created: false };
  const path = `/api/orgs/${encodeURIComponent(org)}/agents`;
  return { agent: await callApi<AgentView>(target, 'POST', path, { slug, name }), created: true };
}

/** Publishes (a queued operation, waited for): the environment after it, or the problems of a refused publish. */
async function publish(target: ApiTarget, envPath: string): Promise<{ env?: EnvView; problems?: Problem[] }> {
  const op = await runEnvironmentOperation<EnvView>(target, envPath, 'publish');
  if (op.status === 'succeeded' && op.result) return { env: op.result };
  if (op.error?.code === 'agent_invalid' && op.error.problems) return { problems: op.error.problems };
  throw new CliError(`${op.error?.message ?? `the publish operation ${op.id} ended ${op.status}`}${op.error?.code ? ` (${op.error.code})` : ''}`);
}

const line = (p: Problem) => terminalSafe(`${p.file}:${p.line}:${p.column} ${p.key}: ${p.message}`, { newlines: false });
const countsText = (c: Record<string, number>) => `${c.workflows} workflow(s), ${c.states} state(s), ${c.triggers} trigger(s), ${c.skills} skill(s), ${c.tests} test case(s)`;

/**
 * Runs the import.
 * @returns output whose `data` is `{ agent, created, environment, problems? }`; exit code 1 when publish was refused
 * @throws CliError with a one-line reason (exit 2 on a usage error)
 */
export async function importAgentCommand(target: ApiTarget, args: string[], options: AgentImportOptions): Promise<AgentImportOutput> {
  const dir = args[0];
  if (!dir || args.length > 1 || !options.agent) throw new CliError('usage: cairn agent import <dir> --agent <slug> [--org <id>] [--env <name>] [--publish]', 2);
  const files = await readImportFiles(dir);
  const env = options.env ?? 'main';
  // A new agent is named as its publish would name it: AGENTS.md's front matter name, else the slug.
  const name = describeAgent(files, options.agent).name;
  const { agent, created } = await agentOf(target, await organizationOf(target, options.org), options.agent, name);
  const envPath = `/api/agents/${encodeURIComponent(agent.id)}/environments/${encodeURIComponent(env)}`;
  const body = new TextEncoder().encode(JSON.stringify({ files, replace: true, message: `Import ${files.length} file(s) with cairn agent import` }));
  const saved = await uploadBytes<EnvView>(target, `${envPath}/files`, body);
  const human = [`agent ${agent.slug} (${agent.id}) ${created ? 'created' : 'found'}`, `saved ${files.length} file(s) to ${env}: commit ${saved.draft.commitId}`];
  if (!options.publish) return { data: { agent, created, environment: saved }, human: human.join('\n') };
  const result = await publish(target, envPath);
  if (result.problems) {
    human.push(...result.problems.map(line), `publish refused: ${result.problems.length} problem(s); fix them and import again`);
    return { data: { agent, created, environment: saved, problems: result.problems }, human: human.join('\n'), exitCode: 1 };
  }
  const published = result.env!.published!;
  human.push(`published build ${published.buildId} at commit ${published.commitId} (${countsText(published.counts)})`);
  return { data: { agent, created, environment: result.env }, human: human.join('\n') };
}
