/**
 * The mcp-services ToolCatalog against the real semantic service: the product started from sources (semantic-mcp
 * behind the front proxy), the demo flights project imported and published, a project token minted with `cairn`.
 * A service "coming up" or "going away" is a loopback TCP forwarder to the product opened or closed on a fixed port.
 *
 * Source: spec/platform-service.md § Rules 15; docs/decisions.md D7 § The semantic service as a tool collection.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceCatalog, type ServiceCatalog, type ServiceCatalogOptions } from '../../core/adapters/mcp-services/index.ts';
import type { ServiceConfig } from '../../core/config/config-model.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { freePort } from '../helpers/ports.ts';
import { runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { flightsModel, projectDir } from '../helpers/semantic-fixtures.ts';

let product: RunningProduct;
let token: string;
const catalogs: ServiceCatalog[] = [];

beforeAll(async () => {
  product = await startProduct({}, { mode: 'sources' });
  const imported = runCairn(product.url, ['semantic', 'import', projectDir([flightsModel]), '--project', 'flights', '--publish'], { mode: 'sources' });
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['semantic', 'token', 'create', 'flights', '--models', 'flights'], { mode: 'sources' });
  expect(created.status, created.stderr).toBe(0);
  token = created.stdout.trim();
}, 180_000);

afterAll(async () => {
  await Promise.all(catalogs.map((catalog) => catalog.close()));
  await product?.stop();
});

/** A catalog of one service (id `semantic`) whose log lines are kept, with a clock the test moves. */
function catalogOf(service: Partial<ServiceConfig>, options: Partial<ServiceCatalogOptions> = {}) {
  const lines: string[] = [];
  let nowMs = Date.UTC(2026, 0, 1);
  const catalog = createServiceCatalog({
    services: [{ id: 'semantic', endpoint: `${product.url}/mcp/flights/mcp`, token, ...service }],
    log: (line) => lines.push(line),
    clock: { now: () => new Date(nowMs) },
    ...options,
  });
  catalogs.push(catalog);
  return { catalog, lines, advance: (ms: number) => { nowMs += ms; } };
}

