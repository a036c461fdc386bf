/**
 * Installs an agent repository through the platform's HTTP API as a signed-in member would (no CLI): creates
 * the agent in an organization, saves every file of the directory on the `main` draft, publishes it and waits
 * for the queued operation, then registers the incoming connections asked for. For browser tests under oidc,
 * where the dev-user demo seeding does not run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** A connection to register after the publish. */
export interface ConnectionToRegister { identifier: string; protocol: 'agui' | 'mcp' | 'webhook'; auth: 'public' | 'bearer'; origins?: string[] }

function filesOf(dir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const full = join(at, name);
      if (statSync(full).isDirectory()) walk(full);
      else out.push({ path: relative(dir, full).split('\\').join('/'), text: readFileSync(full, 'utf8') });
    }
  };
  walk(dir);
  return out;
}

/**
 * Creates agent `slug` in `orgId` from `dir`, publishes `main` and registers `connections`, as the holder of `token`.
 * @returns the agent's id
 * @throws Error naming the step and the API's answer when one fails
 */
export async function installAgentOverApi(base: string, token: string, orgId: string, dir: string, slug: string, connections: ConnectionToRegister[] = []): Promise<string> {
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${base}${path}`, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status} ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  };
  const agent = await call<{ id: string }>('POST', `/api/orgs/${encodeURIComponent(orgId)}/agents`, { slug });
  const env = `/api/agents/${encodeURIComponent(agent.id)}/environments/main`;
  await call('PUT', `${env}/files`, { files: filesOf(dir), replace: true, message: 'installed by a test' });
  type Operation = { operation: { id: string; status: string; error: unknown } };
  let { operation } = await call<Operation>('POST', `${env}/publish`, {});
  for (let i = 0; i < 400 && (operation.status === 'queued' || operation.status === 'running'); i += 1) {
    await new Promise((r) => setTimeout(r, 300));
    ({ operation } = await call<Operation>('GET', `/api/agents/${encodeURIComponent(agent.id)}/operations/${encodeURIComponent(operation.id)}`));
  }
  if (operation.status !== 'succeeded') throw new Error(`publishing ${slug} ended ${operation.status}: ${JSON.stringify(operation.error)}`);
  for (const c of connections) await call('POST', `${env}/connections`, c);
  return agent.id;
}
