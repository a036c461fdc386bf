/**
 * A scripted model server for tests: a real HTTP server on 127.0.0.1 speaking the OpenAI-compatible
 * chat-completions protocol (`POST /v1/chat/completions`, streamed as server-sent events or as one JSON body).
 * It replays the turns a test gives, one per request, and records every request it received (body, headers,
 * and whether the client closed the connection before the answer ended). No test calls a hosted model.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A tool call the scripted model makes. */
export interface ScriptedToolCall {
  /** Default `call_<request>_<index>`. */
  id?: string;
  name: string;
  /** Serialised as JSON; streamed in `pieces` chunks (default 1). */
  arguments: unknown;
  pieces?: number;
}

/** One answer of the scripted model (to one request). */
export interface ScriptedTurn {
  /** The answer's text; an array is streamed one delta per element. */
  text?: string | string[];
  toolCalls?: ScriptedToolCall[];
  /** Default: prompt 10, completion 5, no cached tokens. A function computes it from the request's body. */
  usage?: ScriptedUsage | ((body: any) => ScriptedUsage); // eslint-disable-line @typescript-eslint/no-explicit-any
  /** Streamed: after the usage chunk, send an error chunk instead of `[DONE]` (a failure the provider billed). */
  failAfterUsage?: boolean;
  /** Streamed: send no usage chunk at all (a provider that reports no usage). */
  withoutUsage?: boolean;
  /** Wait this long before answering (milliseconds). */
  delayMs?: number;
  /** Answer this HTTP status with an error body instead of a completion. */
  status?: number;
  /** Stream only the first text delta, then keep the connection open until the client closes it. */
  hang?: boolean;
}

/** Token counts the scripted model reports. */
export interface ScriptedUsage { promptTokens: number; completionTokens: number; cachedTokens?: number }

/** A request the server received (any path: a request to another route is recorded, then answered 404). */
export interface RecordedRequest {
  /** Path and query, e.g. `/v1/chat/completions`. */
  path: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: IncomingMessage['headers'];
  /** True once the client closed the connection before the answer ended. */
  clientClosed: boolean;
}

/** A running scripted model server. */
export interface ScriptedModelServer {
  /** Base URL of the OpenAI-compatible API, ending in `/v1`. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Resolves when the client of request `index` (0-based) closes its connection before the answer ended. */
  clientClosed(index: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a scripted model server that answers chat-completions request n with `turns[n]` (a request past the
 * script gets 500; a request to another route is recorded and answered 404).
 */
export async function startScriptedModelServer(turns: ScriptedTurn[]): Promise<ScriptedModelServer> {
  const requests: RecordedRequest[] = [];
  const closeWaiters = new Map<number, Array<() => void>>();
  const server = createServer((req, res) => {
    void handle(req, res).catch(() => res.destroy());
  });
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    const index = requests.length;
    const record: RecordedRequest = { path: req.url ?? '', body: text === '' ? undefined : JSON.parse(text), headers: req.headers, clientClosed: false };
    requests.push(record);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') return json(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
    const body = record.body as { stream?: boolean };
    res.on('close', () => {
      if (res.writableEnded) return;
      record.clientClosed = true;
      for (const wake of closeWaiters.get(index) ?? []) wake();
    });
    const scripted = turns[index];
    const turn = typeof scripted?.usage === 'function' ? { ...scripted, usage: scripted.usage(body) } : scripted;
    if (turn === undefined) return json(res, 500, { error: { message: `scripted model server: no turn ${index + 1} in a script of ${turns.length}` } });
    if (turn.delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, turn.delayMs));
    if (turn.status !== undefined) return json(res, turn.status, { error: { message: `scripted status ${turn.status}`, type: 'scripted_error' } });
    if (body.stream === true) streamTurn(res, turn, index);
    else json(res, 200, completion(turn, index));
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    clientClosed: (index) => new Promise((resolve) => {
      if (requests[index]?.clientClosed === true) return resolve();
      closeWaiters.set(index, [...(closeWaiters.get(index) ?? []), resolve]);
    }),
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of req) chunks.push(chunk as Uint8Array);
  return new TextDecoder().decode(Buffer.concat(chunks));
}

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

const MODEL = 'scripted';

function usageOf(turn: ScriptedTurn): Record<string, unknown> {
  const usage = (turn.usage as ScriptedUsage | undefined) ?? { promptTokens: 10, completionTokens: 5 };
  return {
    prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
  };
}

function callId(call: ScriptedToolCall, request: number, index: number): string {
  return call.id ?? `call_${request}_${index}`;
}

function finishReason(turn: ScriptedTurn): string {
  return (turn.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop';
}

function completion(turn: ScriptedTurn, request: number): Record<string, unknown> {
  const text = Array.isArray(turn.text) ? turn.text.join('') : turn.text;
  const toolCalls = (turn.toolCalls ?? []).map((call, index) => ({
    id: callId(call, request, index), type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  return {
    id: `chatcmpl-${request}`, object: 'chat.completion', created: 0, model: MODEL,
    choices: [{ index: 0, message: { role: 'assistant', content: text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) }, finish_reason: finishReason(turn) }],
    usage: usageOf(turn),
  };
}

/** Splits `text` into `pieces` non-empty parts (fewer when the text is shorter). */
function split(text: string, pieces: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, pieces)));
  const parts: string[] = [];
  for (let at = 0; at < text.length; at += size) parts.push(text.slice(at, at + size));
  return parts;
}

function streamTurn(res: ServerResponse, turn: ScriptedTurn, request: number): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    res.write(`data: ${JSON.stringify({ id: `chatcmpl-${request}`, object: 'chat.completion.chunk', created: 0, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
  chunk({ role: 'assistant', content: '' });
  const deltas = turn.text === undefined ? [] : Array.isArray(turn.text) ? turn.text : [turn.text];
  if (turn.hang === true) {
    if (deltas[0] !== undefined) chunk({ content: deltas[0] });
    return;
  }
  for (const text of deltas) chunk({ content: text });
  (turn.toolCalls ?? []).forEach((call, index) => {
    chunk({ tool_calls: [{ index, id: callId(call, request, index), type: 'function', function: { name: call.name, arguments: '' } }] });
    for (const piece of split(JSON.stringify(call.arguments), call.pieces ?? 1)) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
  });
  chunk({}, finishReason(turn));
  if (turn.withoutUsage !== true) res.write(`data: ${JSON.stringify({ id: `chatcmpl-${request}`, object: 'chat.completion.chunk', created: 0, model: MODEL, choices: [], usage: usageOf(turn) })}\n\n`);
  if (turn.failAfterUsage === true) {
    const error = { message: 'scripted failure after usage', type: 'server_error' };
    res.end(`data: ${JSON.stringify({ error })}\n\n`);
    return;
  }
  res.end('data: [DONE]\n\n');
}

/** Prices (USD per million tokens) of the scripted model unless a test names others. */
export const scriptedModelPrices = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 };

/**
 * The config's `models` section offering `server` as model `scripted-model` (provider `scripted`,
 * openai-compatible), at `prices` (default {@link scriptedModelPrices}).
 */
export function scriptedModels(server: { baseUrl: string }, prices = scriptedModelPrices) {
  return { providers: [{ id: 'scripted', type: 'openai-compatible', apiBaseUrl: server.baseUrl }], offered: [{ id: 'scripted-model', provider: 'scripted', prices }] };
}
