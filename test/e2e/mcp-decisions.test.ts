/**
 * Decisions through the MCP endpoint (docs/decisions.md D26 § 3), with the official MCP SDK client through the front
 * proxy: a test agent whose refund workflow parks on a human state with a field and an expiry, served by two bearer
 * MCP connections. A call whose session parks answers the pending decision (options, fields, expiry); the platform
 * tool `decide` takes it (channel `mcp` on the trail) and answers as the workflow's tool does once the decision's
 * turn settles; the same session through the other endpoint is not found (one error naming nothing); a wrong field
 * is refused naming it, and the decision stays pending.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, scriptedModels } from '../helpers/scripted-model-server.ts';
import { mcpClient, textOf } from '../helpers/semantic-fixtures.ts';

let model: ScriptedModelServer;
let product: RunningProduct;
let owner: Client;
let other: Client;

/** Creates bearer MCP connection `id` of the approvals agent; its MCP client through the front proxy. */
async function connect(id: string): Promise<Client> {
  const created = runCairn(product.url, ['connection', 'create', '--agent', 'approvals', '--env', 'main', '--id', id, '--protocol', 'mcp', '--auth', 'bearer', '--json']);
  expect(created.status, created.stderr).toBe(0);
  const { url, token } = JSON.parse(created.stdout) as { url: string; token: string };
  return mcpClient(url.replace(/^https?:\/\/[^/]+/, product.url), token);
}

beforeAll(async () => {
  model = await startScriptedModelServer([
    { text: 'Drafted a refund of 12 USD.', toolCalls: [{ name: 'platform_advance', arguments: { to: 'approve', reason: 'drafted' } }] },
  ]);
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }) });
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/approvals'), '--agent', 'approvals', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  owner = await connect('refunds');
  other = await connect('refunds-peek');
}, 120_000);

afterAll(async () => {
  await owner?.close();
  await other?.close();
  await product?.stop();
  await model?.close();
});

describe('a decision over MCP', () => {
  it('is answered with the pending decision, taken with decide by its caller only, and moves the session on', async () => {
    const parked = await owner.callTool({ name: 'refund', arguments: { order: 'A-7' } });
    expect(parked.isError).toBeFalsy();
    const result = parked.structuredContent as { sessionId: string; status: string; decision: { id: string } };
    expect(result).toMatchObject({
      status: 'awaiting_decision',
      decision: {
        state: 'approve',
        options: [{ to: 'done', description: 'Approve it.' }, { to: 'draft', description: 'Draft it again.' }],
        fields: [{ name: 'amount', type: 'number', required: true }],
        expiresAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });
    const decide = (client: Client, args: Record<string, unknown>) =>
      client.callTool({ name: 'decide', arguments: { sessionId: result.sessionId, ...args } });

    const stranger = await decide(other, { to: 'done', fields: { amount: 12 } });
    expect(stranger.isError).toBe(true);
    expect(textOf(stranger)).toBe('No session that waits for your decision has this id on this endpoint.');
    const missing = await owner.callTool({ name: 'decide', arguments: { sessionId: 'no-such-session', to: 'done' } });
    expect(textOf(missing)).toBe(textOf(stranger));

    const wrongField = await decide(owner, { to: 'done', fields: { amount: 'twelve' } });
    expect(wrongField.isError).toBe(true);
    expect(textOf(wrongField)).toMatch(/field "amount" must be a number/);

    const decided = await decide(owner, { to: 'done', comment: 'Fine.', fields: { amount: 12 } });
    expect(decided.isError, textOf(decided)).toBeFalsy();
    expect(decided.structuredContent).toMatchObject({ status: 'succeeded', sessionId: result.sessionId });
    const shown = runCairn(product.url, ['session', 'show', result.sessionId, '--json']);
    expect(shown.status, shown.stderr).toBe(0);
    const session = (JSON.parse(shown.stdout) as { session: { state: string; variables: object; trail: object[] } }).session;
    expect(session.state).toBe('done');
    expect(session.variables).toMatchObject({ amount: 12 });
    expect(session.trail.at(-1)).toMatchObject({ state: 'done', via: 'decision', channel: 'mcp', note: 'Fine.' });

    const again = await decide(owner, { to: 'draft' });
    expect(again.isError).toBe(true);
    expect(model.requests).toHaveLength(1);
  });
});
