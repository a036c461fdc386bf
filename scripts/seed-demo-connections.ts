/**
 * Seeds the incoming connections the demo agent's triggers name (scripts/demo/agent/workflows/flights-analyst),
 * in environment `main` of agent `flights-analyst`, and returns their endpoint URLs for the start banner:
 * - `chat`: AG-UI, public, browser origins of the local web app (`http://127.0.0.1:<PORT>` and
 *   `http://localhost:<PORT>`) so a page served by cairn can call it;
 * - `tools`: MCP, bearer. Its endpoint token is shown once by the API and deliberately dropped here: it is
 *   neither stored nor printed; a user gets one with `cairn connection regenerate-token … --id tools`;
 * - `hooks`: webhook, public.
 *
 * Idempotent: a connection that exists is left as it is (a member's edits stay), except that the current
 * origins of the web app are added to `chat` when missing (a start on another PORT; like every connection edit it
 * takes effect on the environment's next publish). Endpoint URLs are printed to the terminal only; the spec
 * forbids writing an endpoint address to a file.
 *
 * Source: docs/decisions.md D8 § Done when (against the demo agent that scripts/start seeds); spec/platform-service.md
 * § Incoming connection (browser origins; endpoint token shown once; address never written to a file).
 */
import { api, cairn, type SeedOptions } from './seed-demo.ts';

/** The agent and environment the demo connections belong to. */
export const DEMO_CONNECTION_SCOPE = { agent: 'flights-analyst', environment: 'main' } as const;

/** One demo connection as registered. */
export interface DemoConnectionSpec {
  identifier: 'chat' | 'tools' | 'hooks';
  protocol: 'agui' | 'mcp' | 'webhook';
  auth: 'public' | 'bearer';
}

/** The demo's connections, in banner order. */
export const demoConnections: readonly DemoConnectionSpec[] = [
  { identifier: 'chat', protocol: 'agui', auth: 'public' },
  { identifier: 'tools', protocol: 'mcp', auth: 'bearer' },
  { identifier: 'hooks', protocol: 'webhook', auth: 'public' },
];

/** A seeded connection: what the banner prints. */
export interface DemoEndpoint { identifier: string; protocol: string; auth: string; url: string }

interface ConnectionView { identifier: string; protocol: string; auth: string; origins: string[]; url: string; pendingChange?: { origins: string[] } | null }

/**
 * The browser origins of the local web app at `url` (its own origin, and the same port on `localhost` when
 * `url` is on 127.0.0.1).
 */
export function webAppOrigins(url: string): string[] {
  const origin = new URL(url).origin;
  const local = new URL(url);
  if (local.hostname === '127.0.0.1') local.hostname = 'localhost';
  return [...new Set([origin, local.origin])];
}

/**
 * Creates the missing demo connections and returns every demo endpoint.
 * @throws Error naming the connection and the API's or cairn's answer (the caller retries)
 */
export async function seedDemoConnections(options: SeedOptions): Promise<DemoEndpoint[]> {
  const { agent, environment } = DEMO_CONNECTION_SCOPE;
  const base = `/api/agents/${agent}/environments/${environment}/connections`;
  const listed = await api<{ connections: ConnectionView[] }>(options.url, 'GET', base);
  if (!listed.body) throw new Error(`agent ${agent} has no environment ${environment} yet`);
  const existing = new Map(listed.body.connections.map((c) => [c.identifier, c]));
  const origins = webAppOrigins(options.url);
  const endpoints: DemoEndpoint[] = [];
  for (const spec of demoConnections) {
    let found = existing.get(spec.identifier);
    if (!found) {
      options.log(`registering demo connection ${spec.identifier} (${spec.protocol}, auth ${spec.auth})`);
      const args = ['--json', 'connection', 'create', '--agent', agent, '--env', environment, '--id', spec.identifier, '--protocol', spec.protocol, '--auth', spec.auth];
      if (spec.protocol === 'agui') args.push('--origins', origins.join(','));
      // The answer holds the bearer token of `tools`: it is read for the URL only and goes nowhere else.
      found = (JSON.parse(await cairn(options, args)) as { connection: ConnectionView }).connection;
    } else if (spec.protocol === 'agui' && found.protocol === 'agui') {
      // The origins an earlier start asked for wait as the pending change until the next publish.
      const wanted = found.pendingChange?.origins ?? found.origins;
      if (!wanted.includes('*') && origins.some((o) => !wanted.includes(o))) {
        options.log(`adding ${origins.join(', ')} to the browser origins of demo connection ${spec.identifier} (in effect once environment ${environment} of ${agent} is published again)`);
        await patchOrigins(options.url, `${base}/${spec.identifier}`, [...new Set([...wanted, ...origins])]);
      }
    }
    endpoints.push({ identifier: found.identifier, protocol: found.protocol, auth: found.auth, url: onOrigin(found.url, options.url) });
  }
  return endpoints;
}

/**
 * `endpoint` on the origin of `url`: the API builds endpoint URLs on APP_BASE_URL, which scripts/start sets to its
 * own address unless the user set another (the web dev server's origin, http://localhost:5173, when nothing sets it).
 */
export function onOrigin(endpoint: string, url: string): string {
  const target = new URL(endpoint);
  return `${new URL(url).origin}${target.pathname}`;
}

/** PATCH a connection's browser origins. @throws Error naming the path and the HTTP status */
async function patchOrigins(url: string, path: string, origins: string[]): Promise<void> {
  const response = await fetch(new URL(path, url), { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ origins }) });
  if (!response.ok) throw new Error(`PATCH ${path}: HTTP ${response.status}`);
}

const bannerLabels: Record<string, string> = { agui: 'Demo agent AG-UI chat', mcp: 'Demo agent MCP tool', webhook: 'Demo agent webhook' };

/**
 * The start banner's line for one demo endpoint: label, URL and how a caller is admitted (for bearer, the
 * command that issues a token: the token itself is never printed by scripts/start).
 */
export function demoEndpointLine(endpoint: DemoEndpoint): string {
  const { agent, environment } = DEMO_CONNECTION_SCOPE;
  const label = `${bannerLabels[endpoint.protocol] ?? endpoint.protocol} (${endpoint.identifier}):`.padEnd(29);
  const admission = endpoint.auth === 'bearer'
    ? `needs a token: npx cairn connection regenerate-token --agent ${agent} --env ${environment} --id ${endpoint.identifier}`
    : `auth ${endpoint.auth}`;
  return `${label} ${endpoint.url}  (${admission})`;
}
