/**
 * Child sessions and completion firings through the product: the relay test agent's `lead` workflow calls its
 * `helper` workflow as a tool (a child session with dispatch id 1, run inside the lead's turn worker), then ends
 * succeeded; its completion firing opens a session of `after-lead`, which runs to its end. All against the
 * scripted model.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, scriptedModels } from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: RunningProduct;

beforeAll(async () => {
  model = await startScriptedModelServer([
    { toolCalls: [{ name: 'platform_workflow_helper', arguments: { topic: 'cancellations' } }] },
    { text: 'Looked up.', toolCalls: [{ name: 'platform_advance', arguments: { to: 'finished', reason: 'done' } }] },
    { text: 'The helper answered.', toolCalls: [{ name: 'platform_advance', arguments: { to: 'done', reason: 'answered' } }] },
    { text: 'Noted.', toolCalls: [{ name: 'platform_advance', arguments: { to: 'end', reason: 'noted' } }] },
  ]);
  const config = { models: scriptedModels(model) };
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify(config) });
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/relay'), '--agent', 'relay', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
});

type Session = { id: string; workflow: string; status: string; state: string; dispatchId?: string; parentId?: string; variables: Record<string, unknown>; usage: { modelCalls: number } };

async function get<T>(path: string): Promise<T> {
  return (await fetch(`${product.url}${path}`)).json() as Promise<T>;
}

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(value)}\n${product.output.slice(-20).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('child sessions and completion firings', () => {
  it('runs a workflow call as a child session with dispatch id 1, then fires the completion trigger naming the workflow', { timeout: 150_000 }, async () => {
    const started = await fetch(`${product.url}/api/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'relay', environment: 'main', workflow: 'lead', message: 'Go.' }) });
    expect(started.status).toBe(201);
    const { session } = await started.json() as { session: Session };
    const shown = await until(() => get<{ session: Session; children: Session[] }>(`/api/sessions/${session.id}`), (s) => s.session.status !== 'running', 'lead still running');
    expect(shown.session).toMatchObject({ status: 'succeeded', state: 'done' });
    expect(shown.children).toEqual([expect.objectContaining({ workflow: 'helper', status: 'succeeded', state: 'finished', dispatchId: '1', parentId: session.id, variables: { topic: 'cancellations' } })]);
    // The helper's arguments reached the child's model as the child's first message; its {message, returns} came back up.
    expect(model.requests[1].body.messages.at(-1)).toMatchObject({ role: 'user', content: JSON.stringify({ topic: 'cancellations' }) });
    const toolResult = model.requests[2].body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(JSON.parse(toolResult.content)).toEqual({ message: 'Looked up.', returns: {} });

    const followUps = await until(() => get<{ sessions: Session[] }>('/api/agents/relay/environments/main/workflows/after-lead/sessions'), (l) => l.sessions.some((s) => s.status === 'succeeded'), 'no finished after-lead session');
    expect(followUps.sessions).toHaveLength(1);
    expect(followUps.sessions[0]).toMatchObject({ workflow: 'after-lead', status: 'succeeded', state: 'end', variables: { trigger: { type: 'completion', workflow: 'lead', sessionId: session.id, status: 'succeeded', state: 'done' } } });
    expect(model.requests).toHaveLength(4);
  });
});
