/**
 * One trace across the product (docs/decisions.md D25 § 1): a webhook delivery carrying a W3C `traceparent` fires
 * the demo agent's intake state, whose turn (scripted model) calls the semantic service's `execute_query`. With
 * OTLP/HTTP JSON export to a receiver on loopback, the API's, the dispatcher's and semantic-mcp's spans form one trace
 * under the sender's trace id, parented: inbound request → (queue) firing → invoke_workflow → execute_tool → MCP
 * client `tools/call` → semantic-mcp's `tools/call` → validation and the DuckDB query. No exported byte holds the
 * delivery's text, the SQL text, the service token or the endpoint's token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/ports.ts';
import { type ExportedSpan, type OtlpReceiver, type OtlpSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn, scriptedModels } from '../helpers/scripted-model-server.ts';
import { flightsModel, projectDir } from '../helpers/semantic-fixtures.ts';

const deliveryText = `Which state has the most delayed departures? planted-${Math.random().toString(36).slice(2)}`;
const sql = 'SELECT o.state, COUNT(*) AS planted_sql_marker FROM flights f JOIN origin_airports o ON f.origin = o.iata GROUP BY o.state ORDER BY 2 DESC LIMIT 3';
const script: ScriptedTurn[] = [
  { toolCalls: [{ name: 'semantic__execute_query', arguments: { modelName: 'flights', sql, store: false } }] },
  { text: 'California.', toolCalls: [{ name: 'platform_set_variables', arguments: { variables: { answer: 'CA' } } }, { name: 'platform_advance', arguments: { to: 'review', reason: 'Answered.' } }] },
];
const senderTrace = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
const senderSpan = '1122334455667788';

type Exported = ExportedSpan;

let model: ScriptedModelServer;
let product: RunningProduct;
let receiver: OtlpReceiver;
let dataDir: string;
let hook: { url: string; token: string };
let serviceToken: string;
const exportedSpans = () => receiver.spans();

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  receiver = await startOtlpReceiver();
  const collector = receiver.url;
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-otel-'));
  const ports: Record<string, string> = {};
  for (const name of ['PORT', 'API_PORT', 'SEMANTIC_MCP_PORT', 'CAIRN_EMBEDDED_QUEUE_PORT']) ports[name] = String(await freePort());
  const first = await startProduct({ CAIRN_DATA_DIR: dataDir, ...ports });
  try {
    expect(runCairn(first.url, ['semantic', 'import', projectDir([flightsModel]), '--project', 'flights', '--publish']).status).toBe(0);
    serviceToken = runCairn(first.url, ['semantic', 'token', 'create', 'flights', '--models', 'flights']).stdout.trim();
    const imported = runCairn(first.url, ['agent', 'import', join(repoRoot, 'scripts/demo/agent'), '--agent', 'flights-analyst', '--publish']);
    expect(imported.status, imported.stderr).toBe(0);
    const created = runCairn(first.url, ['connection', 'create', '--agent', 'flights-analyst', '--env', 'main', '--id', 'hooks', '--protocol', 'webhook', '--auth', 'bearer', '--json']);
    expect(created.status, created.stderr).toBe(0);
    const connection = JSON.parse(created.stdout) as { url: string; token: string };
    hook = { url: connection.url.replace(/^https?:\/\/[^/]+/, ''), token: connection.token };
  } finally {
    await first.stop();
  }
  const config = {
    models: scriptedModels(model),
    services: [{ id: 'semantic', endpoint: `http://127.0.0.1:${ports.SEMANTIC_MCP_PORT}/mcp/flights/mcp`, token: serviceToken }],
  };
  product = await startProduct({
    CAIRN_DATA_DIR: dataDir, ...ports, PLATFORM_CONFIG: JSON.stringify(config),
    OTEL_EXPORTER_OTLP_ENDPOINT: collector, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '200',
    OTEL_METRICS_EXPORTER: 'none',
  });
  const deadline = Date.now() + 60_000;
  while (!product.output.some((line) => line.includes('[services] semantic offered')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
}, 240_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
  await receiver?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** The names of `span`'s ancestors within `spans`, nearest first. */
function ancestry(spans: Exported[], span: OtlpSpan): string[] {
  const byId = new Map(spans.map((s) => [s.span.spanId, s.span]));
  const names: string[] = [];
  for (let parent = byId.get(span.parentSpanId ?? ''); parent; parent = byId.get(parent.parentSpanId ?? '')) names.push(parent.name);
  return names;
}

