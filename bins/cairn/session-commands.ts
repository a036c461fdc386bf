/**
 * `cairn session …`: start, list, show [--wait], decide, reply and cancel sessions of hosted agents over
 * the session JSON routes (`/api/sessions`, `/api/agents/:agent/…/sessions`). `--json` prints the API's
 * answer as it is; the human text is in session-format.ts.
 *
 * Source: docs/decisions.md D7 § Operators; spec/platform-service.md (sessions).
 */
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';
import { formatList, formatShow, formatStarted, type SessionDetail, type SessionView } from './session-format.ts';

/** Options of the session commands, as given on the command line. */
export interface SessionOptions {
  agent?: string;
  env?: string;
  org?: string;
  workflow?: string;
  trigger?: string;
  message?: string;
  /** `k=v` pairs of `--var` (repeatable). */
  var?: string[];
  wait?: boolean;
  to?: string;
  comment?: string;
  /** `k=v` pairs of `--field` (repeatable): the values of the fields a decision asks for. */
  field?: string[];
}

/** How `show --wait` polls: every `intervalMs` (default 500) for at most `timeoutMs` (default 120 000). */
export interface WaitTiming { intervalMs: number; timeoutMs: number }

/** The command's output and its exit code (1 when `--wait` ran out of time). */
export type SessionCommandOutput = CommandOutput & { exitCode?: number };

const usages = {
  start: 'cairn session start <agent> <workflow> --env <name> [--org <id>] [--trigger <id>] [--message TEXT] [--var k=v]…',
  list: 'cairn session list --agent <slug> [--env <name>] [--workflow <slug>] [--org <id>]',
  show: 'cairn session show <id> [--wait]',
  decide: 'cairn session decide <id> --to <state> [--comment TEXT] [--field k=v]…',
  reply: 'cairn session reply <id> TEXT',
  cancel: 'cairn session cancel <id>',
};

const usageError = (usage: string, why?: string): CliError => new CliError(`${why ? `${why}; ` : ''}usage: ${usage}`, 2);
const path = (...parts: string[]): string => parts.map(encodeURIComponent).join('/');

/** Exactly `count` positionals, else a usage error naming the command's form. */
function positionals(rest: string[], count: number, usage: string): string[] {
  if (rest.length < count) throw usageError(usage);
  if (rest.length > count) throw usageError(usage, `unexpected argument "${rest[count]}" (quote a text with spaces)`);
  return rest;
}

/**
 * `--var k=v` pairs as session variables (or `--field k=v` pairs as a decision's field values, `flag`): `true`/`false` → boolean, integers and decimals (`-3`, `0.5`) →
 * number, anything else → text (`k=` is the empty text; `=` inside the value is kept).
 * @throws CliError (exit 2) for a pair without `=` or with an empty name, or a name given twice
 */
export function parseVariables(
  pairs: string[] = [],
  flag: { name: string; usage: string } = { name: '--var', usage: usages.start },
): Record<string, string | number | boolean> {
  const variables: Record<string, string | number | boolean> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw usageError(flag.usage, `${flag.name} "${pair}" is not k=v`);
    const key = pair.slice(0, at);
    if (Object.hasOwn(variables, key)) throw usageError(flag.usage, `${flag.name} ${key} is given twice`);
    const value = pair.slice(at + 1);
    variables[key] = value === 'true' ? true : value === 'false' ? false : /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return variables;
}

/** The body of `POST /api/sessions` for `start <agent> <workflow>`. @throws CliError (exit 2) on a usage error */
export function startBody(rest: string[], options: SessionOptions): Record<string, unknown> {
  const [agent, workflow] = positionals(rest, 2, usages.start);
  if (!options.env) throw usageError(usages.start, '--env is required');
  const variables = parseVariables(options.var);
  return {
    agent, workflow, environment: options.env,
    ...(options.org ? { orgId: options.org } : {}),
    ...(options.trigger ? { trigger: options.trigger } : {}),
    ...(options.message !== undefined ? { message: options.message } : {}),
    ...(Object.keys(variables).length > 0 ? { variables } : {}),
  };
}

/**
 * The route of `list`: the agent's, the environment's or the workflow's sessions (`options.org` is not part
 * of it: {@link listSessions} first turns a slug into the agent's id in that organization).
 * @throws CliError (exit 2) without --agent, or with --workflow but no --env
 */
export function listPath(options: SessionOptions): string {
  if (!options.agent) throw usageError(usages.list, '--agent is required');
  if (options.workflow && !options.env) throw usageError(usages.list, '--workflow needs --env');
  let route = `/api/agents/${path(options.agent)}`;
  if (options.env) route += `/environments/${path(options.env)}`;
  if (options.workflow) route += `/workflows/${path(options.workflow)}`;
  return `${route}/sessions`;
}

/** The id of agent `ref` (an id or a slug) in organization `org`. @throws CliError when it has none */
async function agentIdIn(target: ApiTarget, org: string, ref: string): Promise<string> {
  const { agents } = await callApi<{ agents: { id: string; slug: string }[] }>(target, 'GET', `/api/orgs/${path(org)}/agents`);
  const found = agents.find((a) => a.slug === ref) ?? agents.find((a) => a.id === ref);
  if (!found) throw new CliError(`organization ${org} has no agent "${ref}"; its agents: ${agents.map((a) => a.slug).join(', ') || 'none'}`);
  return found.id;
}