/** A loopback TCP forwarder on `port` to the product's front proxy; `close` also cuts open connections. */
async function forwarder(port: number): Promise<{ close(): Promise<void> }> {
  const target = Number(new URL(product.url).port);
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const upstream = connect(target, '127.0.0.1');
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

const stateQuestion = `SELECT o.state, COUNT(*) AS delayed_departures FROM flights f JOIN origin_airports o ON f.origin = o.iata
  WHERE f.delay > 0 GROUP BY o.state ORDER BY delayed_departures DESC LIMIT 3`;

describe('discovery and calls against the semantic service', () => {
  it('discovers the semantic tools once (warm, then tools) and names them by collection', async () => {
    const { catalog, lines } = catalogOf({});
    await catalog.warm();
    const tools = await catalog.tools();
    expect(tools.map((t) => t.name)).toEqual(['list_semantic_models', 'get_semantic_model', 'get_datasets', 'execute_query', 'execute_stored_query', 'request_improvement']);
    expect(new Set(tools.map((t) => t.collection))).toEqual(new Set(['semantic']));
    const executeQuery = tools.find((t) => t.name === 'execute_query')!;
    expect(executeQuery.description).not.toBe('');
    expect(executeQuery.inputSchema.properties).toHaveProperty('sql');
    expect(lines).toEqual(['[services] semantic offered: 6 tools']);
  });

  it('marks the tools the service annotates readOnlyHint: true as read-only (what an evaluation may call live)', async () => {
    const { catalog } = catalogOf({});
    const readOnly = (await catalog.tools()).filter((t) => t.readOnly === true).map((t) => t.name);
    expect(readOnly).toEqual(['list_semantic_models', 'get_semantic_model', 'get_datasets', 'execute_query', 'execute_stored_query']);
  });

  it('names the collection from the entry\'s collection when it gives one', async () => {
    const { catalog } = catalogOf({ id: 'analytics-svc', collection: 'analytics' });
    expect(new Set((await catalog.tools()).map((t) => t.collection))).toEqual(new Set(['analytics']));
    const result = await catalog.call('analytics', 'list_semantic_models', {});
    expect(result.isError).toBe(false);
    await expect(catalog.call('semantic', 'list_semantic_models', {})).rejects.toSatisfy((e) => isPlatformError(e, 'tool_not_found'));
  });

  it('answers execute_query with the rows as the JSON text the model reads (carried once)', async () => {
    const { catalog } = catalogOf({});
    const result = await catalog.call('semantic', 'execute_query', { modelName: 'flights', sql: stateQuestion, store: false });
    expect(result.isError).toBe(false);
    expect(typeof result.output).toBe('string');
    const output = JSON.parse(result.output as string) as { columns: { name: string }[]; rows: unknown[][] };
    expect(output.columns.map((c) => c.name)).toEqual(['state', 'delayed_departures']);
    expect(output.rows[0]).toEqual(['CA', 177731]);
  });

  it('gives a failed query back as an error result with the service\'s message', async () => {
    const { catalog } = catalogOf({});
    const result = await catalog.call('semantic', 'execute_query', { modelName: 'flights', sql: 'SELEC origin FROM flights' });
    expect(result.isError).toBe(true);
    expect(String(result.output)).toMatch(/^Could not parse query: /);
  });

  it('refuses an unknown collection or tool with tool_not_found', async () => {
    const { catalog } = catalogOf({});
    await expect(catalog.call('weather', 'forecast', {})).rejects.toSatisfy((e) => isPlatformError(e, 'tool_not_found') && /collection "weather"/.test((e as Error).message));
    await expect(catalog.call('semantic', 'drop_everything', {})).rejects.toSatisfy((e) => isPlatformError(e, 'tool_not_found') && /offers list_semantic_models/.test((e as Error).message));
  });

  it('cancels a call in flight with tool_cancelled, and the next call still works', async () => {
    let sent: () => void = () => undefined;
    const callSent = new Promise<void>((resolve) => { sent = resolve; });
    const watching: typeof fetch = async (input, init) => {
      const response = fetch(input, init);
      if (typeof init?.body === 'string' && init.body.includes('"tools/call"')) sent();
      return response;
    };
    const { catalog } = catalogOf({}, { fetch: watching });
    const controller = new AbortController();
    const slow = catalog.call('semantic', 'execute_query', {
      modelName: 'flights', store: false, sql: 'SELECT COUNT(*) FROM range(100000000) a, range(100000000) b WHERE a.range + b.range = -1',
    }, { signal: controller.signal });
    await callSent;
    controller.abort();
    await expect(slow).rejects.toSatisfy((e) => isPlatformError(e, 'tool_cancelled'));
    const next = await catalog.call('semantic', 'execute_query', { modelName: 'flights', sql: 'SELECT 1 AS one', store: false });
    expect(next.isError).toBe(false);
    expect(JSON.parse(next.output as string)).toMatchObject({ rows: [[1]] });
  });
});

describe('services that fail discovery', () => {
  it('logs a closed port once, does not offer it, and offers it after retryAfterMs once it is up', async () => {
    const port = await freePort();
    const { catalog, lines, advance } = catalogOf({ endpoint: `http://127.0.0.1:${port}/mcp/flights/mcp` }, { retryAfterMs: 60_000 });
    await catalog.warm();
    expect(await catalog.tools()).toEqual([]);
    expect(lines).toEqual([`[services] semantic is not offered: discovery at 127.0.0.1:${port} failed (connection refused); retrying later`]);
    const call = await catalog.call('semantic', 'execute_query', { modelName: 'flights', sql: 'SELECT 1' });
    expect(call).toEqual({ isError: true, output: 'The semantic service could not be reached: connection refused. Try again later.' });
    advance(60_000);
    expect(await catalog.tools()).toEqual([]);
    expect(lines).toHaveLength(1);
    const up = await forwarder(port);
    try {
      advance(30_000);
      expect(await catalog.tools()).toEqual([]);
      advance(30_000);
      expect((await catalog.tools()).map((t) => t.name)).toContain('execute_query');
      expect(lines.slice(1)).toEqual(['[services] semantic offered: 6 tools']);
    } finally {
      await up.close();
    }
  });

  it('gives an error result while an offered service is down, and reconnects once it is back', async () => {
    const port = await freePort();
    let up = await forwarder(port);
    const { catalog } = catalogOf({ endpoint: `http://127.0.0.1:${port}/mcp/flights/mcp` });
    const question = { modelName: 'flights', sql: 'SELECT 2 AS two', store: false };
    expect((await catalog.call('semantic', 'execute_query', question)).isError).toBe(false);
    await up.close();
    const down = await catalog.call('semantic', 'execute_query', question);
    expect(down.isError).toBe(true);
    expect(down.output).toMatch(/^The semantic service could not be reached: /);
    up = await forwarder(port);
    try {
      const answer = await catalog.call('semantic', 'execute_query', question);
      expect(answer.isError).toBe(false);
      expect(JSON.parse(answer.output as string)).toMatchObject({ rows: [[2]] });
    } finally {
      await up.close();
    }
  });

  it('does not offer a service that refuses its token, says 401, and never logs the token', async () => {
    const wrong = `cairn_mcp_${'W'.repeat(43)}`;
    const { catalog, lines } = catalogOf({ token: wrong });
    expect(await catalog.tools()).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[services\] semantic is not offered: discovery at 127\.0\.0\.1:\d+ failed \(HTTP 401 \(the service refused the configured token\)\); retrying later$/);
    const call = await catalog.call('semantic', 'execute_query', { modelName: 'flights', sql: 'SELECT 1' });
    expect(call.isError).toBe(true);
    for (const text of [...lines, String(call.output)]) {
      expect(text).not.toContain(wrong);
      expect(text).not.toContain('W'.repeat(16));
    }
  });
});
