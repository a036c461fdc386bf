/**
 * The newcomer's whole way through the semantic pages in a real browser (Debian's Chromium through
 * playwright-core) against the product as `scripts/start` starts it (dev-user), without the CLI: import a
 * project directory (models/cities.yaml and data/cities.csv) from the Projects page, edit the model into an
 * error and see it inline, fix it, Save, Publish (the changes shown first), create a token on MCP Access and
 * read it and the client configuration from the page, call execute_query with it from the MCP SDK client on
 * the production endpoint, see that call on Monitoring, open it and Refine in playground, run it there and see
 * the result table, revoke the token (the MCP endpoint then answers 401). Every page is screenshot at 1280 px
 * (the key ones at 375 px too) into test-results/web/; no console errors or CSP violations on the way.
 *
 * Source: docs/decisions.md D9 (Projects, Editor, Playground, Monitoring, MCP Access; browser tests); the accessible
 * names are the pages' fixed ones (Editor+Import, Playground+Monitoring, MCP Access).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newTestPage, screenshot, screenshotBoth, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { mcpClient, queryOutputOf, toolsListStatus } from '../helpers/semantic-fixtures.ts';

const slug = 'cities';
/** The model as imported: one dataset over data/cities.csv. */
const citiesModel = `version: "0.2.0.dev0"
semantic_model:
  - name: cities
    description: Large cities and their population.
    datasets:
      - name: cities
        source: data.cities
        description: One row per city.
        custom_extensions:
          - vendor_name: COMMON
            data: '{"view_query": "SELECT name, country, population FROM data.cities"}'
        fields:
          - name: name
            expression:
              dialects:
                - dialect: ANSI_SQL
                  expression: name
            description: The city's name.
          - name: country
            expression:
              dialects:
                - dialect: ANSI_SQL
                  expression: country
            description: The country the city is in.
          - name: population
            expression:
              dialects:
                - dialect: ANSI_SQL
                  expression: population
            description: Inhabitants (city proper).
`;
const citiesCsv = 'name,country,population\nTokyo,Japan,13960000\nDelhi,India,11030000\nShanghai,China,24870000\nLagos,Nigeria,15380000\n';
/** The edit that breaks the model: a field without its expression (`expression` misspelt). */
const broken = { from: `          - name: population
            expression:`, to: `          - name: population
            expresion:` };
/** The fix after the error: the population field described anew (what Publish then shows as changed). */
const fixedDescription = 'Inhabitants of the city proper (latest census).';
const question = 'SELECT name, population FROM cities ORDER BY population DESC';

let product: StartedWebApp;
let browser: Browser;
let projectDir: string;

beforeAll(async () => {
  projectDir = mkdtempSync(join(tmpdir(), 'cairn-web-import-'));
  const dir = join(projectDir, 'cities-project');
  mkdirSync(join(dir, 'models'), { recursive: true });
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'models/cities.yaml'), citiesModel);
  writeFileSync(join(dir, 'data/cities.csv'), citiesCsv);
  writeFileSync(join(dir, 'README.md'), 'Not part of the project: ignored by the import.\n');
  [product, browser] = await Promise.all([startWebApp({ PLATFORM_SIGN_IN: 'dev-user' }), launchBrowser()]);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  if (projectDir) rmSync(projectDir, { recursive: true, force: true });
});

