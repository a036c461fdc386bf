/**
 * Double-texting through the AG-UI endpoint, driven by @ag-ui/client's HttpAgent (docs/decisions.md D27 § 1): a test
 * agent with one chat workflow per `multitask` strategy, each chat trigger naming its own public AG-UI connection, and
 * the scripted model, whose delayed answer keeps the first turn running while a second HttpAgent on the same thread
 * (sending the thread secret back) sends the next message. `reject` refuses it (409 turn_running); `enqueue` queues
 * it (RUN_STARTED, `platform.queued`, then its own turn), keeps three in order, and drops a queued one when the chat
 * is cancelled (RUN_ERROR message_dropped); `interrupt` stops the first turn before its next model call keeping what
 * it did; `rollback` discards it; a pending decision refuses a message whatever the strategy (409 decision_pending).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import {
  type AguiThread, customsOf as customs, issuedThread, kindsOf as kinds, sendOnThread as send, textOf as texts,
} from '../helpers/agui-thread-runs.ts';
import { repoRoot, runCairnAsync, startProduct, type RunningProduct } from '../helpers/product.ts';
import {
  scriptedModels, startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn,
} from '../helpers/scripted-model-server.ts';

const strategies = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
type Strategy = (typeof strategies)[number];

/** The scripted model's answers, appended by each test before it sends (the server reads it at each request). */
const script: ScriptedTurn[] = [];
/** How long the first turn's model call takes: the second message is sent once the call reached the model. */
const SLOW = 2_500;
let model: ScriptedModelServer;
let product: RunningProduct;
const urls = {} as Record<Strategy, string>;

// The cairn commands run asynchronously: a blocked event loop would leave the client a keep-alive socket the
// front proxy already closed.
beforeAll(async () => {
  model = await startScriptedModelServer(script);
  product = await startProduct({ PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }) });
  const fixture = join(repoRoot, 'test/fixtures/agents/multitask');
  const imported = await runCairnAsync(product.url, ['agent', 'import', fixture, '--agent', 'multitask', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  for (const strategy of strategies) {
    const created = await runCairnAsync(product.url, ['connection', 'create', '--agent', 'multitask', '--env', 'main',
      '--id', strategy, '--protocol', 'agui', '--auth', 'public', '--json']);
    expect(created.status, created.stderr).toBe(0);
    urls[strategy] = (JSON.parse(created.stdout) as { url: string }).url.replace(/^https?:\/\/[^/]+/, product.url);
  }
}, 180_000);

afterAll(async () => {
  await product?.stop();
  await model?.close();
});

type Thread = AguiThread & { sessionId: string };

/** Opens a chat on `strategy`'s connection; the model answers `answer`. */
async function open(strategy: Strategy, answer: ScriptedTurn): Promise<Thread> {
  script.push(answer);
  const { events } = await send({ url: urls[strategy], threadId: '', secret: '' }, 'Hello').done;
  return issuedThread(urls[strategy], events);
}

/** Resolves once the scripted model received `count` requests (the turn that sent the last one is at the model). */
async function modelReached(count: number): Promise<void> {
  for (let i = 0; i < 600 && model.requests.length < count; i += 1) await new Promise((r) => setTimeout(r, 50));
  expect(model.requests.length).toBeGreaterThanOrEqual(count);
}

interface SessionDetail {
  session: { status: string; state: string; variables: Record<string, unknown>; trail: { state: string }[] };
  messages: { turnId: string; message: { role: string; content?: string; toolCalls?: { name: string }[] } }[];
  turns: { id: string; status: string }[];
}
/** The session as a member reads it (`GET /api/sessions/<id>`; the product runs without sign-in). */
async function sessionOf(thread: Thread): Promise<SessionDetail> {
  const response = await fetch(`${product.url}/api/sessions/${thread.sessionId}`);
  expect(response.status).toBe(200);
  return (await response.json()) as SessionDetail;
}
const said = (detail: SessionDetail, role: string) =>
  detail.messages.filter((m) => m.message.role === role && m.message.content).map((m) => m.message.content);

