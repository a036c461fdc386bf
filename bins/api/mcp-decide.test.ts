/**
 * Decisions over the MCP endpoint (the route set-up of ./mcp-routes.test.ts: memory stores, two organizations' oidc
 * MCP connections, the issuer's verifier and the dispatcher's queue faked as ports): a call whose session parks
 * answers its pending decision; the platform tool `decide` is listed and decides the caller's own session with
 * channel `mcp`; another caller of the same endpoint, a caller of another organization's endpoint and a missing
 * session all get the same "not found" tool error, which names nothing, and nothing moves.
 *
 * Source: docs/decisions.md D26 § 3.
 */
import { describe, expect, it } from 'vitest';
import { agentCollections } from '../../core/agent/hosting-model.ts';
import type { PublishedAgent } from '../../core/agent/hosting.ts';
import { cryptoIds } from '../../core/adapters/runtime/system.ts';
import { systemClock } from '../../core/adapters/runtime/system-clock.ts';
import { connectionCollections, type ConnectionRecord } from '../../core/connection/model.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { mcpRoutes } from './mcp-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const base = 'https://cairn.example.com';
const options = [{ to: 'approved', description: 'Ship it' }, { to: 'rejected', description: 'Send it back' }];
const agent: PublishedAgent = {
  agentPrompt: '', skills: {},
  workflows: { review: { slug: 'review', definition: {} as never, hooks: {}, triggers: [{ id: 'ask', type: 'mcp', workflow: 'review', state: 'draft', fields: { connection: 'assistant', requires: [{ name: 'text', type: 'string' }] } }] } },
};
const subjects: Record<string, string> = { 'jwt-ada': 'ada', 'jwt-cy': 'cy', 'jwt-other-org': 'ada' };

/** One organization's agent, environment and oidc MCP connection at `address`. */
async function endpointOf(docs: DocumentStore, orgId: string, address: string) {
  const now = new Date();
  const agentId = `${orgId}-agent`;
  await docs.collection(agentCollections.environments).insertOne({ _id: `${agentId}:main`, agentId, orgId, name: 'main', published: { buildId: `${orgId}-b`, commitId: 'c1' } } as never);
  await docs.collection<ConnectionRecord>(connectionCollections.connections).insertOne({
    _id: `${agentId}:main:assistant`, schemaVersion: 1, orgId, agentId, environment: 'main', identifier: 'assistant', protocol: 'mcp', auth: 'oidc',
    oidc: { issuer: 'https://id.example.com', audience: 'cairn-mcp', algorithms: ['RS256'] }, origins: [], rate: { perCaller: 100, perEndpoint: 300 }, address, createdAt: now, createdBy: 'u1', updatedAt: now,
  });
}

/**
 * The endpoint; the queued turns run at once as the dispatcher would settle them: a first turn parks in `review`
 * awaiting decision `p1`, a decision turn ends the session succeeded.
 */
async function world() {
  const docs = createMemoryDocumentStore();
  await endpointOf(docs, 'o1', 'addr1');
  await endpointOf(docs, 'o2', 'addr2');
  const store = { docs, objects: createMemoryObjectStore(), clock: systemClock, ids: cryptoIds };
  const enqueueTurn = async (turnId: string) => {
    const turn = (await turnsOf(store).findOne({ _id: turnId }))!;
    const parks = turn.kind !== 'decision';
    const pending = { kind: 'decision', id: 'p1', state: 'review', options };
    await sessionsOf(store).updateOne({ _id: turn.sessionId }, { $set: parks ? { status: 'awaiting_decision', state: 'review', pending } : { status: 'succeeded', pending: null } });
    await turnsOf(store).updateOne({ _id: turnId }, { $set: { status: 'succeeded' } });
  };
  const jwt = { verify: async (token: string) => { if (!subjects[token]) throw new PlatformError('unauthorized', 'The token does not verify.', { status: 401 }); return { subject: subjects[token] }; } };
  const app = mcpRoutes({
    calls: { ...store, enqueueTurn, sleep: async () => undefined, waitMs: 200, builds: { agentOf: async () => agent, workflowOf: async () => { throw new Error('unused'); } } },
    admission: { ids: cryptoIds, jwt, memberMayUse: async () => false }, clientAddress: () => '127.0.0.1', principalOf: () => undefined,
    signInMode: 'dev-user', platformOrigins: [base], appBaseUrl: base, version: 'test', logger,
  });
  const rpc = async (address: string, token: string, method: string, params: unknown) => {
    const response = await app.handle(new Request(`${base}/api/mcp/${address}`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }));
    return (await response.json() as { result: { isError?: boolean; content: { text: string }[]; structuredContent?: Record<string, unknown>; tools?: { name: string }[] } }).result;
  };
  const decide = (address: string, token: string, args: Record<string, unknown>) => rpc(address, token, 'tools/call', { name: 'decide', arguments: args });
  return { store, rpc, decide };
}

describe('decisions over the MCP endpoint', () => {
  it("answers a parked call with its pending decision, and decides the caller's own session with channel mcp", async () => {
    const { store, rpc, decide } = await world();
    const listed = await rpc('addr1', 'jwt-ada', 'tools/list', {});
    expect(listed.tools?.map((t) => t.name)).toEqual(['review', 'decide']);
    const parked = await rpc('addr1', 'jwt-ada', 'tools/call', { name: 'review', arguments: { text: 'draft' } });
    expect(parked.structuredContent).toMatchObject({ status: 'awaiting_decision', decision: { id: 'p1', state: 'review', options } });
    const sessionId = String(parked.structuredContent?.sessionId);
    const refused = await decide('addr1', 'jwt-ada', { sessionId, to: 'maybe' });
    expect(refused).toMatchObject({ isError: true });
    expect(refused.content[0].text).toContain('approved, rejected');
    const decided = await decide('addr1', 'jwt-ada', { sessionId, to: 'approved', comment: 'fine' });
    expect(decided.structuredContent).toMatchObject({ status: 'succeeded', sessionId });
    const turns = await turnsOf(store).find({ sessionId, kind: 'decision' });
    expect(turns.map((t) => t.input.decision)).toEqual([expect.objectContaining({ to: 'approved', channel: 'mcp', by: 'ada' })]);
  });

  it("gives another caller of the endpoint, another organization's endpoint and a missing session the same not found", async () => {
    const { store, rpc, decide } = await world();
    const parked = await rpc('addr1', 'jwt-ada', 'tools/call', { name: 'review', arguments: { text: 'draft' } });
    const sessionId = String(parked.structuredContent?.sessionId);
    const answers = [
      await decide('addr1', 'jwt-cy', { sessionId, to: 'approved' }),
      await decide('addr2', 'jwt-other-org', { sessionId, to: 'approved' }),
      await decide('addr1', 'jwt-ada', { sessionId: 'no-such-session', to: 'approved' }),
    ];
    for (const answer of answers) {
      expect(answer).toEqual({ isError: true, content: [{ type: 'text', text: answers[2].content[0].text }] });
      expect(answer.content[0].text).not.toContain(sessionId);
    }
    expect(answers[2].content[0].text).toMatch(/not|no session/i);
    expect(await turnsOf(store).countDocuments({ kind: 'decision' })).toBe(0);
    expect((await sessionsOf(store).findOne({ _id: sessionId }))?.status).toBe('awaiting_decision');
  });
});