describe('a newcomer without the CLI', () => {
  it('imports a project directory, fixes a model, publishes, serves it to an MCP client with a token, sees the call on Monitoring, refines it in the playground and revokes the token', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });

    // Projects → Import project directory.
    await page.goto(`${product.base}/projects`);
    await page.getByRole('heading', { name: 'Semantic projects' }).waitFor();
    await screenshotBoth(page, 'semantic-1-projects');
    await page.getByRole('button', { name: 'Import project directory' }).click();
    await page.getByLabel('Slug').fill(slug);
    await page.getByLabel('Name (optional)').fill('Cities');
    await page.getByLabel('Choose a folder').setInputFiles(join(projectDir, 'cities-project'));
    await page.getByText('model cities', { exact: true }).waitFor();
    await page.getByText('data file', { exact: true }).waitFor();
    await page.getByText(/^ignored: /).waitFor(); // README.md
    await screenshotBoth(page, 'semantic-2-import');
    await page.getByRole('button', { name: 'Import', exact: true }).click();

    // Editor: the imported model; break it, see the problem inline; fix it; Save.
    await page.waitForURL(`${product.base}/projects/${slug}/editor`, { timeout: 60_000 });
    const yaml = page.getByLabel('YAML of cities.yaml');
    await yaml.waitFor();
    await expect(yaml.inputValue()).resolves.toBe(citiesModel);
    const problemList = page.getByRole('region', { name: 'Problems' });
    await problemList.getByText('No problems', { exact: false }).waitFor();
    await screenshot(page, 'semantic-3-editor-1280');
    await yaml.fill(citiesModel.replace(broken.from, broken.to));
    const problem = problemList.getByRole('button').filter({ hasText: 'cities.yaml' }).first();
    await problem.waitFor({ timeout: 15_000 });
    expect(await problem.innerText()).toMatch(/cities\.yaml:\d+:\d+/);
    await screenshotBoth(page, 'semantic-4-editor-problem');
    const fixed = citiesModel.replace('Inhabitants (city proper).', fixedDescription);
    await yaml.fill(fixed);
    await problemList.getByText('No problems', { exact: false }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/Saved revision \d+\. The test endpoint now serves it/).waitFor();
    await screenshot(page, 'semantic-5-editor-saved-1280');

    // Publish…: the changes since the last publish first, then Publish now.
    await page.getByRole('button', { name: 'Publish…' }).click();
    await page.getByRole('button', { name: 'Publish now' }).waitFor();
    await page.getByText('cities.yaml').first().waitFor();
    await screenshotBoth(page, 'semantic-6-publish-changes');
    await page.getByRole('button', { name: 'Publish now' }).click();
    await page.getByText(/Published revision \d+\./).waitFor();
    await screenshot(page, 'semantic-7-published-1280');

    // MCP Access: create a token, read it and the client configuration from the page.
    await page.getByRole('link', { name: 'MCP Access' }).click();
    await page.getByRole('button', { name: 'Create token', exact: true }).click();
    await page.getByLabel('Token name').fill('newcomer agent');
    await expect(page.getByRole('checkbox', { name: 'cities' }).isChecked()).resolves.toBe(true);
    await page.getByRole('button', { name: 'Create', exact: true }).click();
    const token = (await page.getByLabel('New token').textContent())?.trim() ?? '';
    expect(token).toMatch(/^cairn_mcp_/);
    const configuration = JSON.parse((await page.getByLabel('Client configuration').textContent()) ?? '') as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    const server = Object.values(configuration.mcpServers)[0]!;
    expect(server.url).toBe(`${product.base}/mcp/${slug}/mcp`);
    expect(server.headers.Authorization).toBe(`Bearer ${token}`);
    await screenshotBoth(page, 'semantic-8-access-new-token');

    // The MCP SDK client calls the production endpoint with it.
    const client = await mcpClient(server.url, token);
    try {
      const result = await client.callTool({ name: 'execute_query', arguments: { modelName: 'cities', sql: question } });
      expect(result.isError ?? false).toBe(false);
      const answer = queryOutputOf(result);
      expect(answer.columns.map((c) => c.name)).toEqual(['name', 'population']);
      expect(answer.rows.map((r) => r[0])).toEqual(['Shanghai', 'Lagos', 'Tokyo', 'Delhi']);
    } finally {
      await client.close();
    }

    // Monitoring: the call is listed; its detail; Refine in playground.
    await page.getByRole('link', { name: 'Monitoring' }).click();
    const call = page.getByRole('button', { name: /execute_query/ }).or(page.getByRole('link', { name: /execute_query/ })).first();
    await call.waitFor({ timeout: 30_000 });
    await screenshotBoth(page, 'semantic-9-monitoring');
    await call.click();
    await page.getByText(question, { exact: false }).first().waitFor();
    await screenshotBoth(page, 'semantic-10-monitoring-detail', { fullPage: true });
    await page.getByRole('link', { name: 'Refine in playground' }).or(page.getByRole('button', { name: 'Refine in playground' })).first().click();

    // Every page so far was clean; the playground's problems, if any, are its own.
    expect(problems.all()).toEqual([]);

    // Playground: the call's SQL, run, the result table.
    await page.waitForURL(`${product.base}/projects/${slug}/playground**`);
    await expect.poll(() => page.getByLabel('SQL').inputValue()).toContain(question);
    await page.getByRole('button', { name: 'Run query' }).click();
    const table = page.getByRole('table', { name: 'Result' });
    await table.waitFor({ timeout: 30_000 });
    await table.getByRole('cell', { name: 'Shanghai' }).waitFor();
    expect(await table.getByRole('row').count()).toBe(5); // header + 4 cities
    await screenshotBoth(page, 'semantic-11-playground-result', { fullPage: true });

    // MCP Access: revoke the token; the endpoint refuses it.
    await page.getByRole('link', { name: 'MCP Access' }).click();
    const row = page.getByRole('row', { name: /newcomer agent/ });
    await row.waitFor();
    await row.getByRole('button', { name: 'Revoke', exact: true }).click();
    await row.getByRole('button', { name: 'Revoke token' }).click();
    await row.getByText('revoked', { exact: true }).waitFor();
    await screenshot(page, 'semantic-12-access-revoked-1280');
    expect(await toolsListStatus(server.url, token)).toBe(401);

    expect(problems.all()).toEqual([]);
    await context.close();
  }, 240_000);
});
