/**
 * End to end through the front proxy: a JSON-RPC batch of tool calls is bounded like single calls.
 * - A query result is carried once: as JSON text, without structuredContent, and tools/list declares no output
 *   schema for the query tools (the MCP SDK client reads it as any host does).
 * - The whole answer to a batch stays within its cap; the calls past it answer a tool error saying so and never run.
 * - Each tools/call counts against the per-IP limit before any runs: a batch that does not fit is refused whole (429,
 *   naming its calls and the limit) and runs nothing; the call log shows exactly the calls that ran.
 * Source: spec/semantic-query-service.md § Limits; docs/decisions.md D18 § 3.
 */
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerCapMessage, maxAnswerBytes } from '../../bins/semantic-mcp/batch-answer.ts';
import { PLATFORM_CALLER_HEADER } from '../../core/ports/tool-catalog.ts';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { mcpClient, projectDir, queryOutputOf, textOf } from '../helpers/semantic-fixtures.ts';

/** Calls per client address per 60 s: room for every call of this file but a third batch of 100. */
const limit = 250;
const fixtures = join(repoRoot, 'test/fixtures/semantic/attack');
const tokens: Record<string, string> = {};
let product: RunningProduct;

beforeAll(async () => {
  product = await startProduct({ MCP_RATE_LIMIT_MAX: String(limit) });
  // One project per test, so each project's call log holds only that test's calls.
  for (const slug of ['shapes', 'answers', 'rates', 'agents']) {
    const dir = projectDir([join(fixtures, 'public_notes.yaml')]);
    copyFileSync(join(fixtures, 'items.csv'), join(dir, 'data', 'items.csv'));
    const imported = runCairn(product.url, ['semantic', 'import', dir, '--project', slug, '--publish']);
    expect(imported.status, imported.stderr).toBe(0);
    const created = runCairn(product.url, ['semantic', 'token', 'create', slug, '--models', 'public_notes']);
    expect(created.status, created.stderr).toBe(0);
    tokens[slug] = created.stdout.trim();
  }
}, 180_000);

afterAll(async () => {
  await product?.stop();
});

/** One JSON-RPC response of an answer. */
interface RpcAnswer {
  id: number;
  result?: { content?: { type: string; text: string }[]; isError?: boolean };
  error?: unknown;
}

/**
 * One POST of `body` (a message or a batch) to `slug`'s production endpoint, with its token; `caller` names the
 * calling organization and agent as the dispatcher does (then the call counts per token and agent, not per address).
 */
const post = (slug: string, body: unknown, caller?: string) => fetch(`${product.url}/mcp/${slug}/mcp`, {
  method: 'POST',
  headers: {
    authorization: `Bearer ${tokens[slug]}`, 'content-type': 'application/json',
    accept: 'application/json, text/event-stream', ...(caller ? { [PLATFORM_CALLER_HEADER]: caller } : {}),
  },
  body: JSON.stringify(body),
});
const queryCall = (id: number, sql: string) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'execute_query', arguments: { modelName: 'public_notes', sql, store: false } },
});
const batchOf = (count: number, sql: string) => Array.from({ length: count }, (_, i) => queryCall(i + 1, sql));

/** execute_query calls in `slug`'s call log (written just after each answer). */
const loggedQueries = (slug: string): number => {
  const args = ['--json', 'semantic', 'log', slug, '--tool', 'execute_query', '--limit', '500'];
  const listed = runCairn(product.url, args);
  expect(listed.status, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as unknown[]).length;
};
/** The call log's count once it has reached `expected` (read again after, so late writes would show). */
async function settledQueries(slug: string, expected: number): Promise<number> {
  for (let i = 0; i < 50 && loggedQueries(slug) < expected; i += 1) await new Promise((r) => setTimeout(r, 200));
  return loggedQueries(slug);
}

describe('a query result', () => {
  it('is carried once, as JSON text without structuredContent; no query tool declares an output schema', async () => {
    const response = await post('shapes', queryCall(7, "SELECT 'ONCE-MARKER' AS marker, id FROM notes ORDER BY id"));
    expect(response.status).toBe(200);
    const raw = await response.text();
    expect(raw.split('ONCE-MARKER')).toHaveLength(3); // the marker of each of the two rows, once each
    const answer = JSON.parse(raw) as RpcAnswer;
    expect(Object.keys(answer.result ?? {})).toEqual(['content']);
    expect(answer.result?.content).toHaveLength(1);
    expect(JSON.parse(answer.result?.content?.[0].text ?? '')).toEqual({
      columns: [{ name: 'marker', type: 'VARCHAR' }, { name: 'id', type: 'BIGINT' }],
      rows: [['ONCE-MARKER', 1], ['ONCE-MARKER', 2]],
      rowCount: 2,
    });

    const client = await mcpClient(`${product.url}/mcp/shapes/mcp`, tokens.shapes);
    try {
      const { tools } = await client.listTools();
      const queryTools = tools.filter((t) => t.name === 'execute_query' || t.name === 'execute_stored_query');
      expect(queryTools.map((t) => [t.name, t.outputSchema])).toEqual([
        ['execute_query', undefined], ['execute_stored_query', undefined],
      ]);
      const count = { modelName: 'public_notes', sql: 'SELECT count(*) AS n FROM notes' };
      const result = await client.callTool({ name: 'execute_query', arguments: count });
      expect(result.isError ?? false).toBe(false);
      expect(queryOutputOf(result)).toMatchObject({ rows: [[2]], rowCount: 1, storedQueryId: expect.any(String) });
      const { storedQueryId } = queryOutputOf(result);
      const replay = await client.callTool({ name: 'execute_stored_query', arguments: { storedQueryId } });
      expect(queryOutputOf(replay)).toMatchObject({ rows: [[2]], rowCount: 1 });
    } finally {
      await client.close();
    }
  });
});

