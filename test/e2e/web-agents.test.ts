/**
 * The Agents and environments pages and the Connections tab in a real browser (Debian's Chromium through
 * playwright-core) against the product as `scripts/start` starts it (dev-user, the demo agent
 * flights-analyst with environment main and connections chat, tools and hooks seeded):
 * - /agents lists the demo agent; its page lists environment main; the Overview shows both planes;
 * - the Connections tab lists chat, tools and hooks with protocol, the authentication label and Serving;
 * - a public webhook connection "crm" is created: the page says it takes effect on publish, its row says
 *   Not used, and a POST to its URL answers 404 (no published trigger names it, before and after publish);
 *   an edit of its calls-per-minute limit shows as a pending change until Publish applies it;
 * - Regenerate token of tools shows the new token once: an MCP client lists tools with it, while the token
 *   in force before (made through the API first) is refused with 401;
 * - Publish queues an operation whose status the page shows until it reads Succeeded; a day spend cap is saved.
 * No console errors or CSP violations. Screenshots (1280 and 375 px) land in test-results/web/.
 *
 * Source: spec/platform-service.md § Incoming connection, § Incoming connection authentication
 * (UI labels); docs/decisions.md D10 (Agents and environments, Connections).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newTestPage, screenshotBoth, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { mcpClient, toolsListStatus } from '../helpers/semantic-fixtures.ts';

let product: StartedWebApp;
let browser: Browser;

beforeAll(async () => {
  [product, browser] = await Promise.all([startWebApp({
    // A priced model (never called here): a spend cap holds only on a model with prices (docs/decisions.md D17 § 5).
    PLATFORM_SIGN_IN: 'dev-user', CAIRN_MODEL_BASE_URL: 'http://127.0.0.1:9/v1', CAIRN_MODEL: 'demo-model',
    CAIRN_MODEL_PRICES: '3,15,0.3,3.75',
  }), launchBrowser()]);
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const connectionsApi = () => `${product.base}/api/agents/flights-analyst/environments/main/connections`;

/** The table row of connection `identifier`. */
const row = (page: Page, identifier: string) => page.locator('tr', { has: page.locator(`strong:text-is("${identifier}")`) });

