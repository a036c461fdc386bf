import { describe, expect, it } from 'vitest';
import { agentCollections } from '../../core/agent/hosting-model.ts';
import type { PublishedAgent } from '../../core/agent/hosting.ts';
import { cryptoIds } from '../../core/adapters/runtime/system.ts';
import { systemClock } from '../../core/adapters/runtime/system-clock.ts';
import { connectionCollections, type ConnectionRecord } from '../../core/connection/model.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { sessionsOf } from '../../core/session/session-store.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { mcpRoutes } from './mcp-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const agent: PublishedAgent = {
  agentPrompt: '', skills: {},
  workflows: { lookup: { slug: 'lookup', definition: {} as never, hooks: {}, triggers: [{ id: 'ask', type: 'mcp', workflow: 'lookup', state: 'answer', fields: { connection: 'assistant', requires: [{ name: 'question', type: 'string' }] } }] } },
};
const base = 'https://cairn.example.com';

/** The endpoint over memory stores with one oidc MCP connection (1 call per minute per caller); the issuer's verifier is the port faked. */
async function endpoint() {
  const docs = createMemoryDocumentStore();
  const now = new Date();
  await docs.collection(agentCollections.environments).insertOne({ _id: 'a1:main', agentId: 'a1', orgId: 'o1', name: 'main', published: { buildId: 'b1', commitId: 'c1' } } as never);
  await docs.collection<ConnectionRecord>(connectionCollections.connections).insertOne({
    _id: 'a1:main:assistant', schemaVersion: 1, orgId: 'o1', agentId: 'a1', environment: 'main', identifier: 'assistant', protocol: 'mcp', auth: 'oidc',
    oidc: { issuer: 'https://id.example.com', audience: 'cairn-mcp', algorithms: ['RS256'] }, origins: [], rate: { perCaller: 1, perEndpoint: 300 }, address: 'addr1', createdAt: now, createdBy: 'u1', updatedAt: now,
  });
  const jwt = { verify: async (token: string) => { if (token !== 'good-jwt') throw new PlatformError('unauthorized', 'The token does not verify.', { status: 401 }); return { subject: 'client-1' }; } };
  const app = mcpRoutes({
    calls: { docs, objects: createMemoryObjectStore(), clock: systemClock, ids: cryptoIds, enqueueTurn: async () => undefined, sleep: async () => undefined, waitMs: 200, builds: { agentOf: async () => agent, workflowOf: async () => { throw new Error('unused'); } } },
    admission: { ids: cryptoIds, jwt, memberMayUse: async () => false }, clientAddress: () => '127.0.0.1', principalOf: () => undefined,
    signInMode: 'dev-user', platformOrigins: [base], appBaseUrl: base, version: 'test', logger,
  });
  const post = (body: unknown, token = 'good-jwt') => app.handle(new Request(`${base}/api/mcp/addr1`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }, body: JSON.stringify(body),
  }));
  return { app, docs, post };
}

const call = (id: number, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'lookup', arguments: args } });

describe('the MCP endpoint under oidc', () => {
  it('refuses a token that does not verify with 401 and a Bearer challenge naming the protected-resource metadata, which it serves', async () => {
    const { app, post } = await endpoint();
    const refused = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'bad-jwt');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/api/mcp/addr1/.well-known/oauth-protected-resource"`);
    const metadata = await app.handle(new Request(`${base}/api/mcp/addr1/.well-known/oauth-protected-resource`));
    expect(await metadata.json()).toEqual({ resource: `${base}/api/mcp/addr1`, authorization_servers: ['https://id.example.com'], bearer_methods_supported: ['header'] });
    expect((await app.handle(new Request(`${base}/api/mcp/nothing/.well-known/oauth-protected-resource`))).status).toBe(404);
    const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect(await listed.json()).toMatchObject({ id: 2, result: { tools: [{ name: 'lookup' }, { name: 'decide' }] } });
  });

  it('counts only calls that would start a turn against the per-caller rate, answering 429 with Retry-After past it', async () => {
    const { docs, post } = await endpoint();
    const nonConforming = await post(call(1, { question: 7 }));
    expect(await nonConforming.json()).toMatchObject({ result: { isError: true } });
    const first = await post(call(2, { question: 'q' }));
    expect(await first.json()).toMatchObject({ result: { structuredContent: { status: 'running' } } });
    const second = await post(call(3, { question: 'q' }));
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await sessionsOf({ docs }).countDocuments({})).toBe(1);
  });

  it('answers a batch over the rate per call once one of its calls opened a session, '
    + 'and whole (429) while none has', async () => {
    const { docs, post } = await endpoint();
    const batch = await post([
      call(1, { question: 'a' }), { jsonrpc: '2.0', id: 2, method: 'ping' }, call(3, { question: 'b' }),
      call(4, { question: 'c' }),
    ]);
    expect(batch.status).toBe(200);
    const answers = await batch.json() as {
      id: number;
      result?: { structuredContent?: { status: string } };
      error?: { message: string; data: { retryAfterSeconds: number } };
    }[];
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4]);
    expect(answers[0].result?.structuredContent?.status).toBe('running');
    expect(answers[1]).toMatchObject({ result: {} });
    for (const refused of answers.slice(2)) {
      expect(refused.error?.message).toMatch(/^Too many calls from this caller; retry in \d+ s\.$/);
      expect(refused.error?.data.retryAfterSeconds).toBeGreaterThan(0);
    }
    expect(await sessionsOf({ docs }).countDocuments({})).toBe(1);
    const whole = await post([{ jsonrpc: '2.0', id: 5, method: 'tools/list' }, call(6, { question: 'd' })]);
    expect(whole.status).toBe(429);
    expect(Number(whole.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await sessionsOf({ docs }).countDocuments({})).toBe(1);
  });
});
