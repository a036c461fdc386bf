/**
 * The mcp-services ToolCatalog against any configured service: a small tool server on loopback built on the MCP
 * SDK's own server (stateless Streamable HTTP) that pages its tools/list, checks its bearer token and has a tool
 * that never answers; and a port that accepts connections but never answers.
 *
 * Source: spec/platform-service.md § Rules 15; docs/decisions.md D7 § The semantic service as a tool collection.
 */
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceCatalog, type ServiceCatalog, type ServiceCatalogOptions } from '../../core/adapters/mcp-services/index.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';

const serviceToken = 'weather-service-token-0123456789';
const pages = [['forecast', 'alerts'], ['radar']];
let http: HttpServer;
let endpoint: string;
/** Releases the calls of the tool that never answers. */
const hanging: (() => void)[] = [];
/** Waiters for the next call of the tool that never answers, and for the next response closed before it ended. */
const radarCalled: (() => void)[] = [];
const closedUnanswered: (() => void)[] = [];
const next = (waiters: (() => void)[]) => new Promise<void>((resolve) => waiters.push(resolve));
const wake = (waiters: (() => void)[]) => waiters.splice(0).forEach((resolve) => resolve());
const catalogs: ServiceCatalog[] = [];

/** One stateless MCP server per request, as the SDK's stateless example does. */
function toolServer(): Server {
  const server = new Server({ name: 'weather', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (request) => {
    const page = Number(request.params?.cursor ?? 0);
    const tools = pages[page].map((name) => ({ name, description: `The ${name} tool`, inputSchema: { type: 'object' as const, properties: { city: { type: 'string' } } } }));
    return page + 1 < pages.length ? { tools, nextCursor: String(page + 1) } : { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'radar') {
      wake(radarCalled);
      await new Promise<void>((resolve) => hanging.push(resolve));
    }
    const city = (request.params.arguments as { city?: string }).city;
    return { content: [{ type: 'text' as const, text: `Sunny in ${city}` }, { type: 'text' as const, text: 'No wind' }] };
  });
  return server;
}

beforeAll(async () => {
  http = createHttpServer(async (req, res) => {
    if (req.headers.authorization !== `Bearer ${serviceToken}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    res.on('close', () => { if (!res.writableFinished) wake(closedUnanswered); });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await toolServer().connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});

afterAll(async () => {
  for (const release of hanging) release();
  await Promise.all(catalogs.map((catalog) => catalog.close()));
  http.closeAllConnections();
  await new Promise((resolve) => http.close(resolve));
});

function catalogOf(endpointUrl: string, options: Partial<ServiceCatalogOptions> = {}) {
  const lines: string[] = [];
  const catalog = createServiceCatalog({ services: [{ id: 'weather', endpoint: endpointUrl, token: serviceToken }], log: (line) => lines.push(line), ...options });
  catalogs.push(catalog);
  return { catalog, lines };
}

describe('a configured tool service', () => {
  it('follows tools/list pages and offers every tool under the service id', async () => {
    const { catalog, lines } = catalogOf(endpoint);
    const tools = await catalog.tools();
    expect(tools.map((t) => `${t.collection}.${t.name}`)).toEqual(['weather.forecast', 'weather.alerts', 'weather.radar']);
    expect(tools[0]).toEqual({ collection: 'weather', name: 'forecast', description: 'The forecast tool', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } });
    expect(lines).toEqual(['[services] weather offered: 3 tools']);
  });

  it('joins the text content of a result without structured content', async () => {
    const { catalog } = catalogOf(endpoint);
    expect(await catalog.call('weather', 'forecast', { city: 'Oslo' })).toEqual({ isError: false, output: 'Sunny in Oslo\nNo wind' });
  });

  it('gives a call that outlives the call timeout back as an error result, and ends its HTTP request', async () => {
    const { catalog } = catalogOf(endpoint, { callTimeoutMs: 300 });
    const closed = next(closedUnanswered);
    const result = await catalog.call('weather', 'radar', { city: 'Oslo' });
    expect(result).toEqual({ isError: true, output: 'The weather service did not answer radar within 0.3 s. Try a smaller request, or try again later.' });
    await closed;
  });

  it('cancels a call with tool_cancelled and ends its HTTP request at the service', async () => {
    const { catalog } = catalogOf(endpoint);
    const controller = new AbortController();
    const called = next(radarCalled);
    const closed = next(closedUnanswered);
    const call = catalog.call('weather', 'radar', { city: 'Oslo' }, { signal: controller.signal });
    await called;
    controller.abort();
    await expect(call).rejects.toSatisfy((e) => isPlatformError(e, 'tool_cancelled'));
    await closed;
    expect(await catalog.call('weather', 'forecast', { city: 'Bergen' })).toEqual({ isError: false, output: 'Sunny in Bergen\nNo wind' });
  });

  it('does not offer a service that accepts connections but never answers discovery', async () => {
    const sockets = new Set<Socket>();
    const silent = createTcpServer((socket) => { sockets.add(socket); });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    try {
      const { catalog, lines } = catalogOf(`http://127.0.0.1:${port}/mcp`, { discoveryTimeoutMs: 300 });
      await catalog.warm();
      expect(await catalog.tools()).toEqual([]);
      expect(lines).toEqual([`[services] weather is not offered: discovery at 127.0.0.1:${port} failed (no answer within 0.3 s); retrying later`]);
      await catalog.close();
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
