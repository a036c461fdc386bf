/**
 * The MCP endpoint of an incoming connection, through the front proxy, driven by the official MCP SDK client:
 * a bearer MCP connection registered with `cairn connection create`, a test agent whose lookup workflow's mcp
 * trigger names it, the scripted model. The tool is listed with its schema; a call opens a session and answers
 * when the turn settles, with status, message, returns and (trace) steps and tool calls; a non-conforming argument
 * is a tool error that opens no session; a wrong token is 401 with a Bearer challenge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, scriptedModels } from '../helpers/scripted-model-server.ts';
import { mcpClient, textOf } from '../helpers/semantic-fixtures.ts';

let model: ScriptedModelServer;
let product: RunningProduct;
let endpoint: { url: string; token: string };

beforeAll(async () => {
  model = await startScriptedModelServer([{
    text: 'Order 7 shipped on Monday.',
    toolCalls: [{ name: 'platform_set_variables', arguments: { variables: { answer: 'shipped Monday' } } }, { name: 'platform_advance', arguments: { to: 'done', reason: 'answered' } }],
  }]);
  const config = { models: scriptedModels(model) };
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify(config) });
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/desk'), '--agent', 'desk', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['connection', 'create', '--agent', 'desk', '--env', 'main', '--id', 'assistant', '--protocol', 'mcp', '--auth', 'bearer', '--json']);
  expect(created.status, created.stderr).toBe(0);
  const { url, token } = JSON.parse(created.stdout) as { url: string; token: string };
  endpoint = { url: url.replace(/^https?:\/\/[^/]+/, product.url), token };
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
});

type Session = { id: string; status: string; variables: Record<string, unknown> };
const sessions = async () => (await (await fetch(`${product.url}/api/agents/desk/environments/main/workflows/lookup/sessions`)).json() as { sessions: Session[] }).sessions;

describe('the MCP endpoint', () => {
  it('lists the workflow as a tool with its schema, and a call answers when the turn settles', async () => {
    const client = await mcpClient(endpoint.url, endpoint.token);
    const { tools } = await client.listTools();
    expect(tools).toEqual([{
      name: 'lookup', description: 'Answers a question about an order.',
      inputSchema: { type: 'object', properties: { question: { type: 'string', description: 'The question to answer.' }, lines: { type: 'integer', description: 'At most this many lines.' } }, required: ['question', 'lines'], additionalProperties: false },
    }, expect.objectContaining({ name: 'decide' })]);
    const result = await client.callTool({ name: 'lookup', arguments: { question: 'Where is order 7?', lines: 2 } });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: 'succeeded', message: 'Order 7 shipped on Monday.', returns: { answer: 'shipped Monday' },
      steps: [{ state: 'answer', via: 'start' }, { state: 'done', via: 'advance', note: 'answered' }],
      toolCalls: [{ name: 'platform_set_variables', arguments: { variables: { answer: 'shipped Monday' } } }, { name: 'platform_advance', arguments: { to: 'done', reason: 'answered' } }],
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
    const [session] = await sessions();
    expect(session.id).toBe((result.structuredContent as { sessionId: string }).sessionId);
    expect(session.variables).toMatchObject({ question: 'Where is order 7?', lines: 2, trigger: { id: 'ask', type: 'mcp', connection: 'assistant', caller: 'token' } });
    await client.close();
  });

  it('answers a non-conforming argument with a tool error naming it, and opens no session', async () => {
    const before = (await sessions()).length;
    const client = await mcpClient(endpoint.url, endpoint.token);
    const wrongType = await client.callTool({ name: 'lookup', arguments: { question: 'Where is order 8?', lines: 'two' } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/Argument "lines" must be integer/);
    const missing = await client.callTool({ name: 'lookup', arguments: { lines: 1 } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/Argument "question" is missing/);
    expect(await sessions()).toHaveLength(before);
    expect(model.requests).toHaveLength(1);
    await client.close();
  });

  it('refuses a wrong token with 401 and a Bearer challenge; GET is 405, an unknown address 404', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const wrong = await fetch(endpoint.url, { method: 'POST', headers: { ...headers, authorization: 'Bearer cairn_ep_wrong' }, body });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer');
    await expect(mcpClient(endpoint.url, 'cairn_ep_wrong')).rejects.toThrow();
    expect((await fetch(endpoint.url, { headers: { authorization: `Bearer ${endpoint.token}` } })).status).toBe(405);
    expect((await fetch(`${product.url}/api/mcp/not-an-address`, { method: 'POST', headers, body })).status).toBe(404);
    expect((await fetch(`${endpoint.url}/.well-known/oauth-protected-resource`)).status).toBe(404);
    // No browser origins listed: a page's preflight is refused, and a page's call too, before anything starts.
    expect((await fetch(endpoint.url, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } })).status).toBe(403);
    expect((await fetch(endpoint.url, { method: 'POST', headers: { ...headers, origin: 'https://app.example', authorization: `Bearer ${endpoint.token}` }, body })).status).toBe(403);
  });
});