/** `list`: with --org, the agent's slug is looked up in that organization first. */
async function listSessions(target: ApiTarget, rest: string[], options: SessionOptions): Promise<SessionCommandOutput> {
  positionals(rest, 0, usages.list);
  listPath(options);
  const agent = options.org ? await agentIdIn(target, options.org, options.agent!) : options.agent;
  const answer = await callApi<{ sessions: SessionView[] }>(target, 'GET', listPath({ ...options, agent }));
  return { data: answer, human: formatList(answer.sessions) };
}

/** Polls `GET /api/sessions/:id` until its status is not `running`. @returns the last answer and whether it settled */
export async function waitForSession(target: ApiTarget, id: string, timing: WaitTiming): Promise<{ detail: SessionDetail; settled: boolean }> {
  const deadline = performance.now() + timing.timeoutMs;
  for (;;) {
    const detail = await callApi<SessionDetail>(target, 'GET', `/api/sessions/${path(id)}`);
    if (detail.session.status !== 'running') return { detail, settled: true };
    if (performance.now() + timing.intervalMs > deadline) return { detail, settled: false };
    await new Promise((resolve) => setTimeout(resolve, timing.intervalMs));
  }
}

async function show(
  target: ApiTarget, rest: string[], options: SessionOptions, { note, timing }: Required<SessionCommandIo>,
): Promise<SessionCommandOutput> {
  const [id] = positionals(rest, 1, usages.show);
  if (!options.wait) {
    const detail = await callApi<SessionDetail>(target, 'GET', `/api/sessions/${path(id)}`);
    return { data: detail, human: formatShow(detail) };
  }
  const { detail, settled } = await waitForSession(target, id, timing);
  if (settled) return { data: detail, human: formatShow(detail) };
  note(`session ${id} is still running after ${Math.round(timing.timeoutMs / 1000)} s; run cairn session show ${id} --wait again, or cairn session cancel ${id}`);
  return { data: detail, human: formatShow(detail), exitCode: 1 };
}

async function decide(target: ApiTarget, rest: string[], options: SessionOptions): Promise<SessionCommandOutput> {
  const [id] = positionals(rest, 1, usages.decide);
  if (!options.to) throw usageError(usages.decide, '--to is required');
  const fields = parseVariables(options.field, { name: '--field', usage: usages.decide });
  const body = {
    to: options.to,
    ...(options.comment !== undefined ? { comment: options.comment } : {}),
    ...(options.field?.length ? { fields } : {}),
  };
  const answer = await callApi<{ turnId: string }>(target, 'POST', `/api/sessions/${path(id)}/decide`, body);
  return { data: answer, human: `decided ${options.to} for session ${id}: turn ${answer.turnId} queued` };
}

async function reply(target: ApiTarget, rest: string[]): Promise<SessionCommandOutput> {
  const [id, message] = positionals(rest, 2, usages.reply);
  const answer = await callApi<{ turnId: string }>(target, 'POST', `/api/sessions/${path(id)}/reply`, { message });
  return { data: answer, human: `replied to session ${id}: turn ${answer.turnId} queued` };
}

async function cancel(target: ApiTarget, rest: string[]): Promise<SessionCommandOutput> {
  const [id] = positionals(rest, 1, usages.cancel);
  const answer = await callApi<{ session: SessionView }>(target, 'POST', `/api/sessions/${path(id)}/cancel`, {});
  return { data: answer, human: `session ${answer.session.id}: status ${answer.session.status}, state ${answer.session.state}` };
}

/** Where `cairn session` says what it could not answer, and how `show --wait` polls. */
export interface SessionCommandIo {
  /** Where `show --wait` says it ran out of time (stderr). */
  note: (line: string) => void;
  /** How `show --wait` polls. Default: every 500 ms for at most 120 s. */
  timing?: WaitTiming;
}

/**
 * Runs `cairn session <args>` against `target`.
 * @returns `data` is the API's answer (for --json); exit code 1 when `show --wait` ran out of time
 * @throws CliError: the API's message and code (exit 1), or a usage error (exit 2)
 */
export async function runSession(
  target: ApiTarget, args: string[], options: SessionOptions,
  { note, timing = { intervalMs: 500, timeoutMs: 120_000 } }: SessionCommandIo,
): Promise<SessionCommandOutput> {
  const [command, ...rest] = args;
  switch (command) {
    case 'start': {
      const answer = await callApi<{ session: SessionView; turnId: string }>(target, 'POST', '/api/sessions', startBody(rest, options));
      return { data: answer, human: formatStarted(answer) };
    }
    case 'list': return listSessions(target, rest, options);
    case 'show': return show(target, rest, options, { note, timing });
    case 'decide': return decide(target, rest, options);
    case 'reply': return reply(target, rest);
    case 'cancel': return cancel(target, rest);
    default:
      throw new CliError(`unknown command "session ${command ?? ''}". Commands: start, list, show, decide, reply, cancel (see cairn --help).`, 2);
  }
}
