/**
 * Limits the spec names, through the front proxy of the real product (entrypoint, Caddy, API):
 * - the per-user ceiling (PLATFORM_USER_RATE_PER_MINUTE): with the ceiling at 5, nine session starts in a row by
 *   one member give five 201s, then 429 with Retry-After; a reply is refused the same way, reading is not counted;
 * - owner-supplied outbound URLs: an oidc connection whose issuer or JWKS URL is local, loopback, private or plain
 *   http is refused with 400 naming PLATFORM_ALLOW_PRIVATE_URLS;
 * - a 20 KiB request header line passes every hop; one over 32 KiB is refused by the proxy (431);
 * - semantic-mcp (MCP_RATE_LIMIT_MAX 5) counts the platform's tool calls per calling organization and agent: one
 *   organization's agent using up its calls leaves another's answered, though both come from the same address; one
 *   token naming made-up agents gets at most 10 × the limit in all.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_USER_RATE_PER_MINUTE), § Errors,
 * § Limits; docs/decisions.md D17 § 6.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceCatalog } from '../../core/adapters/mcp-services/index.ts';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { flightsModel, projectDir } from '../helpers/semantic-fixtures.ts';

let product: RunningProduct;
let semanticToken: string;

beforeAll(async () => {
  product = await startProduct({ PLATFORM_USER_RATE_PER_MINUTE: '5', MCP_RATE_LIMIT_MAX: '5' });
  const cairn = (...args: string[]) => runCairn(product.url, args);
  const demoAgent = join(repoRoot, 'scripts/demo/agent');
  const imported = cairn('agent', 'import', demoAgent, '--agent', 'flights-analyst', '--publish');
  expect(imported.status, imported.stderr).toBe(0);
  expect(cairn('semantic', 'import', projectDir([flightsModel]), '--project', 'flights', '--publish').status).toBe(0);
  semanticToken = cairn('semantic', 'token', 'create', 'flights', '--models', 'flights').stdout.trim();
}, 180_000);

afterAll(async () => { await product?.stop(); });

const post = (path: string, body: unknown) => fetch(`${product.url}${path}`, {
  method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
});

describe('PLATFORM_USER_RATE_PER_MINUTE through the proxy', () => {
  it('answers 429 with Retry-After from the sixth session start of a minute, and counts replies too', async () => {
    type Body = { session?: { id: string }; error?: { code: string; message: string } };
    const answers: { status: number; retryAfter: string | null; body: Body }[] = [];
    const start = { agent: 'flights-analyst', environment: 'main', workflow: 'flights-analyst' };
    for (let i = 0; i < 9; i += 1) {
      const response = await post('/api/sessions', { ...start, message: `question ${i}` });
      const body = await response.json() as Body;
      answers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), body });
    }
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 429, 429, 429, 429]);
    for (const refused of answers.slice(5)) {
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
      expect(refused.body.error?.code).toBe('rate_limited');
      expect(refused.body.error?.message).toMatch(/try again in \d+ s/);
    }
    const reply = await post(`/api/sessions/${answers[0].body.session!.id}/reply`, { message: 'more' });
    expect(reply.status).toBe(429);
    expect(reply.headers.get('retry-after')).not.toBeNull();
    // Reading starts no work: not counted, not refused.
    expect((await fetch(`${product.url}/api/sessions/${answers[0].body.session!.id}`)).status).toBe(200);
  }, 60_000);
});

describe('owner-supplied outbound URLs through the proxy', () => {
  it('refuses an oidc connection whose issuer or JWKS URL is local, loopback, private or plain http', async () => {
    const base = '/api/agents/flights-analyst/environments/main/connections';
    const create = async (identifier: string, oidc: Record<string, string>) => {
      const body = { identifier, protocol: 'mcp', auth: 'oidc', oidc: { audience: 'tools', ...oidc } };
      const response = await post(base, body);
      return { status: response.status, body: await response.json() as { error?: { code: string; message: string } } };
    };
    const refused: Record<string, string>[] = [
      { issuer: 'https://127.0.0.2:9' }, { issuer: 'https://localhost:9' }, { issuer: 'https://192.168.1.20' },
      { issuer: 'http://id.example.com' },
      { issuer: 'https://id.example.com', jwksUrl: 'https://169.254.169.254/keys' },
    ];
    for (const [i, oidc] of refused.entries()) {
      const answer = await create(`guarded-${i}`, oidc);
      expect(answer.status, JSON.stringify(oidc)).toBe(400);
      expect(answer.body.error?.message).toMatch(/^oidc\.(issuer|jwksUrl): .*PLATFORM_ALLOW_PRIVATE_URLS=true/);
    }
    expect((await create('public-issuer', { issuer: 'https://id.example.com' })).status).toBe(201);
  });
});

describe('request header lines through the proxy', () => {
  it('passes a 20 KiB header line to the API and refuses one over 32 KiB at the proxy', async () => {
    const withHeader = (bytes: number) => fetch(`${product.url}/api/sessions`, {
      headers: { 'x-filler': 'a'.repeat(bytes) },
    });
    expect((await withHeader(20 * 1024)).status).toBe(200);
    expect((await withHeader(31 * 1024)).status).toBe(200);
    expect((await withHeader(40 * 1024)).status).toBe(431);
  });
});

describe('semantic tool calls of hosted agents', () => {
  it('counts per calling organization and agent: one agent over the limit leaves another answered', async () => {
    const service = { id: 'semantic', endpoint: `${product.url}/mcp/flights/mcp`, token: semanticToken };
    const catalog = createServiceCatalog({ services: [service], log: () => undefined });
    try {
      await catalog.warm();
      const list = (orgId: string, agentId: string) =>
        catalog.call('semantic', 'list_semantic_models', {}, { orgId, agentId });
      const greedy = [];
      for (let i = 0; i < 7; i += 1) greedy.push(await list('org-a', 'agent-1'));
      expect(greedy.slice(0, 5).map((r) => r.isError)).toEqual([false, false, false, false, false]);
      expect(greedy[5]).toMatchObject({ isError: true, output: expect.stringMatching(/429|Too many requests/) });
      const other = await list('org-b', 'agent-2');
      expect(other.isError, JSON.stringify(other.output)).toBe(false);
      expect(JSON.stringify(other.output)).toContain('flights');
      // Naming made-up agents gets a token holder no more than 10 × the limit in all (6 of its 50 calls are spent).
      const spoofed = [];
      for (let i = 0; i < 45; i += 1) spoofed.push(await list('org-a', `made-up-${Math.floor(i / 5)}`));
      expect(spoofed.slice(0, 44).every((r) => !r.isError)).toBe(true);
      expect(spoofed[44]).toMatchObject({ isError: true, output: expect.stringMatching(/429/) });
    } finally {
      await catalog.close();
    }
  }, 60_000);
});
