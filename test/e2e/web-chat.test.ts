/**
 * The Chat page in a real browser (Debian's Chromium through playwright-core) against the product as
 * `scripts/start` starts it (dev-user), with the demo model (test/helpers/demo-model.ts) standing in for
 * CAIRN_MODEL_*: / opens on /chat, which lists the demo agent's flights-analyst with its chat examples; a click on an
 * example fills the composer and sends nothing; Send streams the answer over the AG-UI endpoint of connection
 * `chat` (as the member: the chat is theirs); the review decision shows inline, a second tab that decides late is
 * told what happened (no 409, no console error), and the chat ends; the chat is in the member's history, and
 * opening it from there shows its messages. Enter sends and Shift+Enter adds a line. A message sent while the
 * workflow still answers (the demo model is slow for it: `slowMs`) shows at once, labelled queued behind the
 * running answer (the demo chat's trigger queues: `multitask` enqueue, docs/decisions.md D27), and runs once that
 * answer has left the chat waiting for input; the page has no sideways scroll at 375 px meanwhile. No console
 * errors or CSP violations. Screenshots (1280 and 375 px) land in test-results/web/.
 *
 * The demo model makes no workflow call, so sub-workflow blocks are checked on the transcript rules
 * (test/web/chat-transcript.test.ts); a Reader's refusal is checked by the route test (bins/api/chat-routes.test.ts):
 * under dev-user every request is the one local user.
 *
 * The stopped-turn notes (interrupt, rollback), a dropped message and a refused one (reject) are checked on the
 * transcript rules: the demo chat's trigger queues.
 *
 * Source: docs/decisions.md D10 § Chat, § Tests (chat through a decision to the end), D27 § 1; spec/platform-service.md § Stream and custom events.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatHistoryList } from '../../core/session/chat-views.ts';
import { desktop, launchBrowser, newTestPage, phone, screenshotBoth, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { DEMO_ANSWER, DEMO_CLARIFY, DEMO_SLOW, DEMO_UNCLEAR_QUESTION, startDemoModelServer } from '../helpers/demo-model.ts';
import type { ScriptedModelServer } from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: StartedWebApp;
let browser: Browser;

beforeAll(async () => {
  // The answer to a message holding DEMO_SLOW waits this long: long enough for the test to send its next message
  // and look at it queued (a window, not a measurement: nothing is timed).
  model = await startDemoModelServer({ slowMs: 20_000 });
  [product, browser] = await Promise.all([
    startWebApp({ PLATFORM_SIGN_IN: 'dev-user', CAIRN_MODEL_BASE_URL: model.baseUrl, CAIRN_MODEL: 'demo-model' }),
    launchBrowser(),
  ]);
  // The demo agent and its connections are seeded after the web app answers: wait for the chat endpoint's banner line.
  const banner = /^Demo agent AG-UI chat \(chat\): +(\S+)/;
  if (!product.run.lines.some((l) => banner.test(l))) await product.run.waitForLine(banner, 120_000);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await model?.close();
});

const EXAMPLE = 'Which state has the most delayed departures?';

describe('Chat page', () => {
  it('chats with flights-analyst from an example through the review decision to the end; the chat is in the history', { timeout: 240_000 }, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(product.base);
    await expect.poll(() => page.url()).toBe(`${product.base}/chat`);
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link').first().textContent()).resolves.toBe('Chat');
    const card = page.locator('.chat-card', { has: page.getByRole('heading', { name: 'Ask the flights analyst' }) });
    await card.waitFor();
    await expect(card.getByRole('group', { name: /Examples for/ }).getByRole('button').count()).resolves.toBe(3);
    await screenshotBoth(page, 'chat-start', { fullPage: true });

    const requestsBefore = model.requests.length;
    await card.getByRole('button', { name: EXAMPLE }).click();
    const composer = page.getByLabel('Message');
    await expect(composer.inputValue()).resolves.toBe(EXAMPLE);
    await page.waitForTimeout(500);
    expect(model.requests.length).toBe(requestsBefore);
    await expect(page.locator('.chat-msg').count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(new RegExp(`^${product.base}/chat/[^/]+$`));
    const threadId = page.url().split('/').at(-1)!;
    await page.locator('.chat-msg-user').getByText(EXAMPLE).waitFor();
    await page.locator('.chat-msg-assistant').getByText(DEMO_ANSWER).waitFor({ timeout: 90_000 });
    const decision = page.locator('.chat-decision');
    await decision.getByRole('button', { name: 'done', exact: true }).waitFor({ timeout: 60_000 });
    await expect(page.getByRole('button', { name: 'Send' }).isDisabled()).resolves.toBe(true);
    await screenshotBoth(page, 'chat-decision', { fullPage: true });

    // The chat is the member's own (opened through the AG-UI endpoint with their sign-in): it is in their history.
    const history = await (await fetch(`${product.base}/api/chat/history`)).json() as ChatHistoryList;
    expect(history.chats[0]).toMatchObject({ threadId, workflow: 'flights-analyst', status: 'awaiting_decision', firstMessage: EXAMPLE });
    await page.getByRole('list', { name: 'Your chats' }).locator(`a[href="/chat/${threadId}"]`).waitFor();

    // A second tab on the same chat, opened from the history, shows the stored messages and the same decision.
    const stale = await context.newPage();
    await stale.goto(`${product.base}/chat/${threadId}`);
    await stale.locator('.chat-msg-assistant').getByText(DEMO_ANSWER).waitFor();
    await stale.locator('.chat-decision').getByRole('button', { name: 'done', exact: true }).waitFor();

    await decision.getByRole('button', { name: 'done', exact: true }).click();
    await page.getByText('This chat has ended (succeeded).').waitFor({ timeout: 60_000 });
    await expect(page.getByRole('button', { name: 'Send' }).count()).resolves.toBe(0);
    await screenshotBoth(page, 'chat-ended', { fullPage: true });

    // Deciding again in the other tab is answered with what happened, not an error and not a refused request.
    await stale.locator('.chat-decision').getByRole('button', { name: 'done', exact: true }).click();
    await stale.getByText('This decision was already taken', { exact: false }).waitFor();
    await expect(stale.locator('.error-box').count()).resolves.toBe(0);
    await stale.close();

    const after = await (await fetch(`${product.base}/api/chat/history`)).json() as ChatHistoryList;
    expect(after.chats[0]).toMatchObject({ threadId, status: 'succeeded' });

    // Opening the chat from the history in a fresh page shows its messages.
    await page.goto(`${product.base}/chat`);
    await page.getByRole('list', { name: 'Your chats' }).locator(`a[href="/chat/${threadId}"]`).click();
    await page.locator('.chat-msg-user').getByText(EXAMPLE).waitFor();
    await page.getByText('This chat has ended (succeeded).').waitFor();
    await screenshotBoth(page, 'chat-history-open', { fullPage: true });
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('sends with Enter and adds a line with Shift+Enter', { timeout: 240_000 }, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/chat`);
    const card = page.locator('.chat-card', { has: page.getByRole('heading', { name: 'Ask the flights analyst' }) });
    await card.getByRole('button', { name: EXAMPLE }).click();
    const composer = page.getByLabel('Message');
    await composer.fill('');
    // An Enter on an empty message sends nothing.
    await composer.press('Enter');
    await composer.pressSequentially('Which airport');
    await composer.press('Shift+Enter');
    await composer.pressSequentially('has the longest delays?');
    await expect(composer.inputValue()).resolves.toBe('Which airport\nhas the longest delays?');
    expect(page.url()).toBe(`${product.base}/chat`);
    await screenshotBoth(page, 'chat-shift-enter');

    const requestsBefore = model.requests.length;
    await composer.press('Enter');
    await page.waitForURL(new RegExp(`^${product.base}/chat/[^/]+$`));
    await page.locator('.chat-msg-user').getByText('has the longest delays?', { exact: false }).waitFor();
    await expect.poll(() => model.requests.length, { timeout: 60_000 }).toBeGreaterThan(requestsBefore);
    const history = await (await fetch(`${product.base}/api/chat/history`)).json() as ChatHistoryList;
    // The message went as typed, on two lines (the history's preview shows it on one).
    expect(history.chats[0].firstMessage).toBe('Which airport has the longest delays?');
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('sends a message while the workflow still answers: it shows queued, then runs after the answer', { timeout: 240_000 }, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/chat`);
    const card = page.locator('.chat-card', { has: page.getByRole('heading', { name: 'Ask the flights analyst' }) });
    await card.getByRole('button', { name: EXAMPLE }).click();
    const composer = page.getByRole('textbox', { name: 'Message' });
    const slowQuestion = `${DEMO_UNCLEAR_QUESTION} ${DEMO_SLOW}`;
    await composer.fill(slowQuestion);
    const from = model.requests.length;
    await page.getByRole('button', { name: 'Send' }).click();
    await page.waitForURL(new RegExp(`^${product.base}/chat/[^/]+$`));
    // The first answer's model call has begun (and waits): its turn runs.
    const asked = (words: string) => model.requests.slice(from).some((r) => JSON.stringify((r.body as { messages?: unknown[] } | undefined)?.messages?.at(-1) ?? '').includes(words));
    await expect.poll(() => asked(DEMO_SLOW), { timeout: 60_000 }).toBe(true);
    await page.getByText('The workflow is still answering; you can send another message now.').waitFor();

    await composer.fill(EXAMPLE);
    await page.getByRole('button', { name: 'Send' }).click();
    await expect(composer.inputValue()).resolves.toBe('');
    const second = page.locator('.chat-msg-user', { hasText: EXAMPLE });
    await second.getByRole('status').getByText('Queued: runs after the current answer').waitFor();
    expect(asked(EXAMPLE)).toBe(false);
    await screenshotBoth(page, 'chat-queued', { fullPage: true });
    await page.setViewportSize(phone);
    await expect(page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).resolves.toBe(0);
    await page.setViewportSize(desktop);

    // The first answer asks back and leaves the chat waiting for input: the queued message runs, and is answered.
    await page.locator('.chat-msg-assistant').getByText(DEMO_CLARIFY).waitFor({ timeout: 90_000 });
    await page.locator('.chat-msg-assistant').getByText(DEMO_ANSWER).waitFor({ timeout: 90_000 });
    await expect(second.locator('.chat-queued').count()).resolves.toBe(0);
    await expect(page.locator('.chat-msg').evaluateAll((all) => all.map((m) => m.querySelector('p')?.textContent))).resolves.toEqual([slowQuestion, EXAMPLE, DEMO_CLARIFY, DEMO_ANSWER]);
    await page.locator('.chat-decision').getByRole('button', { name: 'done', exact: true }).waitFor({ timeout: 60_000 });
    expect(problems.all()).toEqual([]);
    await context.close();
  });
});
