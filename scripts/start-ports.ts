/**
 * Ports and bind address of `scripts/start`. The front proxy binds HOST (default 127.0.0.1) on PORT
 * (default 8080). The API (API_PORT, 3001), semantic-mcp (SEMANTIC_MCP_PORT, 3002) and the embedded
 * queue store (CAIRN_EMBEDDED_QUEUE_PORT, 6379; only when QUEUE_URL is unset) listen on 127.0.0.1: a
 * default that is taken (a system redis, another dev server) is replaced by a free loopback port, with
 * one line saying which; a port the user set that is taken stops the start with a line naming the variable.
 * The container keeps the spec's fixed internal ports: this is scripts/start's choice only.
 *
 * Source: spec/platform-service.md § Processes of the all-in-one container, § Deployment settings.
 */
import { createServer, type Server } from 'node:net';

/** What scripts/start gives the entrypoint. */
export interface StartPorts {
  host: string;
  publicPort: number;
  apiPort: number;
  semanticMcpPort: number;
  /** Undefined when QUEUE_URL names a store of the user's. */
  queuePort?: number;
  /** Environment for the entrypoint: CAIRN_PROXY_BIND, PORT, API_PORT, SEMANTIC_MCP_PORT, CAIRN_EMBEDDED_QUEUE_PORT. */
  env: Record<string, string>;
}

/** An internal port: its variable, default and what listens there. */
const internal = [
  { name: 'API_PORT', fallback: 3001, what: 'the API' },
  { name: 'SEMANTIC_MCP_PORT', fallback: 3002, what: 'semantic-mcp' },
  { name: 'CAIRN_EMBEDDED_QUEUE_PORT', fallback: 6379, what: 'the embedded queue store' },
] as const;

/**
 * Chooses the ports (holding each until all are chosen, so no two coincide).
 * @param say - receives one line per default replaced
 * @throws Error whose message names the variable: a value that is not a port or address, or a set port that is taken
 */
export async function chooseStartPorts(env: Record<string, string | undefined>, say: (line: string) => void): Promise<StartPorts> {
  const host = bindHost(env);
  const held: Server[] = [];
  try {
    const publicPort = await claimSet('PORT', portValue(env, 'PORT') ?? 8080, host, held, 'the front proxy');
    const chosen: Record<string, number> = {};
    for (const port of internal) {
      if (port.name === 'CAIRN_EMBEDDED_QUEUE_PORT' && set(env, 'QUEUE_URL')) continue;
      const wanted = portValue(env, port.name);
      if (wanted !== undefined) { chosen[port.name] = await claimSet(port.name, wanted, '127.0.0.1', held, port.what); continue; }
      const server = await listen(port.fallback, '127.0.0.1');
      if (server) { held.push(server); chosen[port.name] = port.fallback; continue; }
      const free = (await listen(0, '127.0.0.1'))!;
      held.push(free);
      chosen[port.name] = (free.address() as { port: number }).port;
      say(`port ${port.fallback} is taken on 127.0.0.1, so ${port.what} uses 127.0.0.1:${chosen[port.name]} (set ${port.name} to choose)`);
    }
    const queuePort = chosen.CAIRN_EMBEDDED_QUEUE_PORT;
    return {
      host, publicPort, apiPort: chosen.API_PORT, semanticMcpPort: chosen.SEMANTIC_MCP_PORT, queuePort,
      env: { CAIRN_PROXY_BIND: host, PORT: String(publicPort), ...Object.fromEntries(Object.entries(chosen).map(([k, v]) => [k, String(v)])) },
    };
  } finally {
    await Promise.all(held.map((server) => new Promise((r) => server.close(r))));
  }
}

/** HOST: an IP address to bind the front proxy to (default 127.0.0.1; 0.0.0.0 for every interface). */
function bindHost(env: Record<string, string | undefined>): string {
  const host = env.HOST?.trim() || env.CAIRN_PROXY_BIND?.trim() || '127.0.0.1';
  if (!/^(\d{1,3}(\.\d{1,3}){3}|[0-9a-fA-F:]*:[0-9a-fA-F:.]*|localhost)$/.test(host)) {
    throw new Error('HOST must be an IP address to bind the front proxy to, such as 127.0.0.1 (the default) or 0.0.0.0 (every interface).');
  }
  return host;
}

const set = (env: Record<string, string | undefined>, name: string) => (env[name] ?? '').trim() !== '';

function portValue(env: Record<string, string | undefined>, name: string): number | undefined {
  if (!set(env, name)) return undefined;
  const value = env[name]!.trim();
  if (!/^[1-9][0-9]{0,4}$/.test(value) || Number(value) > 65_535) throw new Error(`${name} must be a port number from 1 to 65535.`);
  return Number(value);
}

async function claimSet(name: string, port: number, host: string, held: Server[], what: string): Promise<number> {
  const server = await listen(port, host).catch((error: NodeJS.ErrnoException) => {
    throw new Error(`${name}=${port} cannot be bound on ${host} (${error.code ?? error.message}${port < 1024 ? '; ports below 1024 need privileges' : ''}): set ${name} to another port.`);
  });
  if (!server) throw new Error(`${name}=${port} is taken on ${host} (another process listens there), so ${what} cannot use it: stop that process or set ${name} to a free port${name === 'PORT' ? '' : ` (or unset ${name} to let scripts/start pick one)`}.`);
  held.push(server);
  return port;
}

/** A server listening on host:port, or undefined when the port is taken. */
function listen(port: number, host: string): Promise<Server | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen({ port, host, exclusive: true }, () => resolve(server));
  });
}
