/**
 * The Chat page with each double-texting strategy (docs/decisions.md D27 § 1), in a real browser (Debian's Chromium
 * through playwright-core) against the product as `scripts/start` starts it (dev-user), with the scripted model
 * (test/helpers/scripted-model-server.ts) standing in for CAIRN_MODEL_*, and the test agent
 * test/fixtures/agents/multitask imported and published: one chat workflow per `multitask` strategy, each chat
 * trigger naming its own AG-UI connection (registered here with the web app's origin, so the page may call it).
 *
 * For each strategy the member opens the workflow's chat, sends a first message whose answer the scripted model
 * delays (a window, not a measurement: nothing is timed), waits until the model received that request, sends a
 * second message, and sees:
 * - reject: the platform's refusal as a notice and the second message back in the composer; the first answer
 *   arrives, and the message sent again is answered;
 * - enqueue: the second message labelled queued behind the running answer, then its answer after the first;
 * - interrupt: the first run's tool calls, "Stopped by your new message", then the second answer;
 * - rollback: "Stopped and discarded by your new message", the stopped run's entries (its message too) greyed and
 *   marked discarded, then the second answer.
 * No console errors, no CSP violations, no error box. Screenshots (1280 px; rollback also 375 px) land in
 * test-results/web/. The Chat page is the same in the compiled product, so there is no compiled twin.
 *
 * Source: docs/decisions.md D27 § 1 (AG-UI, the Chat page), D10 § Chat; spec/platform-service.md § Stream and custom
 * events.
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  launchBrowser, newTestPage, phone, screenshot, screenshotBoth, startWebApp, type StartedWebApp,
} from '../helpers/browser.ts';
import { repoRoot, runCairnAsync } from '../helpers/product.ts';
import {
  startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn,
} from '../helpers/scripted-model-server.ts';

const strategies = ['reject', 'enqueue', 'interrupt', 'rollback'] as const;
type Strategy = (typeof strategies)[number];

/** The scripted model's answers, one per request in order (the server reads it at each request). */
const script: ScriptedTurn[] = [];
/** How long the first answer's model call takes: the window in which the second message is sent. */
const SLOW = 10_000;
/** The composer's hint while the workflow answers (ChatPage.tsx). */
const STILL_ANSWERING = 'The workflow is still answering; you can send another message now.';
let model: ScriptedModelServer;
let product: StartedWebApp;
let browser: Browser;

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  [product, browser] = await Promise.all([
    startWebApp({ PLATFORM_SIGN_IN: 'dev-user', CAIRN_MODEL_BASE_URL: model.baseUrl, CAIRN_MODEL: 'scripted-model' }),
    launchBrowser(),
  ]);
  // The demo agent is seeded after the web app answers: let it finish before this agent is imported.
  const banner = /^Demo agent AG-UI chat \(chat\): +(\S+)/;
  if (!product.run.lines.some((l) => banner.test(l))) await product.run.waitForLine(banner, 120_000);
  const fixture = join(repoRoot, 'test/fixtures/agents/multitask');
  const imported = await runCairnAsync(product.base, ['agent', 'import', fixture, '--agent', 'multitask', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  for (const strategy of strategies) {
    const created = await runCairnAsync(product.base, ['connection', 'create', '--agent', 'multitask', '--env', 'main',
      '--id', strategy, '--protocol', 'agui', '--auth', 'public', '--origins', product.base]);
    expect(created.status, created.stderr).toBe(0);
  }
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await model?.close();
});

/**
 * Appends `turns` to the script as the model's next answers (after filling in for any request the script did not
 * plan, so the answers meet the requests they are meant for); answers how many requests come before them.
 */
function answers(...turns: ScriptedTurn[]): number {
  while (script.length < model.requests.length) script.push({ text: '(unplanned request)' });
  const before = script.length;
  script.push(...turns);
  return before;
}

