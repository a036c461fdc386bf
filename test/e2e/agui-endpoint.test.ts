/**
 * The AG-UI endpoint of an incoming connection, through the front proxy, driven by @ag-ui/client's HttpAgent: a
 * public AG-UI connection registered with `cairn connection create`, a test agent whose concierge workflow's chat
 * trigger names it, the scripted model. A chat opens (RUN_STARTED carries the platform's thread id), continues
 * on that thread, streams a child session as platform.sub_workflow_* events without leaking its text into the
 * chat's messages, parks on a decision (RUN_FINISHED with an interrupt outcome), refuses a message while the
 * decision is pending (409) and takes the decision as a resume entry. Client tools are reported as not honoured.
 * A public caller's thread is bound to the thread secret issued with it (custom event `platform.thread_secret`):
 * the thread id without the secret opens a fresh chat.
 */
import { HttpAgent, type BaseEvent } from '@ag-ui/client';
import { AGUI_MEDIA_TYPE, decode } from '@ag-ui/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { unlistedCollections } from '../helpers/stored-collections.ts';
import { startScriptedModelServer, type ScriptedModelServer, scriptedModels } from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: RunningProduct;
let url: string;

beforeAll(async () => {
  model = await startScriptedModelServer([
    { text: ['Hello! ', 'What shall I ', 'look up?'] },
    { toolCalls: [{ name: 'platform_workflow_helper', arguments: { topic: 'cancellations' } }] },
    { text: 'Child text: 42 cancellations.', toolCalls: [{ name: 'platform_advance', arguments: { to: 'finished', reason: 'looked up' } }] },
    { text: 'The helper found 42 cancellations; a person should review this.', toolCalls: [{ name: 'platform_advance', arguments: { to: 'review', reason: 'finding ready' } }] },
    { text: 'Public hello.' },
    { text: 'Stranger hello.' },
    { text: 'Stranger again.' },
    { text: 'Owner again.' },
    { text: 'Binary hello.' },
    { text: 'Hello, member.' },
    { text: 'Still here, member.' },
    { text: 'Hello again.' },
  ]);
  const config = { models: scriptedModels(model) };
  // The platform's own pages (a member's sign-in counts as their own doing from there).
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify(config), CORS_ALLOWED_ORIGINS: 'https://cairn.example' });
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/front'), '--agent', 'front', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['connection', 'create', '--agent', 'front', '--env', 'main', '--id', 'front', '--protocol', 'agui', '--auth', 'public', '--json']);
  expect(created.status, created.stderr).toBe(0);
  url = (JSON.parse(created.stdout) as { url: string }).url.replace(/^https?:\/\/[^/]+/, product.url);
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
});

/** The thread secret RUN_STARTED issued to each agent (a public caller sends it back with every later run). */
const secrets = new WeakMap<HttpAgent, string>();

/**
 * Runs the agent once, collecting every event; the thread id RUN_STARTED issues becomes the agent's, and the thread
 * secret of `platform.thread_secret` is sent back in forwardedProps on the next runs.
 */
async function run(agent: HttpAgent, options: Parameters<HttpAgent['runAgent']>[0] = {}): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  const secret = secrets.get(agent);
  await agent.runAgent({ ...options, ...(secret ? { forwardedProps: { threadSecret: secret } } : {}) }, {
    onEvent: ({ event }) => { events.push(event); },
    onRunStartedEvent: ({ event }) => { agent.threadId = event.threadId; },
    // The thread secret comes as a custom event (clients keep only the protocol's own fields of RUN_STARTED).
    onCustomEvent: ({ event }) => {
      const issued = (event.value as { threadSecret?: unknown } | undefined)?.threadSecret;
      if (event.name === 'platform.thread_secret' && typeof issued === 'string') secrets.set(agent, issued);
    },
  });
  return events;
}

/** One run over fetch (server-sent events): its status and events. */
async function postRun(body: Record<string, unknown>): Promise<{ status: number; events: Record<string, any>[] }> {
  const response = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ runId: 'r', tools: [], context: [], ...body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    events: text.split('\n').filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, any>),
  };
}

