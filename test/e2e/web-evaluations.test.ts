/**
 * The Evaluations tab of an environment in a real browser (Debian's Chromium through playwright-core) against the
 * product as `scripts/start` starts it (dev-user, the demo agent flights-analyst seeded with its two cases,
 * scripts/demo/agent/workflows/flights-analyst/tests), with a scripted model standing in for CAIRN_MODEL_*: each
 * case's session queries the flights project (answered by the case's mock), drafts an answer and moves to review;
 * the judge of the rubric case scores 0.4 the first time (the case fails at its grade step) and 0.9 after.
 * - the tab without runs says "No evaluation runs yet" and where cases live;
 * - Run evaluations starts a run, shown at once and refreshed until it ends: failed, 1 of 2, the failing step with
 *   its expected and actual and the judge's score; a second run passes 2 of 2, and the pass-rate chart shows both;
 * - a case's Transcript link opens its session's page, which names the case and links back to the run;
 * - the Overview says the evaluation gate is off and that the published build has no run yet; after the runs, that
 *   its last run passed 2 of 2, linking to it.
 * No console errors or CSP violations. Screenshots (1280 and 375 px) land in test-results/web/.
 *
 * Source: docs/decisions.md D20 (Evaluations); docs/agent-format.md § Tests.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newTestPage, screenshotBoth, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { startComputedModelServer } from '../helpers/demo-model.ts';
import type { ScriptedModelServer, ScriptedTurn } from '../helpers/scripted-model-server.ts';

/** The demo answer: the figures of the delays-graded case's mock. */
const ANSWER = 'California (CA) had the most delayed departures: 177,731.';
const JUDGE_PROMPT = 'You grade a piece of work against a rubric';

interface ChatRequest {
  messages?: { role: string; content?: unknown; tool_calls?: { function: { name: string } }[] }[];
  tools?: { function: { name: string; parameters?: { properties?: { to?: { enum?: string[] } } } } }[];
}

const isJudge = (body: ChatRequest | undefined) =>
  body?.messages?.some((m) => m.role === 'system' && String(m.content).includes(JUDGE_PROMPT)) === true;

let model: ScriptedModelServer;
let product: StartedWebApp;
let browser: Browser;

/**
 * The turn answering one request: the judge scores 0.4 the first time and 0.9 after; a case's session first queries
 * the flights project, then sets `answer` and advances (to review), then only answers with text.
 */
function turnOf(raw: unknown): ScriptedTurn {
  const body = raw as ChatRequest | undefined;
  if (isJudge(body)) {
    const first = model.requests.filter((r) => isJudge(r.body as ChatRequest)).length === 1;
    return first
      ? { text: '{"score": 0.4, "reason": "It names California but not the count of delayed departures."}' }
      : { text: '{"score": 0.9, "reason": "It names California with its count, 177,731."}' };
  }
  const messages = body?.messages ?? [];
  const sinceUser = messages.slice(messages.map((m) => m.role).lastIndexOf('user') + 1);
  const called = sinceUser.flatMap((m) => m.tool_calls ?? []).map((c) => c.function.name);
  const query = body?.tools?.find((t) => t.function.name.endsWith('execute_query'))?.function.name;
  const advance = body?.tools?.find((t) => t.function.name === 'platform_advance');
  const to = advance?.function.parameters?.properties?.to?.enum?.[0];
  if (query && !called.includes(query)) {
    return { toolCalls: [{ name: query, arguments: { modelName: 'flights', sql: 'SELECT 1' } }] };
  }
  if (!to || called.includes('platform_advance')) return { text: ANSWER };
  return {
    text: ANSWER,
    toolCalls: [
      { name: 'platform_set_variables', arguments: { variables: { answer: ANSWER } } },
      { name: 'platform_advance', arguments: { to, reason: 'The answer is written with its figures.' } },
    ],
  };
}

beforeAll(async () => {
  model = await startComputedModelServer(turnOf);
  [product, browser] = await Promise.all([
    startWebApp({ PLATFORM_SIGN_IN: 'dev-user', CAIRN_MODEL_BASE_URL: model.baseUrl, CAIRN_MODEL: 'scripted-model' }),
    launchBrowser(),
  ]);
  // The demo agent is seeded after the web app answers: wait for its chat endpoint's banner line.
  const banner = /^Demo agent AG-UI chat \(chat\): +(\S+)/;
  if (!product.run.lines.some((l) => banner.test(l))) await product.run.waitForLine(banner, 120_000);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await model?.close();
});

const tab = () => `${product.base}/agents/flights-analyst/environments/main/evaluations`;

/** Clicks Run evaluations; resolves with the new run's id once the page shows it ended with `status`. */
async function runAndWait(page: Page, status: 'Passed' | 'Failed', button = 'Run evaluations'): Promise<string> {
  const before = new URL(page.url()).searchParams.get('run');
  await page.getByRole('button', { name: button }).click();
  await page.waitForURL((url) => {
    const run = url.searchParams.get('run');
    return run !== null && run.startsWith('ev-') && run !== before;
  });
  const id = new URL(page.url()).searchParams.get('run')!;
  const run = page.getByRole('region', { name: `Run ${id}` });
  await run.waitFor();
  await run.locator('h3 .badge').getByText(status, { exact: true }).waitFor({ timeout: 120_000 });
  return id;
}

