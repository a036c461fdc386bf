/**
 * The semantic service as a tool collection answers only the organization that owns the configured token's project
 * (docs/decisions.md D17 § 1), end to end: the product (proxy, api, dispatcher, semantic-mcp) with the scripted model
 * and the
 * flights project's token in the config's services list. The dev user owns the default organization (where the
 * flights project is) and a second one; the demo agent is published in both. The second organization's agent is not
 * offered the semantic tools (docs/decisions.md D22 § 4); the call its model makes anyway is refused naming no
 * organization, while the semantic service never sees it (its call log does not grow); the same call from the
 * default organization's agent is offered and answered with the rows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { repoRoot, runCairn, startProduct, type ProductOptions, type RunningProduct } from '../helpers/product.ts';
import {
  scriptedModels, startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn,
} from '../helpers/scripted-model-server.ts';
import { flightsModel, projectDir } from '../helpers/semantic-fixtures.ts';

const mode: ProductOptions = {};
const query = { modelName: 'flights', sql: 'SELECT COUNT(*) AS airports FROM origin_airports', store: false };
const ask: ScriptedTurn = { toolCalls: [{ name: 'semantic__execute_query', arguments: query }] };
const wait: ScriptedTurn = {
  text: 'Which period?', toolCalls: [{ name: 'platform_wait', arguments: { reason: 'Which period?' } }],
};
const refusal = 'No tool "semantic__execute_query" is offered in this step.';

let model: ScriptedModelServer;
let product: RunningProduct;
let dataDir: string;
const orgs: { own: string; other: string } = { own: '', other: '' };

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(`${product.url}${path}`, { method, headers, body: payload });
  return { status: response.status, body: await response.json() as T };
}

/** Starts a session of the demo agent of `orgId` and waits until its first turn settled. */
async function sessionIn(orgId: string): Promise<{ status: string }> {
  const agents = await api<{ agents: { id: string }[] }>('GET', `/api/orgs/${orgId}/agents`);
  const agent = agents.body.agents[0]!.id;
  const start = { agent, environment: 'main', workflow: 'flights-analyst', message: 'How many airports?' };
  const started = await api<{ session: { id: string } }>('POST', '/api/sessions', start);
  expect(started.status, JSON.stringify(started.body)).toBe(201);
  for (let i = 0; i < 300; i += 1) {
    const { body } = await api<{ session: { status: string } }>('GET', `/api/sessions/${started.body.session.id}`);
    if (body.session.status !== 'running') return body.session;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the session did not settle:\n${product.output.slice(-30).join('\n')}`);
}

/** The tool message the model was given in request `index`. */
function toolMessageOf(index: number): string {
  const messages = model.requests[index]!.body.messages as { role: string; content: string }[];
  return messages.find((m) => m.role === 'tool')!.content;
}

const loggedCalls = async () =>
  (await api<{ calls: unknown[] }>('GET', '/api/semantic/projects/flights/calls')).body.calls.length;

beforeAll(async () => {
  model = await startScriptedModelServer([ask, wait, ask, wait]);
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-collection-tenants-'));
  const ports: Record<string, string> = {};
  for (const name of ['PORT', 'API_PORT', 'SEMANTIC_MCP_PORT', 'CAIRN_EMBEDDED_QUEUE_PORT']) {
    ports[name] = String(await freePort());
  }
  // First boot: the flights project and its token in the default organization, a second organization, the demo
  // agent in both.
  const first = await startProduct({ CAIRN_DATA_DIR: dataDir, ...ports }, mode);
  let token: string;
  try {
    const dir = projectDir([flightsModel]);
    const project = runCairn(first.url, ['semantic', 'import', dir, '--project', 'flights', '--publish'], mode);
    expect(project.status, project.stderr).toBe(0);
    token = runCairn(first.url, ['semantic', 'token', 'create', 'flights', '--models', 'flights'], mode).stdout.trim();
    const mine = (await (await fetch(`${first.url}/api/orgs`)).json()) as { organizations: { id: string }[] };
    orgs.own = mine.organizations[0]!.id;
    const headers = { 'content-type': 'application/json' };
    const body = JSON.stringify({ name: 'Other team' });
    const created = await fetch(`${first.url}/api/orgs`, { method: 'POST', headers, body });
    orgs.other = ((await created.json()) as { id: string }).id;
    for (const org of [orgs.own, orgs.other]) {
      const agentDir = join(repoRoot, 'scripts/demo/agent');
      const args = ['agent', 'import', agentDir, '--agent', 'flights-analyst', '--org', org, '--publish'];
      const imported = runCairn(first.url, args, mode);
      expect(imported.status, imported.stderr).toBe(0);
    }
  } finally {
    await first.stop();
  }
  // Second boot: the config offers the scripted model and the flights project's token as the semantic collection.
  const config = {
    models: scriptedModels(model),
    services: [{ id: 'semantic', endpoint: `http://127.0.0.1:${ports.SEMANTIC_MCP_PORT}/mcp/flights/mcp`, token }],
  };
  product = await startProduct({ CAIRN_DATA_DIR: dataDir, ...ports, PLATFORM_CONFIG: JSON.stringify(config) }, mode);
  const deadline = Date.now() + 60_000;
  const offered = () => product.output.some((line) => line.includes('[services] semantic offered'));
  while (!offered() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  expect(product.output.join('\n')).toContain('[services] semantic offered: 6 tools');
}, 240_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the semantic collection of the deployment', () => {
  it('refuses another organization\'s agent with a tool error naming none, unseen by the service', async () => {
    const before = await loggedCalls();
    expect(await sessionIn(orgs.other)).toMatchObject({ status: 'awaiting_input' });
    // Not offered at all (its organization connected no semantic collection, and the deployment's token is the
    // other organization's: docs/decisions.md D22 § 4), so the call the model made anyway is refused.
    const offered = (model.requests[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(offered.filter((name) => name.startsWith('semantic__'))).toEqual([]);
    const told = toolMessageOf(1);
    expect(told).toContain(refusal);
    expect(told).not.toContain(orgs.own);
    expect(await loggedCalls()).toBe(before);
  });

  it('answers the owning organization\'s agent with the rows', async () => {
    const before = await loggedCalls();
    expect(await sessionIn(orgs.own)).toMatchObject({ status: 'awaiting_input' });
    const offered = (model.requests[2]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(offered).toContain('semantic__execute_query');
    const told = toolMessageOf(3);
    expect(told).not.toContain('is offered');
    expect(JSON.parse(told)).toMatchObject({ columns: [{ name: 'airports' }], rows: [[expect.any(Number)]] });
    expect(await loggedCalls()).toBe(before + 1);
  });
});