describe('one trace from a webhook delivery to the DuckDB query', () => {
  it('holds the API\'s, the dispatcher\'s and semantic-mcp\'s spans under the sender\'s trace, parented', async () => {
    const response = await fetch(`${product.url}${hook.url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${hook.token}`, 'x-delivery-id': 'otel-1', traceparent: `00-${senderTrace}-${senderSpan}-01` },
      body: JSON.stringify({ question: deliveryText }),
    });
    expect(response.status).toBe(202);
    // Wait until the query's span has arrived (the turn ran and semantic-mcp exported), or 90 s.
    const deadline = Date.now() + 90_000;
    const ours = () => exportedSpans().filter((s) => s.span.traceId === senderTrace);
    while (!(ours().some((s) => s.span.name === 'SELECT') && ours().some((s) => s.span.name.startsWith('invoke_workflow'))) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const spans = ours();
    const summary = spans.map((s) => `${s.service}: ${s.span.name}`).join('\n');
    expect(new Set(spans.map((s) => s.service)), summary).toEqual(new Set(['cairn-api', 'cairn-dispatcher', 'cairn-semantic-mcp']));
    const one = (service: string, name: string | RegExp) => {
      const found = spans.filter((s) => s.service === service && (typeof name === 'string' ? s.span.name === name : name.test(s.span.name)));
      expect(found.length, `${service} ${name}\n${summary}`).toBeGreaterThan(0);
      return found[0]!.span;
    };
    const inbound = one('cairn-api', 'POST /api/webhooks/{address}');
    expect(inbound.parentSpanId).toBe(senderSpan);
    expect(ancestry(spans, one('cairn-dispatcher', 'process webhook-firings'))).toEqual(['POST /api/webhooks/{address}']);
    const workflow = one('cairn-dispatcher', /^invoke_workflow/);
    expect(ancestry(spans, workflow)).toContain('process webhook-firings');
    const keys = (span: OtlpSpan) => new Set((span.attributes ?? []).map((a) => a.key));
    const valueOf = (span: OtlpSpan, key: string) => span.attributes?.find((a) => a.key === key)?.value;
    // The turn and its model call carry the GenAI conventions' attributes (docs/decisions.md D25 § 3).
    expect([...keys(workflow)]).toEqual(expect.arrayContaining(['gen_ai.operation.name', 'gen_ai.conversation.id',
      'gen_ai.agent.id', 'cairn.org.id', 'cairn.environment', 'cairn.workflow', 'cairn.state']));
    expect(valueOf(workflow, 'gen_ai.operation.name')).toEqual({ stringValue: 'invoke_workflow' });
    const chat = one('cairn-dispatcher', /^chat /);
    expect(ancestry(spans, chat)).toContain(workflow.name);
    expect([...keys(chat)]).toEqual(expect.arrayContaining(['gen_ai.operation.name', 'gen_ai.provider.name',
      'gen_ai.request.model', 'gen_ai.response.model', 'gen_ai.response.finish_reasons', 'gen_ai.usage.input_tokens',
      'gen_ai.usage.output_tokens', 'gen_ai.conversation.id', 'cairn.cost.usd']));
    expect(valueOf(chat, 'gen_ai.operation.name')).toEqual({ stringValue: 'chat' });
    expect(valueOf(chat, 'gen_ai.conversation.id')).toEqual(valueOf(workflow, 'gen_ai.conversation.id'));
    // No message content by default.
    const content = ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.system_instructions'];
    expect([...keys(chat)].filter((k) => content.includes(k))).toEqual([]);
    const tool = one('cairn-dispatcher', /^execute_tool/);
    expect([...keys(tool)]).toEqual(expect.arrayContaining(['gen_ai.tool.name', 'gen_ai.tool.call.id']));
    expect(ancestry(spans, tool)).toContain(workflow.name);
    const client = one('cairn-dispatcher', 'tools/call execute_query');
    expect(ancestry(spans, client)).toContain(tool.name);
    const server = one('cairn-semantic-mcp', 'tools/call execute_query');
    expect(server.parentSpanId).toBe(client.spanId);
    expect(ancestry(spans, one('cairn-semantic-mcp', 'validate_query'))[0]).toBe('tools/call execute_query');
    const query = one('cairn-semantic-mcp', 'SELECT');
    expect(ancestry(spans, query)[0]).toBe('tools/call execute_query');
    expect(query.attributes).toEqual(expect.arrayContaining([
      { key: 'db.system.name', value: { stringValue: 'duckdb' } }, { key: 'db.operation.name', value: { stringValue: 'SELECT' } },
    ]));
  }, 150_000);

  it('exports no delivery text, SQL text, service token or endpoint token', () => {
    const bytes = Buffer.concat(receiver.received.map((r) => r.body)).toString('latin1');
    expect(receiver.received.length).toBeGreaterThan(0);
    for (const planted of [deliveryText.split(' ').at(-1)!, 'planted_sql_marker', serviceToken, hook.token, hook.url.split('/').at(-1)!]) {
      expect(bytes.includes(planted), planted).toBe(false);
    }
  });
});
