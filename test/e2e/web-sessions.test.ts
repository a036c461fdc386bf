/**
 * The Sessions pages in a real browser (Debian's Chromium through playwright-core) against the product as
 * `scripts/start` starts it (dev-user), with the demo model (test/helpers/demo-model.ts) standing in for
 * CAIRN_MODEL_*: a webhook fired at the demo agent's hooks connection (its URL read from the start banner) opens a
 * session that shows in /sessions filtered by agent flights-analyst; its page shows the trail and the tool calls
 * with their statuses; the review decision is taken from the page (a second click on the now-gone decision is
 * harmless) and the session finishes; another session is cancelled from its page with the confirm step; a chat the
 * model asked back on (waiting for input) is answered with Reply from its session page and goes on to review; a
 * webhook connection created on the Connections page is published, its curl example is run by curl, and the session
 * it opens is decided from its page. No console
 * errors or CSP violations. Screenshots (1280 and 375 px) land in test-results/web/.
 *
 * Source: docs/decisions.md D10 § Sessions, § Tests (create a webhook connection and fire it with curl, see the session
 * appear, decide it from the session page); spec/platform-service.md § Session facts named.
 */
import { execFileSync } from 'node:child_process';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionListView } from '../../core/session/session-views.ts';
import { launchBrowser, newTestPage, screenshotBoth, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { DEMO_ANSWER, DEMO_CLARIFY, DEMO_UNCLEAR_QUESTION, startDemoModelServer } from '../helpers/demo-model.ts';
import type { ScriptedModelServer } from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: StartedWebApp;
let browser: Browser;
let hooksUrl: string;
let chatUrl: string;

beforeAll(async () => {
  model = await startDemoModelServer();
  [product, browser] = await Promise.all([
    startWebApp({ PLATFORM_SIGN_IN: 'dev-user', CAIRN_MODEL_BASE_URL: model.baseUrl, CAIRN_MODEL: 'demo-model' }),
    launchBrowser(),
  ]);
  const banner = /^Demo agent webhook \(hooks\): +(\S+)/;
  hooksUrl = banner.exec(product.run.lines.find((l) => banner.test(l)) ?? await product.run.waitForLine(banner, 60_000))![1];
  const chatBanner = /^Demo agent AG-UI chat \(chat\): +(\S+)/;
  chatUrl = chatBanner.exec(product.run.lines.find((l) => chatBanner.test(l)) ?? await product.run.waitForLine(chatBanner, 60_000))![1];
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await model?.close();
});

/** Fires the demo webhook with `deliveryId` and waits until its session waits for the review decision; answers its id. */
async function fireAndPark(deliveryId: string): Promise<string> {
  const fired = await fetch(hooksUrl, { method: 'POST', headers: { 'content-type': 'application/json', 'x-delivery-id': deliveryId }, body: JSON.stringify({ question: 'Which state has the most delayed departures?' }) });
  expect(fired.status).toBe(202);
  const deadline = Date.now() + 90_000;
  for (;;) {
    const listed = await (await fetch(`${product.base}/api/sessions?agent=flights-analyst&workflow=flights-analyst`)).json() as SessionListView;
    const found = listed.sessions.find((s) => (s.variables.trigger as { deliveryId?: string } | undefined)?.deliveryId === deliveryId);
    if (found?.status === 'awaiting_decision') return found.id;
    if (found && found.status !== 'running') throw new Error(`The webhook's session ended ${found.status}: ${JSON.stringify(found.error)}`);
    if (Date.now() > deadline) throw new Error(`No session of delivery ${deliveryId} reached the review decision in 90 s.`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Sends `message` as a new chat to the demo agent's AG-UI endpoint (a public caller), reads the stream to its end, and answers the id of the session it left waiting for input. */
async function chatAndPark(message: string): Promise<string> {
  const input = { threadId: '', runId: 'run-1', state: {}, tools: [], context: [], forwardedProps: {}, messages: [{ id: 'm-1', role: 'user', content: message }] };
  const streamed = await fetch(chatUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(input) });
  expect(streamed.status).toBe(200);
  const events = await streamed.text();
  expect(events).toContain('RUN_FINISHED');
  const listed = await (await fetch(`${product.base}/api/sessions?agent=flights-analyst&workflow=flights-analyst&status=awaiting_input`)).json() as SessionListView;
  expect(listed.sessions).toHaveLength(1);
  return listed.sessions[0]!.id;
}

const badgeOf = (page: Page) => page.locator('.page-header h1 .badge');

describe('Sessions pages', () => {
  it('lists a webhook session, shows its trail and tool calls, decides it from its page, and cancels another', { timeout: 240_000 }, async () => {
    const decided = await fireAndPark('web-sessions-1');
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });

    await page.goto(`${product.base}/sessions`);
    await page.getByLabel('Agent').fill('flights-analyst');
    await page.getByLabel('Status').selectOption('awaiting_decision');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const row = page.locator(`a[href="/sessions/${decided}"]`);
    await row.waitFor();
    await expect(row.textContent()).resolves.toContain('awaiting decision');
    await screenshotBoth(page, 'sessions-list');

    await row.click();
    await page.waitForURL(`${product.base}/sessions/${decided}`);
    await expect(badgeOf(page).textContent()).resolves.toBe('awaiting decision');
    await page.locator('.session-facts').getByRole('link', { name: 'flights-analyst', exact: true }).waitFor();
    const trail = page.getByRole('list', { name: 'Trail' });
    await trail.getByText('review', { exact: true }).waitFor();
    const calls = page.getByRole('list', { name: 'Tool calls' }).first();
    await calls.getByText('platform_advance').waitFor();
    await expect(calls.locator('.badge-ok').count()).resolves.toBeGreaterThanOrEqual(2);
    await page.locator('.session-message-user').first().waitFor();
    await page.locator('.session-message-assistant').getByText(DEMO_ANSWER).first().waitFor();
    await page.getByRole('heading', { name: 'Usage and cost' }).waitFor();
    await screenshotBoth(page, 'session-decision', { fullPage: true });

    // A second tab showing the same decision, to decide twice.
    const stale = await context.newPage();
    await stale.goto(`${product.base}/sessions/${decided}`);
    await stale.getByRole('button', { name: 'done', exact: true }).waitFor();

    await page.getByLabel('Comment (optional)').fill('Numbers checked against the source.');
    await page.getByRole('button', { name: 'done', exact: true }).click();
    await page.getByText('Decided: done.').waitFor();
    await page.waitForFunction(() => document.querySelector('.page-header h1 .badge')?.textContent === 'succeeded', undefined, { timeout: 60_000 });
    await trail.getByText('done', { exact: true }).waitFor();
    // The decision's comment is recorded in the trail.
    await trail.getByText('Numbers checked against the source.', { exact: false }).waitFor();
    await expect(page.getByRole('button', { name: 'Cancel session' }).count()).resolves.toBe(0);
    // Deciding again in the other tab is answered with where the session went, not an error.
    await stale.getByRole('button', { name: 'done', exact: true }).click();
    await stale.getByText('This decision was already taken', { exact: false }).waitFor();
    await expect(stale.getByText('Could not decide').count()).resolves.toBe(0);
    await stale.waitForFunction(() => document.querySelector('.page-header h1 .badge')?.textContent !== 'awaiting decision');
    await stale.close();
    await screenshotBoth(page, 'session-succeeded', { fullPage: true });

    const cancelled = await fireAndPark('web-sessions-2');
    await page.goto(`${product.base}/sessions/${cancelled}`);
    await page.getByRole('button', { name: 'Cancel session' }).click();
    await page.getByRole('button', { name: 'Keep it' }).click();
    await page.getByRole('button', { name: 'Cancel session' }).click();
    await screenshotBoth(page, 'session-cancel-confirm');
    await page.getByRole('button', { name: 'Yes, cancel session' }).click();
    await page.getByText('Session cancelled.').waitFor();
    await page.waitForFunction(() => document.querySelector('.page-header h1 .badge')?.textContent === 'cancelled');
    await expect(page.getByRole('button', { name: 'done', exact: true }).count()).resolves.toBe(0);

    await page.goto(`${product.base}/sessions`);
    await page.getByLabel('Status').selectOption('cancelled');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.locator(`a[href="/sessions/${cancelled}"]`).waitFor();
    await expect(page.locator(`a[href="/sessions/${decided}"]`).count()).resolves.toBe(0);

    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('replies from the page to a session waiting for input; the reply takes it on to the review decision', { timeout: 180_000 }, async () => {
    const waiting = await chatAndPark(DEMO_UNCLEAR_QUESTION);
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/sessions/${waiting}`);
    await page.waitForFunction(() => document.querySelector('.page-header h1 .badge')?.textContent === 'awaiting input');
    await page.getByText(DEMO_CLARIFY).first().waitFor();
    await expect(page.getByRole('button', { name: 'Send reply' }).isDisabled()).resolves.toBe(true);
    await page.getByLabel('Reply').fill('Departure delays, by state.');
    await screenshotBoth(page, 'session-reply', { fullPage: true });
    await page.getByRole('button', { name: 'Send reply' }).click();
    await page.getByText('Reply sent.').waitFor();
    await page.waitForFunction(() => document.querySelector('.page-header h1 .badge')?.textContent === 'awaiting decision', undefined, { timeout: 60_000 });
    await page.getByText('Departure delays, by state.').first().waitFor();
    await page.getByRole('button', { name: 'done', exact: true }).waitFor();
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it('wires a webhook from the Connections page and fires its curl example: the session appears and is decided from its page', { timeout: 240_000 }, async () => {
    // Start from an environment whose webhook trigger names connection "hooks", which it does not have.
    const connections = `${product.base}/api/agents/flights-analyst/environments/main/connections`;
    expect((await fetch(`${connections}/hooks`, { method: 'DELETE' })).status).toBe(204);
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/agents/flights-analyst/environments/main/connections`);
    const row = (identifier: string) => page.locator('tr', { has: page.locator(`strong:text-is("${identifier}")`) });
    await row('chat').waitFor();
    await expect(row('hooks').count()).resolves.toBe(0);

    await page.getByRole('button', { name: 'New connection' }).click();
    await page.getByLabel('Identifier').fill('hooks');
    await page.getByLabel('Protocol').selectOption({ label: 'Webhook' });
    await page.getByLabel('Authentication').selectOption({ label: 'None: anyone with the URL' });
    await page.getByRole('button', { name: 'Create connection' }).click();
    await page.getByRole('status').filter({ hasText: 'Connection “hooks” created' }).waitFor();
    // As the page says, it takes effect on the next publish.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.locator('.op-status').getByText('Publish: Succeeded').waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: 'Connections' }).click();
    await row('hooks').locator('td[data-label="Status"]').getByText('Serving (1)').waitFor({ timeout: 60_000 });

    // The row's curl example, run by curl as the sender would.
    await row('hooks').getByRole('button', { name: 'Examples' }).click();
    const example = (await page.getByLabel('Webhook (curl)', { exact: true }).textContent())!;
    expect(example).toMatch(/^curl -X POST '/);
    const sent = execFileSync('sh', ['-c', `${example.trim()} -sS -H 'x-delivery-id: web-sessions-curl'`], { encoding: 'utf8' });
    expect(JSON.parse(sent)).toEqual({ delivery: 'web-sessions-curl' });

    // The session appears on the Sessions page and is decided from its own page.
    let sessionId: string | undefined;
    await expect.poll(async () => {
      const listed = await (await fetch(`${product.base}/api/sessions?agent=flights-analyst&workflow=flights-analyst&status=awaiting_decision`)).json() as SessionListView;
      sessionId = listed.sessions.find((s) => (s.variables.trigger as { deliveryId?: string } | undefined)?.deliveryId === 'web-sessions-curl')?.id;
      return sessionId;
    }, { timeout: 90_000 }).toBeDefined();
    await page.getByRole('link', { name: 'Sessions', exact: true }).click();
    await page.locator(`a[href="/sessions/${sessionId}"]`).click();
    await page.getByRole('button', { name: 'done', exact: true }).click();
    await page.waitForFunction(() => document.querySelector('.page-header h1 .badge')?.textContent === 'succeeded', undefined, { timeout: 60_000 });
    await screenshotBoth(page, 'session-from-curl', { fullPage: true });
    expect(problems.all()).toEqual([]);
    await context.close();
  });
});
