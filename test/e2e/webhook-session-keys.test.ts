/**
 * Session keys through the front proxy: a webhook trigger declaring `session: ticket-{{ body.ticket }}` (fixture
 * agent "tickets"), a bearer webhook connection, the scripted model. Two deliveries about one ticket go to one
 * session as two turns (the second carries its firing in the message the model reads; the `trigger` variable keeps
 * the first); a delivery about another ticket, or without one, opens its own session. A delivery whose key would be
 * over 256 characters is answered 400 before anything is taken: its retry with a usable key is taken.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { startScriptedModelServer, type ScriptedModelServer, scriptedModels } from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: RunningProduct;
let hook: { url: string; token: string };

type Session = { id: string; status: string; variables: { trigger: { deliveryId: string; body: { ticket?: string } } } };
type Shown = { session: Session; turns: { kind: string; status: string }[]; messages: { message: { role: string; content?: unknown } }[] };

beforeAll(async () => {
  model = await startScriptedModelServer([{ text: 'Looking at ticket T-1.' }, { text: 'Noted the update of T-1.' }, { text: 'Looking at ticket T-2.' }, { text: 'A delivery without a ticket.' },
    { text: 'Looking at ticket T-9.' },
  ]);
  const config = { models: scriptedModels(model) };
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify(config) });
  const imported = runCairn(product.url, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/tickets'), '--agent', 'tickets', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['connection', 'create', '--agent', 'tickets', '--env', 'main', '--id', 'tickets', '--protocol', 'webhook', '--auth', 'bearer', '--json']);
  expect(created.status, created.stderr).toBe(0);
  const connection = JSON.parse(created.stdout) as { url: string; token: string };
  hook = { url: connection.url.replace(/^https?:\/\/[^/]+/, product.url), token: connection.token };
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
});

const deliver = async (deliveryId: string, body: Record<string, unknown>) => {
  const answer = await fetch(hook.url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${hook.token}`, 'x-delivery-id': deliveryId }, body: JSON.stringify(body) });
  expect(answer.status).toBe(202);
};

const list = async () => (await (await fetch(`${product.url}/api/agents/tickets/environments/main/workflows/support/sessions`)).json() as { sessions: Session[] }).sessions;
const show = async (id: string) => (await (await fetch(`${product.url}/api/sessions/${id}`)).json()) as Shown;

/** Polls until `done` holds (the dispatcher works off the request), at most 60 s. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 60_000;
  let value = await read();
  while (!done(value) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await read();
  }
  return value;
}

describe('webhook session keys', () => {
  it('send two deliveries about one ticket to one session as two turns, and other tickets to their own', { timeout: 120_000 }, async () => {
    await deliver('d-1', { ticket: 'T-1', update: 'opened' });
    const [first] = await until(list, (s) => s.length === 1 && s[0].status === 'awaiting_input');
    expect(first).toMatchObject({ status: 'awaiting_input', variables: { trigger: { deliveryId: 'd-1', body: { ticket: 'T-1' } } } });

    await deliver('d-2', { ticket: 'T-1', update: 'customer replied' });
    // The session reads awaiting_input from its first turn until the second one runs: wait for both turns to settle.
    const shown = await until(() => show(first.id), (s) => s.turns.length === 2 && s.turns.every((t) => t.status !== 'queued' && t.status !== 'running') && s.session.status === 'awaiting_input');
    expect(shown.turns.map((t) => [t.kind, t.status])).toEqual([['delivery', 'awaiting_input'], ['delivery', 'awaiting_input']]);
    expect(shown.session.variables.trigger.deliveryId).toBe('d-1');
    const userMessages = shown.messages.filter((m) => m.message.role === 'user').map((m) => String(m.message.content));
    expect(userMessages[1]).toMatch(/joined this session by its session key "ticket-T-1"[\s\S]*"deliveryId":"d-2"[\s\S]*"update":"customer replied"/);
    expect(JSON.stringify(model.requests[1].body.messages)).toContain('customer replied');

    await deliver('d-3', { ticket: 'T-2' });
    await deliver('d-4', { note: 'no ticket' });
    const sessions = await until(list, (s) => s.length === 3 && s.every((x) => x.status === 'awaiting_input'));
    expect(sessions.map((s) => s.variables.trigger.deliveryId).sort()).toEqual(['d-1', 'd-3', 'd-4']);
    expect(model.requests).toHaveLength(4);
  });

  it('answer 400 to a delivery whose session key is over 256 characters, taking nothing', { timeout: 60_000 }, async () => {
    const post = (body: Record<string, unknown>) => fetch(hook.url, {
      method: 'POST', body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${hook.token}`, 'x-delivery-id': 'd-long' },
    });
    const refused = await post({ ticket: 'x'.repeat(300) });
    expect(refused.status).toBe(400);
    const { error } = await refused.json() as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_session_key');
    expect(error.message).toContain('at most 256 characters (this one has 307)');
    const retried = await post({ ticket: 'T-9' });
    expect([retried.status, await retried.json()]).toEqual([202, { delivery: 'd-long' }]);
  });
});
