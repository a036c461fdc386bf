/**
 * The Design tab of an environment in a real browser (Debian's Chromium through playwright-core) against the product
 * as `scripts/start` starts it (dev-user), with a scripted model standing in for CAIRN_MODEL_* (scripts/start gives it
 * to the workflows and, as designAgent, to the design agent):
 * - "Start from nothing": an agent is created on the Agents list with "Describe what it should do" filled; the page
 *   moves to its main environment's Design tab, which sends the description as the first message of a new design
 *   chat; the design agent reads workflows/chat/workflow.yaml, writes it with other instructions, validates the draft
 *   and answers. The tab shows the reply, one line per tool call, the new text in the file viewer, and the unpublished
 *   changes (nothing published yet: every file added); Publish succeeds and the tab then says there is nothing to
 *   publish;
 * - a second message in the same chat changes the instructions again: the file shows as changed, the new line added
 *   and the old one removed; Publish again leaves no unpublished changes;
 * - New chat empties the conversation; the earlier chat, picked from Chat, shows its messages again;
 * - a second product, started without CAIRN_MODEL_* (in parallel with the first), has no design agent: an agent
 *   created there with a description lands on a Design tab that shows what to set (the backend's own wording), says
 *   the description was not sent, and offers no message box;
 * - the Members page's Design agent tab shows what the chats cost this month, by agent environment;
 * - at 375 px nothing overflows sideways.
 * The scripted model is asked exactly once per scripted turn, always as `scripted-model`, offered the design tools
 * under their own names. No console errors or CSP violations. Screenshots (1280×900 and 375×800) land in
 * test-results/web/design-*.png.
 *
 * Source: issue "The design agent" § Front doors, § Tools; docs/decisions.md D21.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTemplate } from '../../core/agent/template.ts';
import { designAgentNotConfigured } from '../../core/design/design-chats.ts';
import { launchBrowser, newTestPage, screenshot, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import {
  type ScriptedModelServer, type ScriptedTurn, startScriptedModelServer,
} from '../helpers/scripted-model-server.ts';

const WORKFLOW = 'workflows/chat/workflow.yaml';
const TEMPLATE = builtinTemplate().find((f) => f.path === WORKFLOW)!.text;
const OLD_LINE = "instructions: Answer the member's message.";
const FIRST_LINE = "instructions: Answer the member's question in one short paragraph.";
const SECOND_LINE = 'instructions: Answer in at most three sentences and say which data you used.';
const FIRST_TEXT = TEMPLATE.replace(OLD_LINE, FIRST_LINE);
const SECOND_TEXT = TEMPLATE.replace(OLD_LINE, SECOND_LINE);
const DESCRIPTION = 'Answer questions from our members in one short paragraph.';
const FIRST_REPLY = 'Done: I changed the instructions.';
const SECOND_REPLY = 'Done: answers now name their data.';

/** The design agent's turns: the first chat message (read, write, validate, answer), then the second. */
const script: ScriptedTurn[] = [
  { toolCalls: [{ name: 'design_read_file', arguments: { path: WORKFLOW } }] },
  { toolCalls: [{ name: 'design_write_file', arguments: { path: WORKFLOW, text: FIRST_TEXT }, pieces: 3 }] },
  { toolCalls: [{ name: 'design_validate', arguments: {} }] },
  { text: ['Done: ', 'I changed the instructions.'] },
  { toolCalls: [{ name: 'design_write_file', arguments: { path: WORKFLOW, text: SECOND_TEXT } }] },
  { toolCalls: [{ name: 'design_validate', arguments: {} }] },
  { text: SECOND_REPLY },
];

const designTools = [
  'design_list_files', 'design_read_file', 'design_write_file', 'design_delete_file', 'design_validate',
  'design_run_evaluations', 'design_list_tools',
];

let model: ScriptedModelServer;
let product: StartedWebApp;
/** A product started without any model variable: no design agent. */
let plain: StartedWebApp;
let browser: Browser;

beforeAll(async () => {
  model = await startScriptedModelServer(script);
  [product, plain, browser] = await Promise.all([
    startWebApp({
      PLATFORM_SIGN_IN: 'dev-user', CAIRN_MODEL_BASE_URL: model.baseUrl, CAIRN_MODEL: 'scripted-model',
      CAIRN_MODEL_PRICES: '1,2,0.1,1.25',
    }),
    startWebApp({ PLATFORM_SIGN_IN: 'dev-user' }),
    launchBrowser(),
  ]);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await plain?.stop();
  await model?.close();
});

const wide = { width: 1280, height: 900 };
const narrow = { width: 375, height: 800 };