/** The first answer of interrupt and rollback: tool calls, then an advance, so the turn has a next model call. */
const toolAnswer: ScriptedTurn = {
  delayMs: SLOW,
  toolCalls: [
    { name: 'platform_set_variables', arguments: { variables: { note: 'set by the first turn' } } },
    { name: 'platform_advance', arguments: { to: 'second', reason: 'step one done' } },
  ],
};

/**
 * Opens `strategy`'s workflow on the Chat page, sends `first` (whose answer is slow), waits until the model
 * received its request (`requestsBefore` + 1) and the page says the workflow still answers, then sends `second`.
 */
async function doubleText(
  page: Page, strategy: Strategy, requestsBefore: number, [first, second]: [string, string],
): Promise<void> {
  await page.goto(`${product.base}/chat`);
  const title = `Chat with multitask ${strategy}`;
  const card = page.locator('.chat-card', { has: page.getByRole('heading', { name: title, exact: true }) });
  await card.getByRole('button', { name: `Chat with ${title}` }).click();
  await card.getByText('Chatting with this workflow.').waitFor();
  const composer = page.getByRole('textbox', { name: 'Message' });
  await composer.fill(first);
  await page.getByRole('button', { name: 'Send' }).click();
  await page.waitForURL(new RegExp(`^${product.base}/chat/[^/]+$`));
  await expect.poll(() => model.requests.length, { timeout: 60_000 }).toBe(requestsBefore + 1);
  await page.getByText(STILL_ANSWERING).waitFor();
  await composer.fill(second);
  await page.getByRole('button', { name: 'Send' }).click();
}

/** The transcript as a person reads it: who and what of each message, each note, each tool call. */
function transcriptOf(page: Page): Promise<string[]> {
  return page.locator('.chat-transcript > li:not(.chat-running)').evaluateAll((all) => all.map((li) => {
    if (li.classList.contains('chat-tool')) return `tool ${li.querySelector('code')?.textContent}`;
    const who = li.querySelector('.chat-who')?.textContent;
    const text = li.querySelector('p')?.textContent ?? li.textContent;
    return who ? `${who}: ${text}` : `${text}`;
  }));
}

const assistant = (page: Page, text: string) => page.locator('.chat-msg-assistant').getByText(text, { exact: true });
const stoppedNote = (page: Page, text: string) => page.locator('.chat-stopped').getByText(text, { exact: true });
/** Each test waits on the product and the browser: a generous limit (nothing is timed). */
const long = { timeout: 240_000 };

