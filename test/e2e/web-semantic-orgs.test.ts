/**
 * The organization of a new semantic project in the web app (docs/decisions.md D17 § 1), in a real browser against the
 * product
 * as `scripts/start` starts it (dev-user): with one organization the Create form asks nothing and the project goes
 * to it; once the member is in two, Create project and Import project directory ask for the organization (a
 * required select filled from GET /api/orgs), and the project is created in the one chosen.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newTestPage, screenshot, startWebApp, type StartedWebApp } from '../helpers/browser.ts';

let product: StartedWebApp;
let browser: Browser;

beforeAll(async () => {
  [product, browser] = await Promise.all([startWebApp({ PLATFORM_SIGN_IN: 'dev-user' }), launchBrowser()]);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

async function apiJson<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const response = await fetch(`${product.base}${path}`, { method, headers, body: payload });
  expect(response.ok, `${method} ${path}: ${response.status}`).toBe(true);
  return await response.json() as T;
}

const orgOf = async (slug: string) => {
  const { projects } = await apiJson<{ projects: { slug: string; orgId: string }[] }>('GET', '/api/semantic/projects');
  return projects.find((p) => p.slug === slug)?.orgId;
};

describe('the organization of a new project', () => {
  it('is the member\'s only one without asking, and chosen from a select once they are in two', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    const [defaultOrg] = (await apiJson<{ organizations: { id: string }[] }>('GET', '/api/orgs')).organizations;

    // One organization: Slug and Name only.
    await page.goto(`${product.base}/projects`);
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByLabel('Slug').fill('one-org');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(`${product.base}/projects/one-org/editor`);
    expect(await orgOf('one-org')).toBe(defaultOrg!.id);

    // Two organizations: the form asks which one.
    const second = await apiJson<{ id: string }>('POST', '/api/orgs', { name: 'Second team' });
    await page.goto(`${product.base}/projects`);
    await page.getByRole('button', { name: 'Create project' }).click();
    const picker = page.getByLabel('Organization');
    await picker.waitFor();
    const options = await picker.locator('option').allTextContents();
    expect(options).toEqual(['Choose an organization', 'Default organization', 'Second team']);
    await page.getByLabel('Slug').fill('second-team-project');
    await picker.selectOption({ label: 'Second team' });
    await screenshot(page, 'semantic-orgs-create-1280');
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    await page.waitForURL(`${product.base}/projects/second-team-project/editor`);
    expect(await orgOf('second-team-project')).toBe(second.id);

    // The import form asks too.
    await page.goto(`${product.base}/projects`);
    await page.getByRole('button', { name: 'Import project directory' }).click();
    await page.getByRole('form', { name: 'Import project directory' }).getByLabel('Organization').waitFor();
    expect(problems.all()).toEqual([]);
    await context.close();
  });
});