describe('Agents and environments, Connections', () => {
  it('shows the agent, its environment, connections; creates a webhook; regenerates a token; publishes', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    try {
      // The agents of the member's organizations.
      await page.goto(`${product.base}/agents`);
      const agentLink = page.getByRole('link', { name: 'Flights analyst' });
      await agentLink.waitFor();
      await screenshotBoth(page, 'agents-list');
      await agentLink.click();
      // The agent's environments.
      await page.waitForURL(/\/agents\/flights-analyst$/);
      const envLink = page.getByRole('link', { name: 'main', exact: true });
      await envLink.waitFor();
      await screenshotBoth(page, 'agents-environments');
      await envLink.click();
      // Overview: both planes, the published workflows.
      await page.waitForURL(/\/agents\/flights-analyst\/environments\/main\/overview$/);
      await page.getByRole('region', { name: 'Published plane' }).getByText('flights-analyst', { exact: true }).waitFor();
      await expect(page.getByRole('region', { name: 'Draft plane' }).textContent()).resolves.toContain('Revision');
      await screenshotBoth(page, 'agents-overview', { fullPage: true });

      // Connections: chat, tools, hooks with protocol, authentication label and Serving.
      await page.getByRole('link', { name: 'Connections' }).click();
      await page.waitForURL(/\/connections$/);
      await row(page, 'tools').waitFor();
      const expected = { chat: ['AG-UI', 'None: anyone with the URL'], tools: ['MCP', 'Endpoint token'], hooks: ['Webhook', 'None: anyone with the URL'] };
      for (const [identifier, [protocol, auth]] of Object.entries(expected)) {
        const r = row(page, identifier);
        await expect(r.locator('td[data-label="Protocol"]').textContent()).resolves.toBe(protocol);
        await expect(r.locator('td[data-label="Authentication"]').textContent()).resolves.toBe(auth);
        await r.locator('td[data-label="Status"]').getByText(/^Serving \(\d+\)$/).waitFor({ timeout: 60_000 });
      }
      await screenshotBoth(page, 'agents-connections', { fullPage: true });

      // Create a public webhook connection "crm": the page says it takes effect on publish.
      await page.getByRole('button', { name: 'New connection' }).click();
      await page.getByLabel('Identifier').fill('crm');
      await page.getByLabel('Protocol').selectOption({ label: 'Webhook' });
      await page.getByLabel('Authentication').selectOption({ label: 'None: anyone with the URL' });
      await expect(page.getByRole('note').textContent()).resolves.toContain('take effect when this environment is next published');
      await screenshotBoth(page, 'agents-connection-form', { fullPage: true });
      await page.getByRole('button', { name: 'Create connection' }).click();
      await page.getByRole('status').filter({ hasText: 'Connection “crm” created' }).waitFor();
      await expect(page.getByRole('status').filter({ hasText: 'crm' }).textContent()).resolves.toContain('take effect when this environment is next published');
      const crm = row(page, 'crm');
      await expect(crm.locator('td[data-label="Protocol"]').textContent()).resolves.toBe('Webhook');
      await crm.locator('td[data-label="Status"]').getByText('Not used').waitFor();
      const crmUrl = (await crm.locator('.conn-url code').textContent())!;
      expect(crmUrl).toMatch(new RegExp(`^${product.base}/api/webhooks/[\\w-]+$`));
      // No published trigger names crm, so its endpoint is not served: 404.
      const fire = () => fetch(crmUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ event: 'lead' }) });
      expect((await fire()).status).toBe(404);
      // Its example is a curl for the webhook.
      await crm.getByRole('button', { name: 'Examples' }).click();
      await expect(page.getByLabel('Webhook (curl)', { exact: true }).textContent()).resolves.toContain(`curl -X POST '${crmUrl}'`);
      await page.getByRole('button', { name: 'Close examples' }).click();

      // Edit crm: the change waits for the next publish and the row says so.
      await crm.getByRole('button', { name: 'Edit' }).click();
      await page.getByLabel('Calls per minute per caller').fill('100');
      await page.getByRole('button', { name: 'Save change' }).click();
      await page.getByRole('status').filter({ hasText: 'Connection “crm” changed' }).waitFor();
      await crm.getByText('Pending change').waitFor();
      await expect(crm.locator('.pending-change').textContent()).resolves.toContain('100/min per caller');
      await expect(crm.locator('td[data-label="Limits"]').textContent()).resolves.toBe('600/min per caller, 600/min in all');

      // Regenerate the tools token: the token in force before stops, the new one (shown once) lists tools.
      const before = await fetch(`${connectionsApi()}/tools/regenerate-token`, { method: 'POST' });
      expect(before.status).toBe(200);
      const { token: oldToken, url: toolsUrl } = await before.json() as { token: string; url: string };
      expect(await toolsListStatus(toolsUrl, oldToken)).toBe(200);
      await page.reload();
      const tools = row(page, 'tools');
      await tools.getByRole('button', { name: 'Regenerate token' }).click();
      await tools.getByRole('button', { name: 'Regenerate now' }).click();
      const shown = page.getByLabel('Endpoint token', { exact: true });
      await shown.waitFor();
      const newToken = (await shown.textContent())!;
      expect(newToken).not.toBe(oldToken);
      await expect(page.getByRole('status').filter({ hasText: 'Copy it now' }).textContent()).resolves.toContain('the previous token stopped working');
      await expect(page.getByLabel('MCP client configuration (mcpServers)', { exact: true }).textContent()).resolves.toContain(`"Authorization": "Bearer ${newToken}"`);
      await screenshotBoth(page, 'agents-token', { fullPage: true });
      const client = await mcpClient(toolsUrl, newToken);
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('flights-analyst');
      } finally {
        await client.close();
      }
      expect(await toolsListStatus(toolsUrl, oldToken)).toBe(401);
      await page.getByRole('button', { name: 'Close and forget the token' }).click();
      await expect(page.getByLabel('Endpoint token', { exact: true }).count()).resolves.toBe(0);

      // Publish: the queued operation's status shows until it ends.
      await page.getByRole('link', { name: 'Overview' }).click();
      await page.getByRole('button', { name: 'Publish' }).click();
      const status = page.locator('.op-status');
      await status.getByText(/^Publish: (Queued|Running|Succeeded)$/).waitFor();
      await status.getByText('Publish: Succeeded').waitFor({ timeout: 60_000 });
      await screenshotBoth(page, 'agents-published', { fullPage: true });
      // A spend cap per day for the workflow: saved, then shown with the spend so far.
      const caps = page.getByRole('region', { name: 'Spend caps of flights-analyst' });
      await caps.getByLabel('Cap of flights-analyst day in USD').fill('5');
      await caps.getByRole('button', { name: 'Save cap' }).first().click();
      await caps.locator('tr', { hasText: 'Per day' }).getByText('$0.0000').waitFor();
      // The spend shows $0.0000 before the save has landed too: read the caps until the saved one is there.
      const capsUrl = `${product.base}/api/agents/flights-analyst/environments/main/workflows/flights-analyst/spend-caps`;
      const readCaps = async () => (await (await fetch(capsUrl)).json()) as { caps: { limitUsd: number | null }[] };
      let saved = await readCaps();
      while (saved.caps[0]?.limitUsd !== 5) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        saved = await readCaps();
      }
      expect(saved)
        .toEqual({ caps: [
          expect.objectContaining({ period: 'day', limitUsd: 5, spentUsd: 0 }),
          expect.objectContaining({ period: 'week', limitUsd: null, spentUsd: 0 }),
          expect.objectContaining({ period: 'month', limitUsd: null, spentUsd: 0 }),
        ] });
      // Still no trigger names crm: after publish its endpoint answers 404 and its row says Not used.
      expect((await fire()).status).toBe(404);
      await page.getByRole('link', { name: 'Connections' }).click();
      await row(page, 'crm').locator('td[data-label="Status"]').getByText('Not used').waitFor();
      // The publish applied crm's pending edit.
      await row(page, 'crm').locator('td[data-label="Limits"]').getByText('100/min per caller').waitFor();
      await expect(row(page, 'crm').locator('.pending-change').count()).resolves.toBe(0);

      expect(problems.all()).toEqual([]);
    } finally {
      await context.close();
    }
  }, 300_000);
});