describe('double-texting through the AG-UI endpoint', () => {
  it('reject: the second message is refused with 409 turn_running and the first run finishes', async () => {
    const thread = await open('reject', { text: 'Hi.' });
    script.push({ text: 'Slow answer.', delayMs: SLOW });
    const first = send(thread, 'First?');
    await modelReached(script.length);
    const second = await send(thread, 'Second?').done;
    expect(second.error?.status).toBe(409);
    expect(second.error?.payload.error)
      .toMatchObject({ code: 'turn_running', message: expect.stringMatching(/turn .*still running/) });
    const { events } = await first.done;
    expect(texts(events)).toBe('Slow answer.');
    expect(events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { status: 'awaiting_input' } });
    expect(said(await sessionOf(thread), 'user')).toEqual(['Hello', 'First?']);
    // Sent as soon as the first run finished: the chat waits for input, so even `reject` takes it.
    script.push({ text: 'Third answer.' });
    const third = await send(thread, 'Third?').done;
    expect(third.error).toBeUndefined();
    expect(texts(third.events)).toBe('Third answer.');
  });

  it('enqueue: the second message waits behind the running turn, then runs as its own turn', async () => {
    const thread = await open('enqueue', { text: 'Hi.' });
    script.push({ text: 'First answer.', delayMs: SLOW }, { text: 'Second answer.' });
    const first = send(thread, 'First?');
    await modelReached(script.length - 1);
    const second = send(thread, 'Second?');
    expect(await second.queued).toMatchObject({ position: 1, turnId: expect.any(String) });
    const [one, two] = await Promise.all([first.done, second.done]);
    expect(texts(one.events)).toBe('First answer.');
    expect(kinds(one.events)).toEqual(['RUN_STARTED', 'RUN_FINISHED']);
    expect(texts(two.events)).toBe('Second answer.');
    expect(kinds(two.events)).toEqual(['RUN_STARTED', 'CUSTOM platform.queued', 'RUN_FINISHED']);
    expect(two.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { status: 'awaiting_input' } });
    const detail = await sessionOf(thread);
    expect(said(detail, 'user')).toEqual(['Hello', 'First?', 'Second?']);
    expect(said(detail, 'assistant')).toEqual(['Hi.', 'First answer.', 'Second answer.']);
  });

  it('enqueue: three messages queued behind a turn run in the order they were sent', async () => {
    const thread = await open('enqueue', { text: 'Hi.' });
    script.push({ text: 'One.', delayMs: SLOW }, { text: 'Two.' }, { text: 'Three.' }, { text: 'Four.' });
    const first = send(thread, 'One?');
    await modelReached(script.length - 3);
    const runs = [first];
    for (const [i, text] of ['Two?', 'Three?', 'Four?'].entries()) {
      runs.push(send(thread, text));
      expect(await runs.at(-1)!.queued).toMatchObject({ position: i + 1 });
    }
    const ended = await Promise.all(runs.map((r) => r.done));
    expect(ended.map((r) => texts(r.events))).toEqual(['One.', 'Two.', 'Three.', 'Four.']);
    const detail = await sessionOf(thread);
    expect(said(detail, 'user')).toEqual(['Hello', 'One?', 'Two?', 'Three?', 'Four?']);
    expect(said(detail, 'assistant')).toEqual(['Hi.', 'One.', 'Two.', 'Three.', 'Four.']);
  });

  it('enqueue: cancelling the chat drops a queued message, whose run ends RUN_ERROR message_dropped', async () => {
    const thread = await open('enqueue', { text: 'Hi.' });
    script.push({ text: 'Never shown.', delayMs: SLOW });
    const first = send(thread, 'First?');
    await modelReached(script.length);
    const second = send(thread, 'Second?');
    expect(await second.queued).toMatchObject({ position: 1 });
    const cancelled = await runCairnAsync(product.url, ['session', 'cancel', thread.sessionId]);
    expect(cancelled.status, cancelled.stderr).toBe(0);
    const [one, two] = await Promise.all([first.done, second.done]);
    expect(two.events.at(-1)).toMatchObject({ type: 'RUN_ERROR', code: 'message_dropped' });
    expect(texts(two.events)).toBe('');
    expect(one.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', outcome: { type: 'cancelled' } });
    const detail = await sessionOf(thread);
    expect(detail.session.status).toBe('cancelled');
    expect(said(detail, 'user')).toEqual(['Hello', 'First?']);
    expect(model.requests).toHaveLength(script.length);
  });

  for (const strategy of ['interrupt', 'rollback'] as const) {
    it(`${strategy}: the second message stops the running turn before its next model call`, async () => {
      const thread = await open(strategy, { text: 'Hi.' });
      script.push({
        delayMs: SLOW,
        toolCalls: [
          { name: 'platform_set_variables', arguments: { variables: { note: 'set by the first turn' } } },
          { name: 'platform_advance', arguments: { to: 'second', reason: 'step one done' } },
        ],
      }, { text: 'Doing that instead.' });
      const first = send(thread, 'Do step one.');
      await modelReached(script.length - 1);
      const second = send(thread, 'Stop, do this instead.');
      expect(await second.queued).toMatchObject({ position: 1 });
      const [one, two] = await Promise.all([first.done, second.done]);
      expect(customs(one.events, 'platform.notice'))
        .toEqual([{ code: 'turn_interrupted', mode: strategy, message: expect.any(String) }]);
      expect(one.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { interrupted: true } });
      expect(one.events.filter((e) => e.type === 'TOOL_CALL_START').map((e) => e.toolCallName))
        .toEqual(['platform_set_variables', 'platform_advance']);
      expect(texts(two.events)).toBe('Doing that instead.');
      expect(two.events.at(-1)).toMatchObject({ type: 'RUN_FINISHED', result: { status: 'awaiting_input' } });
      // The stopped turn made no model call after its tool calls: the next request was the second message's turn.
      expect(model.requests).toHaveLength(script.length);
      const sentToModel = JSON.stringify(model.requests.at(-1)!.body.messages);
      const detail = await sessionOf(thread);
      const calls = detail.messages.flatMap((m) => m.message.toolCalls ?? []).map((c) => c.name);
      if (strategy === 'interrupt') {
        expect(said(detail, 'user')).toEqual(['Hello', 'Do step one.', 'Stop, do this instead.']);
        expect(calls).toEqual(['platform_set_variables', 'platform_advance']);
        expect(detail.session).toMatchObject({ state: 'second', variables: { note: 'set by the first turn' } });
        expect(sentToModel).toContain('Do step one.');
      } else {
        expect(said(detail, 'user')).toEqual(['Hello', 'Stop, do this instead.']);
        expect(calls).toEqual([]);
        expect(detail.session.state).toBe('talk');
        expect(detail.session.variables.note).toBeUndefined();
        expect(detail.session.trail.map((t) => t.state)).toEqual(['talk']);
        expect(sentToModel).not.toContain('Do step one.');
      }
      expect(said(detail, 'assistant')).toEqual(['Hi.', 'Doing that instead.']);
    });
  }

  it('a pending decision refuses a message whatever the strategy (409 decision_pending)', async () => {
    for (const strategy of strategies) {
      const thread = await open(strategy, {
        toolCalls: [{ name: 'platform_advance', arguments: { to: 'review', reason: 'a person should look' } }],
      });
      const refused = await send(thread, 'Anything new?').done;
      expect(refused.error?.status, strategy).toBe(409);
      expect(refused.error?.payload.error.code, strategy).toBe('decision_pending');
      expect((await sessionOf(thread)).session.status).toBe('awaiting_decision');
    }
  });
});