/** Screenshots of the whole page at 1280×900 (`design-<name>-1280`) and 375×800 (`-375`); no overflow at 375. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.setViewportSize(wide);
  await screenshot(page, `design-${name}-1280`, { fullPage: true });
  await page.setViewportSize(narrow);
  await screenshot(page, `design-${name}-375`, { fullPage: true });
  const overflow = await page.evaluate(() => {
    const root = document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  expect(overflow, `the page is ${overflow} px wider than 375 px`).toBeLessThanOrEqual(0);
  await page.setViewportSize(wide);
}

/** The texts of the transcript's tool lines. */
const toolLines = (page: Page) => page.locator('.design-tool').allTextContents();

/** Clicks the changes panel's Publish and waits until the operation succeeded and nothing is left to publish. */
async function publish(page: Page): Promise<void> {
  const changes = page.getByRole('region', { name: 'Unpublished changes' });
  await changes.getByRole('button', { name: 'Publish', exact: true }).click();
  await changes.getByText('Publish: Succeeded').waitFor({ timeout: 60_000 });
  await changes.getByText('No unpublished changes: the draft is what is published.').waitFor();
  await expect(changes.getByRole('button', { name: 'Publish', exact: true }).isDisabled()).resolves.toBe(true);
}

describe('Design tab', () => {
  it('starts an agent from a description; shows the chat, tool lines, files and diff; publishes', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base, viewport: wide });
    try {
      expect(model.requests).toEqual([]);
      // Start from nothing: the creation form with a description.
      await page.goto(`${product.base}/agents`);
      await page.getByRole('button', { name: 'New agent' }).click();
      await page.getByLabel('Slug', { exact: true }).fill('planner');
      await page.getByLabel('Describe what it should do').fill(DESCRIPTION);
      await shoot(page, 'create');
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.waitForURL(`${product.base}/agents/planner/environments/main/design`);
      const tabs = page.getByRole('navigation', { name: 'Environment pages' });
      await expect(tabs.getByRole('link', { name: 'Design' }).getAttribute('aria-current')).resolves.toBe('page');

      // The description went out as the first message; the design agent's run shows as it streams.
      const messages = page.getByRole('list', { name: 'Design chat messages' });
      await messages.locator('.chat-msg-user').getByText(DESCRIPTION).waitFor();
      await messages.locator('.chat-msg-assistant').getByText(FIRST_REPLY).waitFor({ timeout: 90_000 });
      await expect(toolLines(page)).resolves.toEqual([
        `design_read_file ${WORKFLOW} done`, `design_write_file ${WORKFLOW} done`, 'design_validate valid',
      ]);
      await page.getByRole('button', { name: 'Send' }).waitFor();
      expect(model.requests.length).toBe(4);

      // The files are read again after the run: the viewer shows the new text.
      const viewer = page.getByLabel(`Contents of ${WORKFLOW}`);
      await viewer.filter({ hasText: FIRST_LINE }).waitFor();
      await expect(viewer.textContent()).resolves.toBe(FIRST_TEXT);
      await page.getByRole('button', { name: 'AGENTS.md' }).click();
      await page.getByLabel('Contents of AGENTS.md').getByText('name: New agent').waitFor();
      await page.getByRole('button', { name: WORKFLOW }).click();

      // Nothing is published yet: both files are added, every line green.
      const changes = page.getByRole('region', { name: 'Unpublished changes' });
      await changes.getByText('Nothing is published yet: every file is new. 2 files changed.').waitFor();
      const added = changes.locator('.design-diff', { hasText: WORKFLOW });
      await expect(added.locator('.badge').first().textContent()).resolves.toBe('added');
      await added.locator('.diff-add', { hasText: FIRST_LINE }).waitFor();
      await expect(added.locator('.diff-del').count()).resolves.toBe(0);
      await shoot(page, 'first-run');
      await publish(page);

      // A second message continues the chat: the file changes against the published build.
      await page.getByLabel('Message to the design agent').fill('Ask it to say which data it used.');
      await page.getByRole('button', { name: 'Send' }).click();
      await messages.locator('.chat-msg-assistant').getByText(SECOND_REPLY).waitFor({ timeout: 90_000 });
      await expect(toolLines(page)).resolves.toEqual([
        `design_read_file ${WORKFLOW} done`, `design_write_file ${WORKFLOW} done`, 'design_validate valid',
        `design_write_file ${WORKFLOW} done`, 'design_validate valid',
      ]);
      await viewer.filter({ hasText: SECOND_LINE }).waitFor();
      const changed = changes.locator('.design-diff', { hasText: WORKFLOW });
      await changed.waitFor();
      await expect(changes.locator('.design-diff').count()).resolves.toBe(1);
      await expect(changed.locator('.badge').first().textContent()).resolves.toBe('changed');
      await expect(changed.locator('.diff-add').allTextContents()).resolves.toEqual([`+ ${SECOND_LINE}\n`]);
      await expect(changed.locator('.diff-del').allTextContents()).resolves.toEqual([`− ${FIRST_LINE}\n`]);
      await expect(changed.locator('.design-diff-head').textContent()).resolves.toBe(`${WORKFLOW} changed +1 −1`);
      await shoot(page, 'changes');
      await publish(page);
      await shoot(page, 'published');

      // New chat empties the conversation; the earlier chat comes back from the list of chats.
      await page.getByRole('button', { name: 'New chat' }).click();
      await expect(messages.locator('li').count()).resolves.toBe(0);
      const picker = page.getByLabel('Chat', { exact: true });
      const chats = await picker.locator('option').allTextContents();
      expect(chats).toHaveLength(2);
      expect(chats[0]).toBe('New chat');
      expect(chats[1]).toMatch(/ · awaiting input · \$\d+\.\d{4}$/);
      const threadId = await picker.locator('option').nth(1).getAttribute('value');
      expect(threadId).toBeTruthy();
      await picker.selectOption(threadId!);
      await messages.locator('.chat-msg-assistant').getByText(SECOND_REPLY).waitFor();
      await messages.locator('.chat-msg-user').getByText(DESCRIPTION).waitFor();
      await expect(messages.locator('.chat-msg-assistant').first().textContent()).resolves.toContain(FIRST_REPLY);
      await expect(toolLines(page)).resolves.toEqual([
        `design_read_file ${WORKFLOW} done`, `design_write_file ${WORKFLOW} done`, 'design_validate valid',
        `design_write_file ${WORKFLOW} done`, 'design_validate valid',
      ]);
      await shoot(page, 'history');

      // The design agent was asked once per scripted turn, as scripted-model, offered the design tools.
      expect(model.requests.length).toBe(script.length);
      for (const request of model.requests) {
        expect(request.path).toBe('/v1/chat/completions');
        expect(request.body.model).toBe('scripted-model');
        const tools = (request.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
        expect(tools).toEqual(expect.arrayContaining(designTools));
      }

      // The organization's design spend: the Members page's Design agent tab, this month by agent environment.
      await page.goto(`${product.base}/members`);
      await page.getByRole('link', { name: 'Design agent' }).click();
      const spend = page.getByRole('region', { name: 'Design agent spend' });
      const row = spend.getByRole('row', { name: /New agent main \$\d+\.\d{4}/ });
      await row.waitFor();
      const cost = Number((await row.getByRole('cell').last().textContent())!.slice(1));
      expect(cost).toBeGreaterThan(0);
      await expect(spend.getByText('This month', { exact: true }).locator('xpath=..').locator('dd').textContent())
        .resolves.toBe(`$${cost.toFixed(4)}`);
      await shoot(page, 'spend');
      expect(problems.all()).toEqual([]);
    } finally {
      await context.close();
    }
  }, 300_000);

  it('without a design agent: the tab says what to set; a description is not sent; no message box', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: plain.base, viewport: wide });
    try {
      const setup = designAgentNotConfigured().message;
      await page.goto(`${plain.base}/agents`);
      await page.getByRole('button', { name: 'New agent' }).click();
      await page.getByLabel('Slug', { exact: true }).fill('sketch');
      await page.getByLabel('Describe what it should do').fill(DESCRIPTION);
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.waitForURL(`${plain.base}/agents/sketch/environments/main/design`);
      const chat = page.getByRole('region', { name: 'Design chat' });
      await chat.getByText(setup, { exact: true }).waitFor();
      await chat.getByText(`Your description was not sent: ${DESCRIPTION}`).waitFor();
      await expect(page.getByLabel('Message to the design agent').count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: 'Send' }).count()).resolves.toBe(0);
      // The draft's files and its changes still show: the template, never published.
      await page.getByLabel(`Contents of ${WORKFLOW}`).filter({ hasText: OLD_LINE }).waitFor();
      await page.getByText('Nothing is published yet: every file is new. 2 files changed.').waitFor();
      const design = await fetch(`${plain.base}/api/agents/sketch/environments/main/design`);
      await expect(design.json()).resolves.toEqual({ configured: false, setup, chats: [] });
      await shoot(page, 'not-configured');
      expect(problems.all()).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