describe('the answer to a batch', () => {
  it(`stays within ${maxAnswerBytes} bytes; the calls past the cap answer a tool error saying so, unrun`, async () => {
    // Each call's rows reach the 4 MiB per-call cap (41 rows of 100,000 characters).
    const calls = 6;
    const response = await post('answers', batchOf(calls, "SELECT repeat('x', 100000) AS big FROM range(1000)"));
    expect(response.status).toBe(200);
    const raw = await response.arrayBuffer();
    expect(raw.byteLength).toBeLessThanOrEqual(maxAnswerBytes);
    const answers = (JSON.parse(Buffer.from(raw).toString('utf8')) as RpcAnswer[]).sort((a, b) => a.id - b.id);
    expect(answers.map((a) => a.id)).toEqual([1, 2, 3, 4, 5, 6]);
    const whole = answers.filter((a) => a.result?.isError !== true);
    expect(whole.length).toBeGreaterThanOrEqual(3);
    expect(whole.length).toBeLessThan(calls);
    for (const answer of whole) expect(queryOutputOf(answer.result!)).toMatchObject({ rowCount: 41, truncated: true });
    // Answered in order: every call after the first left out is left out too.
    expect(answers.slice(0, whole.length)).toEqual(whole);
    for (const answer of answers.slice(whole.length)) {
      expect(answer.result?.isError).toBe(true);
      expect(textOf(answer.result!)).toBe(answerCapMessage);
    }
    expect(answerCapMessage).toMatch(/^Left out: the answer to this request reached its cap of 16 MiB \(16,777,216 /);
    expect(answerCapMessage).toMatch(/were not answered\. Send fewer calls per request, or narrow the queries/);
    // The call that found the answer full ran; none after it did.
    expect(await settledQueries('answers', whole.length + 1)).toBe(whole.length + 1);
  }, 120_000);
});

describe('the per-IP limit', () => {
  it('counts every call of a batch before any runs: 3 batches of 100 under a limit of 250 run 200', async () => {
    const statuses: number[] = [];
    const answered: number[] = [];
    let refusal: { error?: { code?: string; message?: string } } = {};
    let retryAfter: string | null = null;
    for (let i = 0; i < 3; i += 1) {
      const response = await post('rates', batchOf(100, 'SELECT 1 AS one'));
      statuses.push(response.status);
      if (response.status === 429) {
        refusal = await response.json();
        retryAfter = response.headers.get('retry-after');
      } else {
        const answers = await response.json() as RpcAnswer[];
        answered.push(answers.filter((a) => a.result?.isError !== true).length);
      }
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(answered).toEqual([100, 100]);
    expect(refusal.error?.code).toBe('rate_limited');
    const message = refusal.error?.message ?? '';
    expect(message).toMatch(/^Too many calls from this address: this request carries 100 tools\/call and each counts /);
    expect(message).toMatch(/ against the limit of 250 calls per 60 s; \d+ remain in this window\. /);
    expect(message).toMatch(/ remain in this window\. Send fewer calls per request, /);
    expect(message).toMatch(/, or retry after \d+ s\.$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(await settledQueries('rates', 200)).toBe(200);

    // A refused batch takes only the one call its request counts before authentication: after a refused batch of
    // remaining + 1 calls, a batch of remaining - 1 fits exactly, and one call more is refused.
    const remaining = Number(/; (\d+) remain/.exec(message)?.[1]);
    expect(remaining).toBeGreaterThan(0);
    expect(remaining).toBeLessThan(50);
    expect((await post('rates', batchOf(remaining + 1, 'SELECT 1 AS one'))).status).toBe(429);
    const fits = await post('rates', batchOf(remaining - 1, 'SELECT 1 AS one'));
    expect(fits.status).toBe(200);
    expect(await fits.json()).toHaveLength(remaining - 1);
    expect((await post('rates', queryCall(1, 'SELECT 1 AS one'))).status).toBe(429);
    expect(await settledQueries('rates', 200 + remaining - 1)).toBe(200 + remaining - 1);
  }, 120_000);
});

describe('the limit per calling organization and agent', () => {
  it('counts every call of a batch the platform sends for one agent, before any runs', async () => {
    // The per-address count is spent by now: these calls count per token and agent instead.
    const statuses: number[] = [];
    let message = '';
    for (let i = 0; i < 3; i += 1) {
      const response = await post('agents', batchOf(100, 'SELECT 1 AS one'), 'org-a/agent-1');
      statuses.push(response.status);
      if (response.status === 429) message = ((await response.json()) as { error: { message: string } }).error.message;
      else expect(await response.json()).toHaveLength(100);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(message).toMatch(/^Too many calls for this organization's agent: this request carries 100 tools\/call /);
    expect(message).toMatch(/ against the limit of 250 calls per 60 s; 50 remain in this window\. /);
    // Another agent of the same token has its own count.
    expect((await post('agents', batchOf(100, 'SELECT 1 AS one'), 'org-a/agent-2')).status).toBe(200);
    expect(await settledQueries('agents', 300)).toBe(300);
  }, 120_000);
});
