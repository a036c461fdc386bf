/**
 * DNS rebinding, through the whole product (entrypoint, Caddy with proxy/Caddyfile, the API) under the default
 * dev-user sign-in: a page of another site whose name resolves to this machine sends its own name in Host and
 * Origin. The front proxy and the API answer such a Host with 421 and change nothing; loopback names, IP literals
 * (HOST=0.0.0.0 reached at the machine's address) and the APP_BASE_URL host keep working; the own-pages rule wants
 * one of the platform's origins, not merely "Origin equals Host"; health checks keep answering.
 *
 * Source: docs/decisions.md D17 § 7; spec/platform-service.md § Authentication rule 1, § Deployment settings
 * (APP_BASE_URL).
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { startProduct, type RunningProduct } from '../helpers/product.ts';

let product: RunningProduct;
let port: number;
let apiPort: number;
let mcpPort: number;
const publicName = 'cairn.test.example';

beforeAll(async () => {
  port = await freePort();
  apiPort = await freePort();
  mcpPort = await freePort();
  product = await startProduct({
    PORT: String(port), API_PORT: String(apiPort), SEMANTIC_MCP_PORT: String(mcpPort),
    APP_BASE_URL: `http://${publicName}:${port}`,
  });
}, 120_000);

afterAll(async () => {
  await product?.stop();
});

interface Answer { status: number; type: string; body: any }

/** One HTTP request to 127.0.0.1:`to` with the Host (and Origin) a browser on `host` would send. */
function send(
  to: number, method: string, path: string, host: string,
  options: { origin?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = {
    ...options.headers, host, ...(options.origin ? { origin: options.origin } : {}),
    ...(body ? { 'content-type': 'application/json' } : {}),
  };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: to, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        const type = String(res.headers['content-type'] ?? '');
        resolve({ status: res.statusCode ?? 0, type, body: type.includes('json') ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const orgNames = async () => (
  (await send(port, 'GET', '/api/orgs', `127.0.0.1:${port}`)).body.organizations as { name: string }[]
).map((o) => o.name);

describe('the Host check (DNS rebinding)', () => {
  it('refuses POST /api/orgs from a rebinding page with 421 and a clear JSON error, creating nothing', async () => {
    const rebound = `rebind.attacker.example:${port}`;
    const before = await orgNames();
    const answer = await send(port, 'POST', '/api/orgs', rebound, {
      origin: `http://${rebound}`, body: { name: 'Rebound' },
    });
    expect(answer.status).toBe(421);
    expect(answer.type).toContain('application/json');
    expect(answer.body.error.code).toBe('misdirected_request');
    expect(answer.body.error.message).toMatch(/APP_BASE_URL/);
    expect(answer.body.error.message).not.toContain('attacker');
    expect(await orgNames()).toEqual(before);
    expect(before).not.toContain('Rebound');
  });

  it.each([
    '/api/orgs', '/api/agents', '/api/semantic/projects', '/api/health', '/healthz', '/', '/mcp/_health',
  ])('refuses GET %s for a foreign name', async (path) => {
    const answer = await send(port, 'GET', path, `rebind.attacker.example:${port}`);
    expect(answer.status).toBe(421);
    expect(answer.body.error.code).toBe('misdirected_request');
  });

  it('refuses a foreign name at the API too, when it is reached without the proxy', async () => {
    const answer = await send(apiPort, 'POST', '/api/orgs', `rebind.attacker.example:${port}`, {
      origin: `http://rebind.attacker.example:${port}`, body: { name: 'Direct' },
    });
    expect(answer.status).toBe(421);
    expect(answer.body.error.code).toBe('misdirected_request');
    expect((await send(apiPort, 'GET', '/api/orgs', `localhost.attacker.example:${apiPort}`)).status).toBe(421);
    expect(await orgNames()).not.toContain('Direct');
  });

  it('refuses a foreign Host at the API\'s own port whatever X-Forwarded-Host of ours it adds', async () => {
    // A rebinding page's same-origin fetch to the API's port: its own name in Host, ours in X-Forwarded-Host.
    const forged = { headers: { 'x-forwarded-host': 'localhost' } };
    for (const path of ['/api/orgs', '/api/semantic/projects']) {
      const answer = await send(apiPort, 'GET', path, 'evil.example', forged);
      expect(answer.status, path).toBe(421);
      expect(answer.body.error.code).toBe('misdirected_request');
    }
    expect((await send(apiPort, 'GET', '/api/orgs', `localhost:${apiPort}`, forged)).status).toBe(200);
    const leaked = { headers: { 'x-forwarded-host': `${publicName}, evil.example` } };
    expect((await send(apiPort, 'GET', '/api/orgs', `127.0.0.1:${apiPort}`, leaked)).status).toBe(421);
    // Through the front proxy the client's Host is checked and passed on; its X-Forwarded-Host is replaced.
    expect((await send(port, 'GET', '/api/orgs', `127.0.0.1:${port}`, leaked)).status).toBe(200);
  });

  it.each([
    'localhost', '127.0.0.1', '[::1]', '192.0.2.10', publicName,
  ])('serves %s (a page of its own creates an organization)', async (name) => {
    const host = `${name}:${port}`;
    const created = await send(port, 'POST', '/api/orgs', host, {
      origin: `http://${host}`, body: { name: `Via ${name}` },
    });
    expect(created.status).toBe(201);
    expect((await send(port, 'GET', '/api/orgs', host)).status).toBe(200);
    expect((await send(port, 'GET', '/', host)).status).toBe(200);
    expect(await orgNames()).toContain(`Via ${name}`);
  });

  it('wants one of the platform\'s origins: a foreign Origin on an own Host is 403, not 421', async () => {
    const answer = await send(port, 'POST', '/api/orgs', `127.0.0.1:${port}`, {
      origin: `http://rebind.attacker.example:${port}`, body: { name: 'Cross' },
    });
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('cross_site_request');
    expect(await orgNames()).not.toContain('Cross');
  });

  it('keeps health checks answering: /healthz through the proxy and /api/health on the API\'s own port', async () => {
    // /healthz is readiness: 503 until this container holds the dispatcher lease, then 200.
    let healthz = 0;
    for (let attempt = 0; attempt < 300 && healthz !== 200; attempt += 1) {
      healthz = (await send(port, 'GET', '/healthz', `127.0.0.1:${port}`)).status;
      if (healthz !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    expect(healthz).toBe(200);
    expect((await send(apiPort, 'GET', '/api/health', `127.0.0.1:${apiPort}`)).status).toBe(200);
    expect((await send(apiPort, 'GET', '/api/health', `localhost:${apiPort}`)).status).toBe(200);
  }, 90_000);
});

describe('the Host check on the semantic admin routes and the MCP endpoints (docs/decisions.md D18 § 5)', () => {
  const own = () => `127.0.0.1:${port}`;
  const rebound = () => `rebind.attacker.example:${port}`;
  const slug = 'rebind-target';
  const tokenIds = async () => ((await send(port, 'GET', `/api/semantic/projects/${slug}/tokens`, own())).body
    .tokens as { id: string }[]).map((t) => t.id);

  beforeAll(async () => {
    const orgs = (await send(port, 'GET', '/api/orgs', own())).body.organizations as { id: string; name: string }[];
    const orgId = orgs.find((o) => o.name === 'Via 127.0.0.1')?.id ?? orgs[0].id;
    const created = await send(port, 'POST', '/api/semantic/projects', own(), {
      origin: `http://${own()}`, body: { slug, orgId },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  });

  it('refuses creating a project and minting a token from a rebinding page, changing nothing', async () => {
    const project = await send(port, 'POST', '/api/semantic/projects', rebound(), {
      origin: `http://${rebound()}`, body: { slug: 'rebound-project' },
    });
    expect(project.status).toBe(421);
    expect(project.body.error.code).toBe('misdirected_request');
    const before = await tokenIds();
    const minted = await send(port, 'POST', `/api/semantic/projects/${slug}/tokens`, rebound(), {
      origin: `http://${rebound()}`, body: { name: 'stolen', models: ['secret_model'] },
    });
    expect(minted.status).toBe(421);
    expect(JSON.stringify(minted.body)).not.toContain('cairn_mcp_');
    expect(await tokenIds()).toEqual(before);
    const projects = (await send(port, 'GET', '/api/semantic/projects', own())).body.projects as { slug: string }[];
    const slugs = projects.map((p) => p.slug);
    expect(slugs).toContain(slug);
    expect(slugs).not.toContain('rebound-project');
  });

  it.each([
    `/api/semantic/projects/${slug}`, `/api/semantic/projects/${slug}/tokens`, `/api/semantic/projects/${slug}/calls`,
  ])('refuses GET %s for a foreign name (and answers it for an own one)', async (path) => {
    expect((await send(port, 'GET', path, rebound())).status).toBe(421);
    expect((await send(port, 'GET', path, own())).status).toBe(200);
  });

  it.each([`/mcp/${slug}/mcp`, `/mcp/${slug}/test/mcp`])(
    'refuses POST %s for a foreign name through the proxy and at semantic-mcp itself',
    async (path) => {
      const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      for (const [to, host] of [[port, rebound()], [mcpPort, `rebind.attacker.example:${mcpPort}`]] as const) {
        const answer = await send(to, 'POST', path, host, { origin: `http://${host}`, body });
        expect(answer.status, `${host} → ${to}`).toBe(421);
        expect(answer.body.error.code).toBe('misdirected_request');
        expect(answer.body.error.message).not.toContain('attacker');
      }
      // An own name reaches the endpoint, which asks for its token.
      expect((await send(port, 'POST', path, own(), { body })).status).toBe(401);
      expect((await send(mcpPort, 'POST', path, `127.0.0.1:${mcpPort}`, { body })).status).toBe(401);
      expect((await send(mcpPort, 'POST', path, `${publicName}:${port}`, { body })).status).toBe(401);
    },
  );
});
