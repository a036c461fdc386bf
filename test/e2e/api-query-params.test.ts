/**
 * Query strings of the real API (bins/api/main.ts over HTTP): every route checks its parameters with
 * TypeBox, answering 400 with the parameter named and what it must be, and every list is capped whatever
 * the caller sends. Before docs/decisions.md D6, `GET …/calls?limit=abc` became NaN and answered the whole call log.
 *
 * Source: spec/platform-service.md § Errors; spec/semantic-query-service.md § Resources
 * (call log entry); docs/decisions.md D6 § 3.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { collections, semanticSchemaVersion, type CallLogRecord, type ImprovementRecord } from '../../core/semantic/records.ts';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

/** More entries than the default page (50) of the call log and of improvements (100). */
const seeded = 120;
let redis: RunningRedis;
let api: RunningApi;
let docs: DocumentStore;

beforeAll(async () => {
  redis = await startRedis();
  api = await startApi(redis.url);
  const created = await fetch(`${api.url}/api/semantic/projects`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'demo' }) });
  expect(created.status).toBe(201);
  const projectId = ((await created.json()) as { id: string }).id;
  docs = await openSqliteDocumentStore({ path: api.docdbPath });
  const now = Date.now();
  for (let i = 0; i < seeded; i += 1) {
    const at = new Date(now - i * 1000);
    await docs.collection<CallLogRecord>(collections.callLog).insertOne({
      _id: `call-${i}`, schemaVersion: semanticSchemaVersion, projectId, tokenId: 'tok-1', tool: 'execute_query', status: i % 2 === 0 ? 'success' : 'error',
      at, plane: 'production', input: { sql: 'SELECT 1' }, output: { text: '1' }, durationMs: 3,
    });
    await docs.collection<ImprovementRecord>(collections.improvements).insertOne({
      _id: `improvement-${i}`, schemaVersion: semanticSchemaVersion, projectId, modelName: 'm', title: `t${i}`, description: 'd', tokenId: 'tok-1', createdAt: at,
    });
  }
}, 60_000);

afterAll(async () => {
  await docs?.close();
  await api?.stop();
  await redis?.stop();
});

const get = async (path: string) => {
  const response = await fetch(`${api.url}${path}`);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> & { error?: { code: string; message: string } } };
};

describe('GET /api/semantic/projects/:slug/calls', () => {
  it('refuses a limit that is not a whole number with 400 naming it, instead of answering the whole log', async () => {
    for (const limit of ['abc', '', '1e3', '2.5', '0x10', 'NaN']) {
      const { status, body } = await get(`/api/semantic/projects/demo/calls?limit=${encodeURIComponent(limit)}`);
      expect(status, `limit=${limit}`).toBe(400);
      expect(body.error).toEqual({ code: 'invalid_argument', message: 'Query parameter "limit" must be a whole number from 1 to 500 (default 50).' });
    }
  });

  it('refuses a limit outside 1 to 500, a bad status, an unknown or repeated parameter', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'Query parameter "limit" must be a whole number from 1 to 500 (default 50).'],
      ['limit=-5', 'Query parameter "limit" must be a whole number from 1 to 500 (default 50).'],
      ['limit=100000', 'Query parameter "limit" must be a whole number from 1 to 500 (default 50).'],
      ['status=maybe', 'Query parameter "status" must be "success" or "error".'],
      ['tool=', 'Query parameter "tool" must be a tool name (1 to 200 characters).'],
      ['limitt=5', 'Unknown query parameter "limitt"; this route takes "tool", "status", "token", "from", "to", "limit".'],
      ['%1B%5B31m=1', 'A query parameter is not one this route takes; this route takes "tool", "status", "token", "from", "to", "limit".'],
      ['limit=5&limit=6', 'Give the query parameter "limit" once.'],
    ];
    for (const [query, message] of cases) {
      const { status, body } = await get(`/api/semantic/projects/demo/calls?${query}`);
      expect({ query, status, body: body.error }).toEqual({ query, status: 400, body: { code: 'invalid_argument', message } });
    }
  });

  it('answers the default page (50), the limit asked, and filters, newest first', async () => {
    const page = await get('/api/semantic/projects/demo/calls');
    expect(page.status).toBe(200);
    expect((page.body.calls as CallLogRecord[]).map((c) => c._id)).toEqual(Array.from({ length: 50 }, (_, i) => `call-${i}`));
    expect(((await get('/api/semantic/projects/demo/calls?limit=7')).body.calls as unknown[])).toHaveLength(7);
    expect(((await get('/api/semantic/projects/demo/calls?limit=500')).body.calls as unknown[])).toHaveLength(seeded);
    const errors = (await get('/api/semantic/projects/demo/calls?status=error&limit=3')).body.calls as CallLogRecord[];
    expect(errors.map((c) => c._id)).toEqual(['call-1', 'call-3', 'call-5']);
  });
});

describe('GET /api/semantic/projects/:slug/improvements', () => {
  it('answers the newest 100 by default, the limit asked, and refuses a bad limit', async () => {
    expect(((await get('/api/semantic/projects/demo/improvements')).body.improvements as unknown[])).toHaveLength(100);
    expect(((await get('/api/semantic/projects/demo/improvements?limit=4')).body.improvements as ImprovementRecord[]).map((i) => i.title)).toEqual(['t0', 't1', 't2', 't3']);
    const { status, body } = await get('/api/semantic/projects/demo/improvements?limit=abc');
    expect(status).toBe(400);
    expect(body.error?.message).toBe('Query parameter "limit" must be a whole number from 1 to 500 (default 100).');
  });
});

describe('routes that take no query parameters', () => {
  it('refuse any parameter with 400 naming it', async () => {
    for (const path of ['/api/semantic/projects/demo', '/api/semantic/projects/demo/tokens', '/api/health',
      '/api/health/ready', '/api/sign-in-settings', '/api/branding']) {
      const { status, body } = await get(`${path}?limit=abc`);
      expect({ path, status, body: body.error }).toEqual({ path, status: 400, body: { code: 'invalid_argument', message: 'This route takes no query parameters; remove "limit".' } });
    }
    // The project list takes one: the organization (docs/decisions.md D17 § 1).
    const { status, body } = await get('/api/semantic/projects?limit=abc');
    expect({ status, body: body.error }).toEqual({
      status: 400,
      body: { code: 'invalid_argument', message: 'Unknown query parameter "limit"; this route takes "orgId".' },
    });
  });

  it('still answer without parameters', async () => {
    for (const path of ['/api/semantic/projects', '/api/semantic/projects/demo/tokens', '/api/health', '/api/branding']) expect((await get(path)).status, path).toBe(200);
  });
});