const ofType = (events: BaseEvent[], type: string) => events.filter((e) => e.type === type) as (BaseEvent & Record<string, unknown>)[];
const customs = (events: BaseEvent[], name: string) => ofType(events, 'CUSTOM').filter((e) => e.name === name).map((e) => e.value as Record<string, unknown>);

describe('the AG-UI endpoint', () => {
  it('chats through a child workflow and a decision with HttpAgent', async () => {
    const agent = new HttpAgent({ url, threadId: 'a-thread-the-platform-never-issued' });
    agent.addMessage({ id: 'u1', role: 'user', content: 'Hello' });
    const first = await run(agent, { tools: [{ name: 'client_tool', description: 'A tool of the page.', parameters: { type: 'object' } }] });
    const started = ofType(first, 'RUN_STARTED')[0];
    expect(started.threadId).not.toBe('a-thread-the-platform-never-issued');
    const threadId = agent.threadId;
    expect(customs(first, 'platform.notice')[0]).toMatchObject({ code: 'client_tools_ignored' });
    // Streamed live as the model writes it (one event per delta), then closed once the reply is recorded.
    const deltas = ofType(first, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
    expect(deltas.join('')).toBe('Hello! What shall I look up?');
    expect(deltas.length).toBeGreaterThan(1);
    expect(ofType(first, 'TEXT_MESSAGE_START')).toHaveLength(1);
    expect(ofType(first, 'TEXT_MESSAGE_END')).toHaveLength(1);
    expect(ofType(first, 'RUN_FINISHED')[0]).toMatchObject({ threadId, outcome: { type: 'success' }, result: { status: 'awaiting_input' } });

    agent.addMessage({ id: 'u2', role: 'user', content: 'Look up cancellations.' });
    const second = await run(agent);
    expect(ofType(second, 'RUN_STARTED')[0].threadId).toBe(threadId);
    expect(customs(second, 'platform.sub_workflow_start')).toEqual([{ dispatchId: '1', workflow: 'helper' }]);
    const frames = customs(second, 'platform.sub_workflow_frame');
    expect(frames.every((f) => f.dispatchId === '1' && f.parent === undefined)).toBe(true);
    expect(frames.some((f) => (f.message as { content?: string }).content === 'Child text: 42 cancellations.')).toBe(true);
    expect(customs(second, 'platform.sub_workflow_result')).toEqual([{ dispatchId: '1', status: 'succeeded', message: 'Child text: 42 cancellations.' }]);
    const texts = ofType(second, 'TEXT_MESSAGE_CONTENT').map((e) => e.delta);
    expect(texts).toEqual(['The helper found 42 cancellations; a person should review this.']);
    // The child's own messages come only as frames; what it passes up is the workflow call's tool result.
    expect(agent.messages.filter((m) => m.role === 'assistant').some((m) => typeof m.content === 'string' && m.content.includes('Child text'))).toBe(false);
    expect(agent.messages.some((m) => m.role === 'tool' && typeof m.content === 'string' && m.content.includes('Child text: 42 cancellations.'))).toBe(true);
    expect(ofType(second, 'TOOL_CALL_START').map((e) => e.toolCallName)).toEqual(['platform_workflow_helper', 'platform_advance']);
    expect(ofType(second, 'TOOL_CALL_RESULT')).toHaveLength(2);
    const finished = ofType(second, 'RUN_FINISHED')[0] as unknown as { outcome: { type: string; interrupts: { id: string; reason: string; responseSchema: unknown }[] } };
    expect(finished.outcome.type).toBe('interrupt');
    const [interrupt] = finished.outcome.interrupts;
    expect(interrupt).toMatchObject({ reason: 'decision', responseSchema: { properties: { to: { enum: ['approved', 'rejected'] } } } });
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual([interrupt.id]);

    const refused = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        threadId, runId: 'r-409', tools: [], context: [], forwardedProps: { threadSecret: secrets.get(agent) },
        messages: [{ id: 'u3', role: 'user', content: 'Are you there?' }],
      }),
    });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'decision_pending', message: expect.stringContaining(interrupt.id) });

    const third = await run(agent, { resume: [{ interruptId: interrupt.id, status: 'resolved', payload: { to: 'approved', comment: 'Looks right.' } }] });
    expect(ofType(third, 'RUN_FINISHED')[0]).toMatchObject({ threadId, outcome: { type: 'success' }, result: { status: 'succeeded' } });
    expect(model.requests).toHaveLength(4);
    const sessions = (await (await fetch(`${product.url}/api/agents/front/environments/main/workflows/concierge/sessions`)).json()) as { sessions: { status: string; variables: Record<string, unknown> }[] };
    expect(sessions.sessions).toHaveLength(1);
    expect(sessions.sessions[0]).toMatchObject({ status: 'succeeded', variables: { trigger: { type: 'chat', connection: 'front', caller: 'public' } } });
  });

  it('binds a public thread to the secret issued with it: its id alone continues nothing', async () => {
    const first = await postRun({ threadId: '', messages: [{ id: 'u1', role: 'user', content: 'Hello' }] });
    expect(first.status).toBe(200);
    const started = first.events[0];
    expect(started.type).toBe('RUN_STARTED');
    const issued = first.events[1];
    expect(issued).toMatchObject({
      type: 'CUSTOM', name: 'platform.thread_secret',
      value: { threadId: started.threadId, threadSecret: expect.stringMatching(/^[\w-]{43}$/) },
    });
    const secret = issued.value.threadSecret as string;
    const sessionOf = (events: Record<string, any>[]) => events.at(-1)!.result.sessionId as string;
    const session = sessionOf(first.events);
    // Someone who learnt the thread id, without the secret or with a wrong one: a fresh chat of their own.
    for (const forwardedProps of [{}, { threadSecret: 'not-the-secret' }]) {
      const stranger = await postRun({
        threadId: started.threadId, forwardedProps,
        messages: [{ id: 'u2', role: 'user', content: 'Show me that chat' }],
      });
      expect(stranger.status).toBe(200);
      expect(stranger.events[0].threadId).not.toBe(started.threadId);
      expect(sessionOf(stranger.events)).not.toBe(session);
    }
    const owner = await postRun({
      threadId: started.threadId, forwardedProps: { threadSecret: secret },
      messages: [{ id: 'u3', role: 'user', content: 'Still there?' }],
    });
    expect(owner.events[0]).toMatchObject({ type: 'RUN_STARTED', threadId: started.threadId });
    expect(sessionOf(owner.events)).toBe(session);
    expect(owner.events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta).join(''))
      .toBe('Owner again.');
  });

  it('refuses a body that is not a RunAgentInput or has no user message (400), and 404s an unknown address', async () => {
    const post = (body: unknown, target = url) => fetch(target, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(body) });
    const bad = await post({ threadId: '', messages: 'hello' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/not a RunAgentInput/);
    const empty = await post({ threadId: '', runId: 'r', tools: [], context: [], messages: [] });
    expect(empty.status).toBe(400);
    expect((await post({ threadId: '', runId: 'r', tools: [], context: [], messages: [] }, `${product.url}/api/agui/not-an-address`)).status).toBe(404);
  });

  it('answers in the protocol\'s binary encoding when Accept asks for it', async () => {
    const response = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: AGUI_MEDIA_TYPE },
      body: JSON.stringify({ threadId: '', runId: 'r-proto', tools: [], context: [], messages: [{ id: 'u1', role: 'user', content: 'Hello' }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(AGUI_MEDIA_TYPE);
    const bytes = new Uint8Array(await response.arrayBuffer());
    const events: { type: string; delta?: string }[] = [];
    for (let offset = 0; offset < bytes.length;) {
      const length = new DataView(bytes.buffer, bytes.byteOffset + offset, 4).getUint32(0, false);
      events.push(decode(bytes.subarray(offset + 4, offset + 4 + length)) as { type: string; delta?: string });
      offset += 4 + length;
    }
    expect(events[0].type).toBe('RUN_STARTED');
    expect(events.find((e) => e.type === 'TEXT_MESSAGE_CONTENT')?.delta).toBe('Binary hello.');
    expect(events.at(-1)?.type).toBe('RUN_FINISHED');
  });

  it('sends a member\'s fresh thread to their open chat when the chat trigger keys sessions by subject', async () => {
    const fresh = async () => {
      const response = await fetch(url, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', origin: 'https://cairn.example' },
        body: JSON.stringify({ threadId: '', runId: 'r-member', tools: [], context: [], messages: [{ id: 'u1', role: 'user', content: 'Hello' }] }),
      });
      expect(response.status).toBe(200);
      const events = (await response.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
      return { threadId: events[0].threadId as string, finished: events.at(-1) as { result: { sessionId: string; status: string } }, texts: events.filter((e) => e.type === 'TEXT_MESSAGE_CONTENT').map((e) => e.delta) };
    };
    const first = await fresh();
    const second = await fresh();
    expect(second.finished.result.sessionId).toBe(first.finished.result.sessionId);
    expect(second.threadId).not.toBe(first.threadId);
    expect(second.texts.join('')).toBe('Still here, member.');
  });

  it('admits by the connection\'s mode and origins, restores the address of a re-registered identifier, and limits calls', async () => {
    const removed = runCairn(product.url, ['connection', 'delete', '--agent', 'front', '--env', 'main', '--id', 'front']);
    expect(removed.status, removed.stderr).toBe(0);
    const created = runCairn(product.url, ['connection', 'create', '--agent', 'front', '--env', 'main', '--id', 'front', '--protocol', 'agui', '--auth', 'bearer', '--origins', 'https://app.example', '--rate', '1,300', '--json']);
    expect(created.status, created.stderr).toBe(0);
    const again = JSON.parse(created.stdout) as { url: string; token: string };
    expect(again.url.replace(/^https?:\/\/[^/]+/, product.url)).toBe(url);
    const body = JSON.stringify({ threadId: '', runId: 'r', tools: [], context: [], messages: [{ id: 'u1', role: 'user', content: 'Hello' }] });
    const post = (headers: Record<string, string>) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers }, body });
    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const bearer = { authorization: `Bearer ${again.token}` };
    expect((await post({ ...bearer, origin: 'https://elsewhere.example' })).status).toBe(403);
    const preflight = await fetch(url, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const admitted = await post({ ...bearer, origin: 'https://app.example' });
    expect(admitted.status).toBe(200);
    expect(admitted.headers.get('access-control-allow-origin')).toBe('https://app.example');
    const stream = await admitted.text();
    expect(stream).toMatch(/"type":"RUN_STARTED"/);
    expect(stream).toMatch(/"type":"RUN_FINISHED"/);
    const limited = await post({ ...bearer, origin: 'https://app.example' });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
  });

  it('puts a connection edit in effect on the next publish, not before', async () => {
    const preflight = () => fetch(url, { method: 'OPTIONS', headers: { origin: 'https://other.example', 'access-control-request-method': 'POST' } });
    const edited = await fetch(`${product.url}/api/agents/front/environments/main/connections/front`, {
      method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ origins: ['https://app.example', 'https://other.example'] }),
    });
    expect(edited.status).toBe(200);
    expect(((await edited.json()) as { connection: { pendingChange: { origins: string[] } } }).connection.pendingChange.origins).toContain('https://other.example');
    expect((await preflight()).status).toBe(403);
    const published = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/front'), '--agent', 'front', '--publish']);
    expect(published.status, published.stderr).toBe(0);
    let status = 0;
    for (let i = 0; i < 50 && status !== 204; i += 1) {
      status = (await preflight()).status;
      if (status !== 204) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(204);
    const applied = /connection edits took effect on the publish of environment main of agent \S+: front/;
    for (let i = 0; i < 50 && !product.output.some((l) => applied.test(l)); i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(product.output.some((l) => applied.test(l))).toBe(true);
  });

  it('stores nothing in a collection the release does not list', () => {
    expect(unlistedCollections(product.dataDir)).toEqual([]);
  });
});
