/**
 * `cairn collection …`: an organization's connections of tool collections (docs/decisions.md D22 §§ 5–8):
 * - `list --org <org>`: each collection, its kind and whether the organization's agents are offered it
 * - `set-token <collection> --org <org>`: stores the organization's own token, read from standard input (never
 *   from the command line, which shells keep in their history)
 * - `connect <collection> --org <org>`: starts an OAuth app's sign-in and prints the URL to open in a browser
 * - `disconnect <collection> --org <org>`: removes the connection (an OAuth grant is revoked at the provider)
 *
 * Source: issue "Skill registries, and collections with per-organization credentials and OAuth apps" § Collections
 * per organization.
 */
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';

/** Options of the collection commands, as given on the command line. */
export interface CollectionOptions {
  org?: string;
  /** Reads standard input whole (the token of set-token). */
  readStdin?: () => Promise<string>;
}

const usage = 'cairn collection list|set-token <collection>|connect <collection>|disconnect <collection> --org <org>';

interface Collection {
  id: string;
  kind: 'token' | 'oauth';
  offered: boolean;
  usesDeploymentToken: boolean;
  connection: null | { status: string; connectedBy: string; connectedAt: string; reconnectReason?: string };
  app?: { id: string };
}

/** Runs `cairn collection <args>`. @throws CliError with a one-line reason (exit 2 on a usage error) */
export async function runCollection(target: ApiTarget, args: string[], options: CollectionOptions): Promise<CommandOutput> {
  const [command, collection, ...more] = args;
  if (!options.org || more.length > 0) throw new CliError(`usage: ${usage}`, 2);
  const base = `/api/orgs/${encodeURIComponent(options.org)}/collections`;
  if (command === 'list' && collection === undefined) return list(target, base);
  if (!collection) throw new CliError(`usage: ${usage}`, 2);
  const path = `${base}/${encodeURIComponent(collection)}`;
  if (command === 'set-token') {
    const token = (await (options.readStdin ?? readAll)()).trim();
    if (!token) throw new CliError('give the token on standard input, e.g. cairn collection set-token crm --org <org> < token.txt', 2);
    const view = await callApi<Collection>(target, 'PUT', `${path}/token`, { token });
    return { data: view, human: `${collection}: connected with your organization's token; its agents are offered it` };
  }
  if (command === 'connect') {
    const started = await callApi<{ authorizeUrl: string; app: string }>(target, 'POST', `${path}/connect`);
    return { data: started, human: `open this URL in a browser where you are signed in to cairn, to sign in through the ${started.app} app (valid 10 minutes; its Collections page finishes it):\n${started.authorizeUrl}` };
  }
  if (command === 'disconnect') {
    await callApi(target, 'DELETE', path);
    return { data: { disconnected: collection }, human: `${collection}: disconnected; its agents are no longer offered it` };
  }
  throw new CliError(`usage: ${usage}`, 2);
}

async function list(target: ApiTarget, base: string): Promise<CommandOutput> {
  const answer = await callApi<{ collections: Collection[]; canManage: boolean }>(target, 'GET', base);
  const lines = answer.collections.map((c) => {
    const how = c.kind === 'oauth' ? `oauth (app ${c.app?.id})` : 'token';
    const state = c.connection
      ? c.connection.status === 'connected'
        ? `connected by ${c.connection.connectedBy} on ${c.connection.connectedAt.slice(0, 10)}`
        : `reconnect needed: ${c.connection.reconnectReason ?? 'connect again'}`
      : c.usesDeploymentToken ? 'uses the deployment\'s token' : 'not connected';
    return `${c.id}  ${how}  ${state}${c.offered ? '' : '  (not offered to agents)'}`;
  });
  return { data: answer, human: lines.join('\n') || 'this deployment offers no collection' };
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
