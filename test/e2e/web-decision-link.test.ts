/**
 * The decision link page (/decide/<token>) in a real browser (Debian's Chromium through playwright-core) against the
 * product as `scripts/start` starts it (dev-user) with the scripted model. The refunds test agent
 * (test/fixtures/agents/refunds) parks its refund session on a human state that expires in 2 h with the fields amount
 * (number, required) and urgent (boolean); the test makes the decision's link with `createDecisionLink` over the
 * product's own document store (the embedded SQLite file of its data directory), as the dispatcher does for a state
 * with `notify`. A browser context with no sign-in opens the link: the page shows the options, the fields and the
 * expiry, no navigation and nothing naming the session; Decide without the required amount shows the platform's 400
 * message next to the field and the link still works; with it the decision is recorded once (channel `link` on the
 * trail, the fields as variables); a second visit says it was already taken; an unknown token says it is not valid.
 * No console errors or CSP violations but the refusals the steps cause; screenshots (1280 and 375 px, no sideways
 * scroll at 375) land in test-results/web/.
 *
 * Source: docs/decisions.md D26 § 3 (decision links), § 2 (fields and expiry).
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import { createDecisionLink } from '../../core/session/decision-links.ts';
import { sessionsOf } from '../../core/session/session-store.ts';
import type { SessionDetailView } from '../../core/session/session-views.ts';
import { launchBrowser, newTestPage, phone, screenshotBoth, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { repoRoot, runCairn } from '../helpers/product.ts';
import { type ScriptedModelServer, scriptedModels, startScriptedModelServer } from '../helpers/scripted-model-server.ts';

let model: ScriptedModelServer;
let product: StartedWebApp;
let browser: Browser;

beforeAll(async () => {
  model = await startScriptedModelServer([
    { text: 'Refund drafted.', toolCalls: [{ name: 'platform_advance', arguments: { to: 'approve', reason: 'drafted' } }] },
    { text: 'Done.' },
  ]);
  [product, browser] = await Promise.all([
    startWebApp({ PLATFORM_SIGN_IN: 'dev-user', PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }) }),
    launchBrowser(),
  ]);
  const imported = runCairn(product.base, ['agent', 'import', join(repoRoot, 'test/fixtures/agents/refunds'), '--agent', 'refunds', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await model?.close();
});

/** The session `id` as the API shows it, polled until `done` says so (60 s at most). */
async function sessionWhen(id: string, done: (shown: SessionDetailView) => boolean): Promise<SessionDetailView> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const shown = await (await fetch(`${product.base}/api/sessions/${id}`)).json() as SessionDetailView;
    if (done(shown)) return shown;
    if (Date.now() > deadline) throw new Error(`Session ${id} is still ${shown.session.status} after 60 s.`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Starts a refund session, waits until it waits for the approval, and makes its decision link; answers both. */
async function parkedRefundLink(): Promise<{ id: string; token: string }> {
  const started = await fetch(`${product.base}/api/sessions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'refunds', environment: 'main', workflow: 'refund', message: 'Refund order 42.' }),
  });
  expect(started.status).toBe(201);
  const id = ((await started.json()) as { session: { id: string } }).session.id;
  const parked = await sessionWhen(id, (s) => s.session.status !== 'running');
  expect(parked.session.status).toBe('awaiting_decision');
  const docs = await openSqliteDocumentStore({ path: join(product.dataDir, 'docdb.sqlite') });
  try {
    const session = await sessionsOf({ docs }).findOne({ _id: id });
    const { token } = await createDecisionLink({ docs, clock: systemClock, ids: cryptoIds }, session!);
    return { id, token };
  } finally {
    await docs.close();
  }
}

/** True when the page scrolls sideways at its current width. */
const scrollsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

/** Screenshots at 1280 and 375 px and checks the 375 px page does not scroll sideways. */
async function shoot(page: Page, name: string): Promise<void> {
  await screenshotBoth(page, name, { fullPage: true });
  await page.setViewportSize(phone);
  expect(await scrollsSideways(page)).toBe(false);
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('the decision link page', () => {
  it('shows the decision without sign-in, refuses a missing field next to it, decides once', { timeout: 240_000 }, async () => {
    const { id, token } = await parkedRefundLink();
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    const asked: { path: string; referer?: string; authorization?: string }[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (!url.pathname.startsWith('/api/')) return;
      const headers = request.headers();
      asked.push({ path: url.pathname, referer: headers.referer, authorization: headers.authorization });
    });
    await page.goto(`${product.base}/decide/${token}`);
    await page.getByRole('heading', { name: 'Decision in approve' }).waitFor();
    await page.getByText('Expires in 2 h; then it moves to lapsed.').waitFor();
    await page.getByRole('radio', { name: /Refund the amount given\. moves to done/ }).waitFor();
    await page.getByRole('radio', { name: /Draft it again\. moves to draft/ }).waitFor();
    await page.getByLabel('amount (required)').waitFor();
    await page.getByRole('checkbox', { name: 'urgent' }).waitFor();
    await page.getByLabel('Comment (optional)').waitFor();
    // No way into the rest of the app, and nothing naming the session.
    await expect(page.getByRole('navigation').count()).resolves.toBe(0);
    await expect(page.getByRole('link').count()).resolves.toBe(0);
    expect(await page.content()).not.toContain(id);
    await shoot(page, 'decision-link');

    // Without the required amount the platform refuses (400): its message sits under the field, the form stays.
    await page.getByRole('radio', { name: /Refund the amount given/ }).check();
    await page.getByRole('button', { name: 'Decide' }).click();
    const amountField = page.locator('.field', { has: page.getByLabel('amount (required)') });
    await amountField.getByRole('alert').getByText('field "amount" is required (number).').waitFor();
    await expect(page.getByLabel('amount (required)').getAttribute('aria-invalid')).resolves.toBe('true');
    await shoot(page, 'decision-link-refused');
    // The refused request's "Failed to load resource: … 400" is the point of this step.
    expect(problems.all().every((line) => /status of 400/.test(line)), problems.all().join('\n')).toBe(true);
    problems.clear();

    await page.getByLabel('amount (required)').fill('12.5');
    await page.getByRole('checkbox', { name: 'urgent' }).check();
    await page.getByLabel('Comment (optional)').fill('Fine by me.');
    await page.getByRole('button', { name: 'Decide' }).click();
    await page.getByRole('status').getByText('Decision recorded: moved to done.').waitFor();
    await page.getByText('You can close this page.').waitFor();
    await shoot(page, 'decision-link-decided');
    expect(problems.all()).toEqual([]);
    // The page never asks who is signed in (a person without an account sees it all the same); its requests to the
    // link's address carry no credential, and none of its requests names the page (and so the token) as Referer.
    expect(asked.filter((r) => /^\/api\/(me|sign-in-settings)\b/.test(r.path))).toEqual([]);
    const linkCalls = asked.filter((r) => r.path.startsWith('/api/decisions/'));
    expect(linkCalls.length).toBe(3);
    expect(linkCalls.filter((r) => r.authorization !== undefined)).toEqual([]);
    expect(asked.some((r) => r.path === '/api/branding')).toBe(true);
    expect(asked.filter((r) => r.referer)).toEqual([]);

    const shown = await sessionWhen(id, (s) => s.session.status !== 'running' && s.session.status !== 'awaiting_decision');
    expect(shown.session).toMatchObject({ status: 'succeeded', state: 'done', variables: { amount: 12.5, urgent: true } });
    expect(shown.session.trail.at(-1)).toMatchObject({ via: 'decision', channel: 'link', by: 'decision link', note: 'Fine by me.' });

    // The link worked once: opening it again says so.
    await page.goto(`${product.base}/decide/${token}`);
    await page.getByRole('heading', { name: 'This decision was already taken, or it expired.' }).waitFor();
    await expect(page.getByRole('button', { name: 'Decide' }).count()).resolves.toBe(0);
    await shoot(page, 'decision-link-taken');
    expect(problems.all().every((line) => /status of 410/.test(line)), problems.all().join('\n')).toBe(true);
    problems.clear();
    await context.close();
  });

  it('says an unknown link is not valid', { timeout: 60_000 }, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/decide/cairn_dl_${'x'.repeat(43)}`);
    await page.getByRole('heading', { name: 'This link is not valid.' }).waitFor();
    await expect(page.getByRole('button', { name: 'Decide' }).count()).resolves.toBe(0);
    await expect(page.getByRole('link').count()).resolves.toBe(0);
    await shoot(page, 'decision-link-unknown');
    expect(problems.all().every((line) => /status of 404/.test(line)), problems.all().join('\n')).toBe(true);
    await context.close();
  });
});