describe('Chat page double-texting, one workflow per multitask strategy', () => {
  it('reject: the refusal is a notice, the message back in the composer; the first answer arrives', long, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    const before = answers({ text: 'Slow answer.', delayMs: SLOW }, { text: 'Answer to the second.' });
    await doubleText(page, 'reject', before, ['First?', 'Second?']);
    const notice = page.locator('.chat-transcript .notice', { hasText: /turn .*still running/ });
    await notice.waitFor();
    const composer = page.getByRole('textbox', { name: 'Message' });
    await expect(composer.inputValue()).resolves.toBe('Second?');
    await expect(page.locator('.chat-msg-user').allTextContents()).resolves.toEqual(['YouFirst?']);
    // Chromium logs every refused request ("Failed to load resource: … 409"): the refused send is the point of this
    // step, and nothing else was logged.
    expect(problems.all()).toEqual([expect.stringMatching(/status of 409 .*\/api\/agui\//)]);
    problems.clear();
    await assistant(page, 'Slow answer.').waitFor({ timeout: 90_000 });
    await expect(composer.inputValue()).resolves.toBe('Second?');
    await screenshot(page, 'chat-multitask-reject-1280', { fullPage: true });

    // Sent again once the first answer left the chat waiting for input: taken and answered.
    await page.getByRole('button', { name: 'Send' }).click();
    await assistant(page, 'Answer to the second.').waitFor({ timeout: 90_000 });
    const seen = await transcriptOf(page);
    expect(seen.map((s) => s.replace(/^.*still running.*$/, '(refused)'))).toEqual([
      'You: First?', '(refused)', 'Chat with multitask reject: Slow answer.',
      'You: Second?', 'Chat with multitask reject: Answer to the second.',
    ]);
    expect(model.requests).toHaveLength(before + 2);
    await expect(page.locator('.error-box').count()).resolves.toBe(0);
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('enqueue: the second message shows queued, then its answer comes after the first', long, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    const before = answers({ text: 'First answer.', delayMs: SLOW }, { text: 'Second answer.' });
    await doubleText(page, 'enqueue', before, ['First?', 'Second?']);
    const second = page.locator('.chat-msg-user', { hasText: 'Second?' });
    await second.getByRole('status').getByText('Queued: runs after the current answer').waitFor();
    await expect(page.getByRole('textbox', { name: 'Message' }).inputValue()).resolves.toBe('');
    expect(model.requests).toHaveLength(before + 1);
    await assistant(page, 'Second answer.').waitFor({ timeout: 90_000 });
    await expect(second.locator('.chat-queued').count()).resolves.toBe(0);
    await expect(transcriptOf(page)).resolves.toEqual([
      'You: First?', 'You: Second?',
      'Chat with multitask enqueue: First answer.', 'Chat with multitask enqueue: Second answer.',
    ]);
    await screenshot(page, 'chat-multitask-enqueue-1280', { fullPage: true });
    await expect(page.locator('.error-box').count()).resolves.toBe(0);
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('interrupt: the turn stops at its next model call, noted; the second message is answered', long, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    const before = answers(toolAnswer, { text: 'Doing that instead.' });
    await doubleText(page, 'interrupt', before, ['Do step one.', 'Stop, do this instead.']);
    await page.locator('.chat-msg-user', { hasText: 'Stop, do this instead.' }).getByRole('status').waitFor();
    await stoppedNote(page, 'Stopped by your new message').waitFor({ timeout: 90_000 });
    await assistant(page, 'Doing that instead.').waitFor({ timeout: 90_000 });
    await expect(transcriptOf(page)).resolves.toEqual([
      'You: Do step one.', 'You: Stop, do this instead.', 'tool platform_set_variables', 'tool platform_advance',
      'Stopped by your new message', 'Chat with multitask interrupt: Doing that instead.',
    ]);
    // What the stopped turn did is kept: nothing is greyed.
    await expect(page.locator('.chat-discarded').count()).resolves.toBe(0);
    expect(model.requests).toHaveLength(before + 2);
    await screenshot(page, 'chat-multitask-interrupt-1280', { fullPage: true });
    await expect(page.locator('.error-box').count()).resolves.toBe(0);
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('rollback: the turn stops, its entries greyed as discarded; the second message is answered', long, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    const before = answers(toolAnswer, { text: 'Doing that instead.' });
    await doubleText(page, 'rollback', before, ['Do step one.', 'Stop, do this instead.']);
    await stoppedNote(page, 'Stopped and discarded by your new message').waitFor({ timeout: 90_000 });
    await assistant(page, 'Doing that instead.').waitFor({ timeout: 90_000 });
    await expect(transcriptOf(page)).resolves.toEqual([
      'You · discarded: Do step one.', 'You: Stop, do this instead.',
      'tool platform_set_variables', 'tool platform_advance',
      'Stopped and discarded by your new message', 'Chat with multitask rollback: Doing that instead.',
    ]);
    // The stopped run's message and tool calls are greyed; the new message and its answer are not.
    const greyed = page.locator('.chat-discarded');
    await expect(greyed.count()).resolves.toBe(3);
    await expect(greyed.first().textContent()).resolves.toContain('Do step one.');
    await expect(page.locator('.chat-tool:not(.chat-discarded)').count()).resolves.toBe(0);
    expect(model.requests).toHaveLength(before + 2);
    await screenshotBoth(page, 'chat-multitask-rollback', { fullPage: true });
    await page.setViewportSize(phone);
    const sideways = () => document.documentElement.scrollWidth - document.documentElement.clientWidth;
    await expect(page.evaluate(sideways)).resolves.toBe(0);
    await expect(page.locator('.error-box').count()).resolves.toBe(0);
    expect(problems.all()).toEqual([]);
    await context.close();
  });
});
