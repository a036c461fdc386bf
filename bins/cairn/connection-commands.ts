/**
 * `cairn connection …`: register, list, show, regenerate the token of, and delete incoming connections of an
 * agent environment over `/api/agents/:agent/environments/:env/connections`. `create` and `regenerate-token`
 * print the endpoint URL and, in bearer mode, the endpoint token once; `--json` prints the API's answer (with
 * fields `url` and `token`). Every text goes through terminal-safe output in main.ts.
 *
 * Source: docs/decisions.md D8 § Connections, § Operators; spec/platform-service.md § Incoming connection.
 */
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';
import { table } from './semantic-commands.ts';

/** Options of the connection commands, as given on the command line. */
export interface ConnectionOptions {
  agent?: string;
  env?: string;
  id?: string;
  protocol?: string;
  auth?: string;
  issuer?: string;
  audience?: string;
  'jwks-url'?: string;
  algorithms?: string;
  origins?: string;
  rate?: string;
}

/** A connection as the API answers it. */
interface ConnectionView {
  identifier: string;
  protocol: string;
  auth: string;
  oidc?: { issuer: string; audience: string; jwksUrl?: string; algorithms: string[] };
  origins: string[];
  rate: { perCaller: number; perEndpoint: number };
  url: string;
  /** Row status: serving, not_used or error (with `servingCount` and, in error, `statusMessage`). */
  status: string;
  servingCount?: number;
  statusMessage?: string | null;
  /** An edit waiting for the environment's next publish. */
  pendingChange?: { auth: string; origins: string[]; rate: { perCaller: number; perEndpoint: number }; takesEffect: string } | null;
}

/** The row status as text: `not_used`, `serving (N)`, or `error: <the deployment's message>` (`brief`: `error`). */
export function statusText(c: Pick<ConnectionView, 'status' | 'servingCount' | 'statusMessage'>, brief = false): string {
  if (c.status === 'serving') return `serving (${c.servingCount ?? 0})`;
  if (c.status === 'error') return brief || !c.statusMessage ? 'error' : `error: ${c.statusMessage}`;
  return c.status;
}

const usages = {
  create: 'cairn connection create --agent <slug> --env <name> --id <identifier> --protocol agui|mcp|webhook --auth public|bearer|oidc [--issuer URL --audience A [--jwks-url URL] [--algorithms RS256,…]] [--origins a,b] [--rate CALLER,ENDPOINT]',
  list: 'cairn connection list --agent <slug> --env <name>',
  show: 'cairn connection show --agent <slug> --env <name> --id <identifier>',
  'regenerate-token': 'cairn connection regenerate-token --agent <slug> --env <name> --id <identifier>',
  delete: 'cairn connection delete --agent <slug> --env <name> --id <identifier>',
};
type Command = keyof typeof usages;

const usageError = (usage: string, why: string): CliError => new CliError(`${why}; usage: ${usage}`, 2);
const list = (text: string | undefined): string[] | undefined => text === undefined ? undefined : text.split(',').map((s) => s.trim()).filter(Boolean);

/** The collection route of `--agent`/`--env` (and `--id` when `withId`). @throws CliError (exit 2) when one is missing */
export function connectionPath(command: Command, options: ConnectionOptions, withId: boolean): string {
  const names: ('agent' | 'env' | 'id')[] = withId ? ['agent', 'env', 'id'] : ['agent', 'env'];
  for (const name of names) {
    if (!options[name]) throw usageError(usages[command], `--${name} is required`);
  }
  const base = `/api/agents/${encodeURIComponent(options.agent!)}/environments/${encodeURIComponent(options.env!)}/connections`;
  return withId ? `${base}/${encodeURIComponent(options.id!)}` : base;
}

/** The body of `create`. @throws CliError (exit 2) for a missing option or a malformed --rate */
export function createBody(options: ConnectionOptions): Record<string, unknown> {
  for (const name of ['id', 'protocol', 'auth'] as const) if (!options[name]) throw usageError(usages.create, `--${name} is required`);
  const oidcGiven = options.issuer !== undefined || options.audience !== undefined;
  if (oidcGiven && (!options.issuer || !options.audience)) throw usageError(usages.create, 'OIDC needs both --issuer and --audience');
  let rate: { perCaller: number; perEndpoint: number } | undefined;
  if (options.rate !== undefined) {
    const match = /^\s*(\d+)\s*,\s*(\d+)\s*$/.exec(options.rate);
    if (!match) throw usageError(usages.create, `--rate "${options.rate}" is not CALLER,ENDPOINT (two whole numbers of calls per minute)`);
    rate = { perCaller: Number(match[1]), perEndpoint: Number(match[2]) };
  }
  const algorithms = list(options.algorithms);
  return {
    identifier: options.id, protocol: options.protocol, auth: options.auth,
    ...(oidcGiven ? { oidc: { issuer: options.issuer, audience: options.audience, ...(options['jwks-url'] ? { jwksUrl: options['jwks-url'] } : {}), ...(algorithms ? { algorithms } : {}) } } : {}),
    ...(options.origins !== undefined ? { origins: list(options.origins) } : {}),
    ...(rate ? { rate } : {}),
  };
}

