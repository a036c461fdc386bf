/**
 * Project directories for e2e tests (models/*.yaml, data/*) and MCP clients for a project endpoint.
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { QueryOutput } from '../../core/semantic/tools/tool-definitions.ts';
import { repoRoot } from './product.ts';

export const flightsModel = join(repoRoot, 'scripts/demo/flights/models/flights.yaml');
export const fixtureModel = (name: string) => join(repoRoot, 'test/fixtures/semantic', name);
const vega = join(repoRoot, 'node_modules/vega-datasets/data');

/** A project directory holding the given model files (path or {name, text}) and the flights data. */
export function projectDir(models: (string | { name: string; text: string })[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-project-'));
  mkdirSync(join(dir, 'models'));
  mkdirSync(join(dir, 'data'));
  for (const model of models) {
    if (typeof model === 'string') copyFileSync(model, join(dir, 'models', basename(model)));
    else writeFileSync(join(dir, 'models', model.name), model.text);
  }
  copyFileSync(join(vega, 'flights-3m.parquet'), join(dir, 'data', 'flights.parquet'));
  copyFileSync(join(vega, 'airports.csv'), join(dir, 'data', 'airports.csv'));
  return dir;
}

/** A connected MCP SDK client for `endpoint` with `token` (none when undefined). */
export async function mcpClient(endpoint: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'cairn-e2e', version: '1.0.0' });
  const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers } }));
  return client;
}

/** The text of a tool result's first content item. */
export function textOf(result: object): string {
  const content = ((result as { content?: unknown }).content ?? []) as { type: string; text?: string }[];
  return content.map((c) => c.text ?? '').join('\n');
}

/**
 * The answer of execute_query or execute_stored_query: the JSON text of the result's one text item. Throws when the
 * result has any other shape, structuredContent included: the rows are carried once, as text (docs/decisions.md D18 §
 * 3).
 */
export function queryOutputOf(result: object): QueryOutput {
  type Result = { content?: { type: string; text?: string }[]; structuredContent?: unknown };
  const { content, structuredContent } = result as Result;
  if (structuredContent !== undefined) {
    throw new Error('The query result carries structuredContent: its rows must be carried once, as text.');
  }
  if (content?.length !== 1 || content[0].type !== 'text') {
    throw new Error(`The query result is not one text item: ${JSON.stringify(content).slice(0, 300)}`);
  }
  return JSON.parse(content[0].text ?? '') as QueryOutput;
}

/** A tools/list to an MCP endpoint with `token`, straight over HTTP (no client): the status code (401 for a refused token). */
export async function toolsListStatus(url: string, token: string): Promise<number> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  await response.body?.cancel();
  return response.status;
}