describe('Evaluations tab', () => {
  it('runs the demo cases; shows runs, chart, cases and transcripts; the Overview says the last run', async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    try {
      await page.goto(`${product.base}/agents/flights-analyst/environments/main/overview`);
      const before = page.getByRole('region', { name: 'Evaluations' });
      await before.getByText('no run of the published build yet').waitFor();
      await expect(before.textContent()).resolves.toContain('Evaluation gate: off');
      const tabs = page.getByRole('navigation', { name: 'Environment pages' });
      await tabs.getByRole('link', { name: 'Evaluations' }).click();
      await page.waitForURL(/\/evaluations$/);
      await page.getByText('No evaluation runs yet').waitFor();
      await expect(page.locator('.empty').textContent()).resolves.toContain('workflows/<slug>/tests/*.test.yaml');
      await screenshotBoth(page, 'evaluations-empty', { fullPage: true });

      // The first run: the judge scores 0.4, so the rubric case fails at its grade step.
      const first = await runAndWait(page, 'Failed');
      const firstRun = page.getByRole('region', { name: `Run ${first}` });
      await expect(firstRun.textContent()).resolves.toContain('1 of 2 cases passed');
      const passing = firstRun.getByRole('article', { name: 'Case flights-analyst/cancellations' });
      await passing.locator('.badge', { hasText: 'Passed' }).first().waitFor();
      const failing = firstRun.getByRole('article', { name: 'Case flights-analyst/delays-graded' });
      await expect(failing.locator('.eval-failure').textContent()).resolves.toContain('Failed at step 4 (grade)');
      const facts = await failing.locator('.eval-failure dd').allTextContents();
      expect(facts).toEqual([
        'a score of at least 0.7 against the rubric',
        'scored 0.4: It names California but not the count of delayed departures.',
        '0.4',
      ]);
      const row = page.locator('.runs-table tr', { has: page.locator(`code:text-is("${first}")`) });
      await expect(row.locator('td[data-label="Status"]').textContent()).resolves.toBe('Failed');
      await expect(row.locator('td[data-label="Passed"]').textContent()).resolves.toBe('1 of 2');

      // The second run passes; the chart shows the pass rate of both, oldest first.
      const second = await runAndWait(page, 'Passed');
      const secondRun = page.getByRole('region', { name: `Run ${second}` });
      await expect(secondRun.textContent()).resolves.toContain('2 of 2 cases passed');
      await page.getByRole('img', { name: 'Pass rate of the last 2 runs, oldest first: 50%, 100%' }).waitFor();
      await expect(page.locator('.runs-table tbody tr').count()).resolves.toBe(2);
      // A run of the draft (the same commit as the published build: it runs on that build), marked as the draft's.
      const third = await runAndWait(page, 'Passed', 'Run on the draft');
      const draftRow = page.locator('.runs-table tr', { has: page.locator(`code:text-is("${third}")`) });
      await draftRow.getByText('draft', { exact: true }).waitFor();
      await page.getByRole('img', { name: 'Pass rate of the last 3 runs, oldest first: 50%, 100%, 100%' }).waitFor();
      // Choosing the failed run again shows its cases; the address names it.
      await page.locator('.runs-table').getByRole('link', { name: first }).click();
      await page.waitForURL(new RegExp(`\\?run=${first}$`));
      await page.getByRole('region', { name: `Run ${first}` }).getByText('Failed at step 4').waitFor();
      await screenshotBoth(page, 'evaluations-runs', { fullPage: true });

      // A case's transcript: its session's page.
      await page.getByRole('link', { name: 'Transcript of flights-analyst/cancellations' }).click();
      await page.waitForURL(/\/sessions\/[^/?]+$/);
      await page.getByRole('heading', { name: /flights-analyst/ }).waitFor();
      await page.locator('.session-page').getByText('Which airline had the most cancelled flights?').first().waitFor();
      await expect(page.locator('.session-page .badge').first().textContent()).resolves.toBe('succeeded');
      // It names its case and run, linking back to the run.
      await page.locator('.session-facts').getByText('case flights-analyst/cancellations of run').waitFor();
      await expect(page.locator('.session-facts').getByRole('link', { name: first }).getAttribute('href')).resolves
        .toBe(`/agents/flights-analyst/environments/main/evaluations?run=${first}`);
      await screenshotBoth(page, 'evaluations-transcript', { fullPage: true });

      // The Overview: the gate is off; the published build's last run passed 2 of 2, linking to it.
      await page.goto(`${product.base}/agents/flights-analyst/environments/main/overview`);
      const summary = page.getByRole('region', { name: 'Evaluations' });
      await summary.getByRole('link', { name: /passed 2 of 2/ }).waitFor();
      await expect(summary.textContent()).resolves
        .toMatch(/^Evaluation gate: off\s*Turn the gate on\s*Published build’s last run: passed 2 of 2 · (just now|\d+ min ago)$/);
      // The gate is turned on from here (a Maintainer's setting): the environment says so.
      await summary.getByRole('button', { name: 'Turn the gate on' }).click();
      await summary.getByText('Evaluation gate: on').waitFor();
      await summary.getByRole('button', { name: 'Turn the gate off' }).waitFor();
      const setting = await fetch(`${product.base}/api/agents/flights-analyst/environments/main`);
      expect(((await setting.json()) as { evaluationGate: boolean }).evaluationGate).toBe(true);
      await screenshotBoth(page, 'evaluations-overview', { fullPage: true });
      await summary.getByRole('link', { name: /passed 2 of 2/ }).click();
      // The newest run of the published build is the draft's run (its draft was the published commit).
      await page.waitForURL(`${tab()}?run=${third}`);
      await page.getByRole('region', { name: `Run ${third}` }).waitFor();

      expect(problems.all()).toEqual([]);
    } finally {
      await context.close();
    }
  }, 400_000);
});
