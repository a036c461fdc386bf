/**
 * The session page's Decision box with typed fields and an expiry, in a real browser (Debian's Chromium through
 * playwright-core) against the product as `scripts/start` starts it (dev-user) with the scripted model: the refunds
 * test agent (test/fixtures/agents/refunds, imported with `cairn agent import --publish`) parks its refund session on
 * a human state that expires in 2 h and declares the fields amount (number) and urgent (boolean). The page shows
 * "Expires in 2 h" and where the session then goes, an input per field; deciding without the required amount is
 * refused on the page, with it the session goes on and its variables hold the amount and the checkbox. No console
 * errors or CSP violations; screenshots (1280 and 375 px) land in test-results/web/.
 *
 * Source: docs/decisions.md D26 § 2 (the decision form shows the fields and the expiry, and sends `fields`).
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionDetailView } from '../../core/session/session-views.ts';
import { launchBrowser, newTestPage, screenshotBoth, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
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

/** Starts a refund session and waits until it waits for the approval; answers its id. */
async function parkedRefund(): Promise<string> {
  const started = await fetch(`${product.base}/api/sessions`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'refunds', environment: 'main', workflow: 'refund', message: 'Refund order 42.' }),
  });
  expect(started.status).toBe(201);
  const id = ((await started.json()) as { session: { id: string } }).session.id;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const shown = await (await fetch(`${product.base}/api/sessions/${id}`)).json() as SessionDetailView;
    if (shown.session.status === 'awaiting_decision') return id;
    if (shown.session.status !== 'running') throw new Error(`The refund session ended ${shown.session.status}.`);
    if (Date.now() > deadline) throw new Error('The refund session did not reach its approval in 60 s.');
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('the Decision box with fields and an expiry', () => {
  it('shows the expiry and an input per field, refuses a missing amount, and sends the fields', { timeout: 240_000 }, async () => {
    const id = await parkedRefund();
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/sessions/${id}`);
    await page.getByRole('heading', { name: 'Decision in approve' }).waitFor();
    await page.getByText(/Expires in 2 h; then the session goes to lapsed/).waitFor();
    await screenshotBoth(page, 'session-decision-fields', { fullPage: true });

    await page.getByRole('button', { name: 'done', exact: true }).click();
    await page.getByRole('alert').getByText('amount is required.').waitFor();
    await page.getByLabel('amount (required)').fill('12.5');
    await page.getByRole('checkbox', { name: 'urgent' }).check();
    await page.getByRole('button', { name: 'done', exact: true }).click();
    await page.getByRole('status').getByText('Decided: done.').waitFor();

    const deadline = Date.now() + 60_000;
    let shown: SessionDetailView;
    do {
      shown = await (await fetch(`${product.base}/api/sessions/${id}`)).json() as SessionDetailView;
      if (shown.session.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 300));
    } while (Date.now() < deadline);
    expect(shown.session).toMatchObject({ status: 'succeeded', state: 'done', variables: { amount: 12.5, urgent: true } });
    expect(shown.session.trail.at(-1)).toMatchObject({ via: 'decision', channel: 'api' });
    expect(problems.all()).toEqual([]);
    await context.close();
  });
});
