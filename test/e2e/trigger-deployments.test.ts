/**
 * Trigger deployments through the product: a test agent is published before its connections exist (its
 * deployments are in error naming the missing connections); registering the connections is a credential change
 * that reconciles again. Then the AG-UI connection serves one chat trigger and the MCP connection two tools
 * (Serving with a count), while the two webhook triggers naming one webhook connection both fail with a message
 * naming the connection, both workflows and both trigger ids, and that connection's row says Error with it. A
 * member's Retry now (`cairn deployment retry`) reconciles again from a clean slate.
 * Source: spec/platform-service.md § Trigger deployment, § Trigger declarations, § Incoming connection (row status), § Errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { unlistedCollections } from '../helpers/stored-collections.ts';

let product: RunningProduct;

type Row = { identifier: string; status: string; servingCount: number; statusMessage: string | null; url: string };
type Deployment = { workflow: string; trigger: string; type: string; status: string; message: string | null; connection: string | null; failuresInRow: number; retriesExhausted: boolean; nextRetryAt: string | null };
type Reconciliation = { reason: string; status: string; requestedAt: string; serving: number; errors: number };
type Listed = { deployments: Deployment[]; reconciliation: Reconciliation | null };

function cairn(args: string[]): string {
  const run = runCairn(product.url, args);
  expect(run.status, run.stderr).toBe(0);
  return run.stdout;
}
const where = ['--agent', 'deploys', '--env', 'main'];
const deployments = (): Listed => JSON.parse(cairn(['deployment', 'list', ...where, '--json']));
const rows = (): Row[] => (JSON.parse(cairn(['connection', 'list', ...where, '--json'])) as { connections: Row[] }).connections;

/** Polls `read` until `done` holds (60 s at most); returns the last value. */
async function until<T>(read: () => T, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  let value = read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 300));
    value = read();
  }
  return value;
}
const settled = (listed: Listed, reason: string) => listed.reconciliation?.status === 'done' && listed.reconciliation.reason === reason;

beforeAll(async () => {
  product = await startProduct();
  cairn(['agent', 'import', join(repoRoot, 'test/fixtures/agents/deployments'), '--agent', 'deploys', '--publish']);
}, 120_000);

afterAll(async () => {
  await product?.stop();
});

const conflict = 'Connection "inbox" is named by 2 triggers: workflow "orders" (trigger "order-hook") and workflow "refunds" (trigger "refund-hook"). An AG-UI or webhook connection serves one trigger, so none of them is deployed; keep the connection on one trigger (register another connection for the others) and publish again.';

describe('trigger deployments', () => {
  it('after the publish: every deployment naming a connection the environment lacks is in error, saying what to do', { timeout: 90_000 }, async () => {
    const listed = await until(deployments, (l) => settled(l, 'publish'));
    expect(listed.reconciliation).toMatchObject({ reason: 'publish', status: 'done', serving: 0, errors: 5 });
    expect(listed.deployments.map((d) => `${d.workflow}/${d.trigger} ${d.type} ${d.status} ${d.connection}`)).toEqual([
      'desk/desk-chat chat error desk', 'desk/desk-tool mcp error tools', 'lookup/lookup-tool mcp error tools', 'orders/order-hook webhook error inbox', 'refunds/refund-hook webhook error inbox',
    ]);
    expect(listed.deployments[0].message).toBe('The chat trigger "desk-chat" of workflow "desk" names connection "desk", which environment "main" does not have; register it (cairn connection create --id desk --protocol agui …) or name an existing connection of protocol agui and publish again.');
    expect(listed.deployments[0]).toMatchObject({ failuresInRow: 1, retriesExhausted: false, nextRetryAt: expect.any(String) });
  });

  it('after the connections are registered: rows say Serving with a count, and Error naming the connection and both workflows', { timeout: 90_000 }, async () => {
    cairn(['connection', 'create', ...where, '--id', 'desk', '--protocol', 'agui', '--auth', 'public']);
    cairn(['connection', 'create', ...where, '--id', 'tools', '--protocol', 'mcp', '--auth', 'bearer']);
    cairn(['connection', 'create', ...where, '--id', 'inbox', '--protocol', 'webhook', '--auth', 'public']);
    const listed = await until(deployments, (l) => settled(l, 'credential') && l.reconciliation!.serving === 3);
    expect(listed.reconciliation).toMatchObject({ reason: 'credential', serving: 3, errors: 2 });
    const byTrigger = Object.fromEntries(listed.deployments.map((d) => [d.trigger, d]));
    expect(byTrigger['order-hook']).toMatchObject({ status: 'error', message: conflict, connection: 'inbox' });
    expect(byTrigger['refund-hook']).toMatchObject({ status: 'error', message: conflict, connection: 'inbox' });
    expect(['desk-chat', 'desk-tool', 'lookup-tool'].map((t) => byTrigger[t].status)).toEqual(['serving', 'serving', 'serving']);

    expect(rows().map((r) => [r.identifier, r.status, r.servingCount, r.statusMessage])).toEqual([
      ['desk', 'serving', 1, null], ['inbox', 'error', 0, conflict], ['tools', 'serving', 2, null],
    ]);
    const shown = JSON.parse(cairn(['connection', 'show', ...where, '--id', 'inbox', '--json'])) as { connection: Row };
    expect(shown.connection).toMatchObject({ status: 'error', statusMessage: conflict });
    const human = cairn(['connection', 'list', ...where]);
    expect(human).toMatch(/^tools\s+mcp\s+bearer\s+serving \(2\)\s+http/m);
    expect(human).toMatch(/^inbox\s+webhook\s+public\s+error\s+http/m);
    expect(human).toContain(`inbox: ${conflict}`);
    expect(cairn(['deployment', 'list', ...where])).toMatch(/^orders\s+order-hook\s+webhook\s+error\s+inbox\s+retry at /m);
    // Its endpoint takes nothing while the deployment is in error: 503, so the sender's retry is taken once fixed.
    const posted = await fetch(shown.connection.url.replace(/^https?:\/\/[^/]+/, product.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(posted.status).toBe(503);
    expect(((await posted.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'deployment_error', message: expect.not.stringContaining('orders') });
  });

  it('Retry now tries every deployment again from a clean slate', { timeout: 90_000 }, async () => {
    const before = deployments().reconciliation!;
    const asked = JSON.parse(cairn(['deployment', 'retry', ...where, '--json'])) as { reconciliation: Reconciliation };
    expect(asked.reconciliation.reason).toBe('retry_now');
    const listed = await until(deployments, (l) => settled(l, 'retry_now') && l.reconciliation!.requestedAt > before.requestedAt);
    expect(listed.reconciliation).toMatchObject({ reason: 'retry_now', serving: 3, errors: 2 });
    expect(listed.deployments.find((d) => d.trigger === 'order-hook')).toMatchObject({ status: 'error', failuresInRow: 1, retriesExhausted: false });
  });

  it('refuses Retry now for an environment the agent lacks, naming it', () => {
    const run = runCairn(product.url, ['deployment', 'retry', '--agent', 'deploys', '--env', 'nope']);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('Agent "deploys" has no environment "nope"');
  });

  it('stores nothing in a collection the release does not list', () => {
    expect(unlistedCollections(product.dataDir)).toEqual([]);
  });
});