/** Human text of one connection (and its token when just issued). */
export function formatConnection(verb: string, c: ConnectionView, token?: string): string {
  const lines = [
    `${verb} connection ${c.identifier}: ${c.protocol}, auth ${c.auth}, ${c.rate.perCaller}/${c.rate.perEndpoint} calls per minute (caller/endpoint), status ${statusText(c)}`,
    `url: ${c.url}`,
    ...(c.oidc ? [`oidc: issuer ${c.oidc.issuer}, audience ${c.oidc.audience}, algorithms ${c.oidc.algorithms.join(',')}${c.oidc.jwksUrl ? `, jwks ${c.oidc.jwksUrl}` : ''}`] : []),
    ...(c.protocol === 'webhook' ? [] : [`origins: ${c.origins.length ? c.origins.join(', ') : 'none (server-to-server only)'}`]),
    ...(c.pendingChange ? [`edit waiting (takes effect ${c.pendingChange.takesEffect}): auth ${c.pendingChange.auth}, ${c.pendingChange.rate.perCaller}/${c.pendingChange.rate.perEndpoint} calls per minute${c.protocol === 'webhook' ? '' : `, origins ${c.pendingChange.origins.join(', ') || 'none'}`}`] : []),
  ];
  if (token) lines.push(`token: ${token}`, 'The token is shown this once: store it now (regenerate-token issues a new one and stops this one).');
  return lines.join('\n');
}

/** Runs `cairn connection <args>`. @throws CliError with a one-line reason (exit 2 on a usage error) */
export async function runConnection(target: ApiTarget, args: string[], options: ConnectionOptions): Promise<CommandOutput> {
  const [command, ...rest] = args;
  if (!command || !(command in usages)) throw new CliError(`unknown connection command "${command ?? ''}"; use one of ${Object.keys(usages).join(', ')} (see cairn --help)`, 2);
  const cmd = command as Command;
  if (rest.length > 0) throw usageError(usages[cmd], `unexpected argument "${rest[0]}"`);
  type One = { connection: ConnectionView; url: string; token?: string };
  switch (cmd) {
    case 'create': {
      const body = createBody(options);
      const answer = await callApi<One>(target, 'POST', connectionPath(cmd, options, false), body);
      return { data: answer, human: formatConnection('created', answer.connection, answer.token) };
    }
    case 'list': {
      const answer = await callApi<{ connections: ConnectionView[] }>(target, 'GET', connectionPath(cmd, options, false));
      if (answer.connections.length === 0) return { data: answer, human: `no connections in ${options.agent}/${options.env}` };
      const rows = table(['IDENTIFIER', 'PROTOCOL', 'AUTH', 'STATUS', 'URL'], answer.connections.map((c) => [c.identifier, c.protocol, c.auth, statusText(c, true), c.url]));
      const errors = answer.connections.filter((c) => c.status === 'error' && c.statusMessage).map((c) => `${c.identifier}: ${c.statusMessage}`);
      return { data: answer, human: [rows, ...(errors.length ? ['', ...errors] : [])].join('\n') };
    }
    case 'show': {
      const answer = await callApi<One>(target, 'GET', connectionPath(cmd, options, true));
      return { data: answer, human: formatConnection('', answer.connection).replace(/^ connection /, 'connection ') };
    }
    case 'regenerate-token': {
      const answer = await callApi<One>(target, 'POST', `${connectionPath(cmd, options, true)}/regenerate-token`, {});
      return { data: answer, human: formatConnection('new token for', answer.connection, answer.token) };
    }
    case 'delete': {
      await callApi(target, 'DELETE', connectionPath(cmd, options, true));
      return { data: { deleted: options.id }, human: `deleted connection ${options.id} (registering the identifier again gives the same URL back)` };
    }
  }
}
