/**
 * Hostile but valid input is stored losslessly, through the front proxy and the embedded store (SQLite): a public
 * webhook delivery whose body holds keys the store's codec or MongoDB could misread (`$date` with a string that
 * is no time, `$where`, `$set`, `$ref`, dotted keys, `__proto__`, the empty key, the stores' escape marker) opens a
 * session whose trigger variable reads back exactly as sent, and the session settles (its updates keep working).
 * A test agent with a webhook trigger (test/fixtures/agents/hooks) and the scripted model, as for the demo agent.
 *
 * Source: docs/decisions.md D17 § 8; docs/architecture.md § Ports and adapters (DocumentStore).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import {
  startScriptedModelServer, type ScriptedModelServer, scriptedModels,
} from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: RunningProduct;
let hookUrl: string;

beforeAll(async () => {
  model = await startScriptedModelServer([
    { text: 'Triaged the first delivery.' }, { text: 'Triaged the second delivery.' },
  ]);
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }) });
  const imported = runCairn(product.url, [
    'agent', 'import', join(repoRoot, 'test/fixtures/agents/hooks'), '--agent', 'hooks', '--publish',
  ]);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, [
    'connection', 'create', '--agent', 'hooks', '--env', 'main', '--id', 'github', '--protocol', 'webhook',
    '--auth', 'public', '--json',
  ]);
  expect(created.status, created.stderr).toBe(0);
  hookUrl = (JSON.parse(created.stdout) as { url: string }).url.replace(/^https?:\/\/[^/]+/, product.url);
}, 120_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
});

type Session = { id: string; status: string; variables: { trigger: { deliveryId: string; body: unknown } } };

/** The intake sessions once every one of `count` has left `running` (or whatever they are after 60 s). */
async function settledSessions(count: number): Promise<Session[]> {
  let sessions: Session[] = [];
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const answer = await fetch(`${product.url}/api/agents/hooks/environments/main/workflows/intake/sessions`);
    sessions = ((await answer.json()) as { sessions: Session[] }).sessions;
    if (sessions.length === count && sessions.every((s) => s.status !== 'running')) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  return sessions;
}

const deliver = (id: string, body: string) =>
  fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-delivery-id': id }, body });

describe('a webhook body with reserved keys', () => {
  it('reads back {"when":{"$date":"tomorrow"}} exactly, and the session settles', { timeout: 90_000 }, async () => {
    const accepted = await deliver('tomorrow', '{"when":{"$date":"tomorrow"}}');
    expect(accepted.status).toBe(202);
    const [session] = await settledSessions(1);
    expect(session.variables.trigger.body).toEqual({ when: { $date: 'tomorrow' } });
    expect(session.status).toBe('awaiting_input');
    const one = await (await fetch(`${product.url}/api/sessions/${session.id}`)).text();
    expect(one).toContain('"when":{"$date":"tomorrow"}');
  });

  it('keeps every other reserved key a caller may send, exactly as sent', { timeout: 90_000 }, async () => {
    const text = '{"$where":"sleep(1000)","$set":{"admin":true},"ref":{"$ref":"users","$id":"u1"},'
      + '"a.b":{"c.d":[{"$gt":1}]},'
      + '"":"empty","\uFF04date":"marker","at":{"$date":"2026-01-02T03:04:05.000Z"},"__proto__":{"polluted":true}}';
    expect((await deliver('reserved', text)).status).toBe(202);
    const sessions = await settledSessions(2);
    const session = sessions.find((s) => s.variables.trigger.deliveryId === 'reserved')!;
    expect(session.variables.trigger.body).toEqual(JSON.parse(text));
    expect(Object.keys(session.variables.trigger.body as object)).toEqual(Object.keys(JSON.parse(text) as object));
    expect(session.status).toBe('awaiting_input');
  });
});
