/**
 * The session page's Timeline in a real browser (Debian's Chromium through playwright-core) against the product as
 * `scripts/start` starts it (dev-user): turn records with steps are written into the product's document store as
 * the dispatcher writes them when turns settle (test/fixtures/timeline-turns.ts), on sessions of the demo agent.
 * The page shows each turn with its figures, the waits for a decision (2 days, drawn shortened) and a reply
 * (3 min), and, opened by click or by keyboard, a turn's steps with their start, duration, tokens, cost and error
 * codes; at 375 px nothing scrolls the page sideways. A 50-turn session loads its timeline in one request, with no
 * request per turn. No console errors or CSP violations. Screenshots (1280 and 375 px) land in test-results/web/.
 *
 * Source: docs/decisions.md D25 (the session's timeline).
 */
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqliteDocumentStore } from '../../core/adapters/sqlite/index.ts';
import type { SessionRecord } from '../../core/session/model.ts';
import { insertSession, sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import {
  desktop,
  launchBrowser,
  newTestPage,
  phone,
  screenshot,
  screenshotBoth,
  type StartedWebApp,
  startWebApp,
} from '../helpers/browser.ts';
import { manyTurns, timelineTurns } from '../fixtures/timeline-turns.ts';

let product: StartedWebApp;
let browser: Browser;
let small: string;
let long: string;

/** Writes a session of the demo agent with `turns` into the product's store, ended `status`. */
async function seed(
  status: SessionRecord['status'],
  turnsOf2: (s: { _id: string; orgId: string }) => ReturnType<typeof timelineTurns>,
): Promise<string> {
  const agent = await (await fetch(`${product.base}/api/agents/flights-analyst`)).json() as {
    id: string;
    orgId: string;
  };
  const docs = await openSqliteDocumentStore({ path: join(product.dataDir, 'docdb.sqlite') });
  try {
    let n = 0;
    const deps = {
      docs,
      objects: createMemoryObjectStore(),
      clock: { now: () => new Date() },
      ids: {
        newId: () => `timeline-${status}-${Date.now()}-${(n += 1)}`,
        randomBytes: (k: number) => new Uint8Array(k),
        sha256Hex: async () => '',
      },
    };
    const session = await insertSession(deps, {
      orgId: agent.orgId,
      agentId: agent.id,
      environment: 'production',
      workflow: 'flights-analyst',
      buildId: 'b',
      commitId: 'c',
      state: 'review',
      variables: {},
      lockedVariables: [],
      trigger: 'manual',
      depth: 0,
      inheritedForbid: [],
    });
    for (const t of turnsOf2(session)) await turnsOf(deps).insertOne(t);
    const pending = status === 'awaiting_decision'
      ? { kind: 'decision', id: 'd1', state: 'review', options: [{ to: 'done', description: 'Looks right.' }] }
      : null;
    await sessionsOf(deps).updateOne({ _id: session._id }, { $set: { status, pending } });
    return session._id;
  } finally {
    await docs.close();
  }
}

beforeAll(async () => {
  [product, browser] = await Promise.all([startWebApp({ PLATFORM_SIGN_IN: 'dev-user' }), launchBrowser()]);
  const start = new Date(Date.now() - 2 * 86_400_000 - 600_000);
  small = await seed('awaiting_decision', (s) => timelineTurns(s, start));
  long = await seed('succeeded', (s) => manyTurns(s, new Date(Date.now() - 3 * 3_600_000), 50));
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
});

const timeline = (page: Page) => page.getByRole('region', { name: 'Timeline' });
const turnButton = (page: Page, n: number) => timeline(page).getByRole('button', { name: new RegExp(`^Turn ${n},`) });

describe('Session timeline', () => {
  it("shows the turns, the waits and each turn's steps with their figures", { timeout: 120_000 }, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    await page.goto(`${product.base}/sessions/${small}`);
    await turnButton(page, 3).waitFor();
    await expect(turnButton(page, 1).getAttribute('aria-label')).resolves.toBe(
      'Turn 1, prompt, succeeded, queued 800 ms, ran 6.6 s, 3,270 tokens, $0.0100, 5 steps',
    );
    await expect(turnButton(page, 3).getAttribute('aria-label')).resolves.toContain(
      'Turn 3, reply, failed, queued 200 ms, ran 4.0 s',
    );
    await timeline(page).getByText('waited for a decision 2 d', { exact: true }).waitFor();
    await timeline(page).getByText('waited for a reply 3 min', { exact: true }).waitFor();
    await timeline(page).getByText(/^waiting for a decision \d+ min$/).waitFor();
    await expect(timeline(page).locator('.timeline-gap-broken').count()).resolves.toBe(2);
    await expect(timeline(page).locator('.timeline-step').count()).resolves.toBe(10);
    await screenshotBoth(page, 'session-timeline', { fullPage: true });

    await turnButton(page, 1).click();
    const steps = timeline(page).getByRole('table', { name: 'Steps of turn 1 (prompt, succeeded)' });
    const secondCall = steps.getByRole('row').filter({ hasText: '+4.5 s' });
    await expect(secondCall.textContent()).resolves.toMatch(
      /model call\s*demo-model.*\+4\.5 s.*1\.9 s.*1,650 \/ 240.*\$0\.0058/,
    );
    await expect(steps.getByRole('row').filter({ hasText: 'after_turn' }).textContent()).resolves.toContain(
      'hook_failed',
    );
    await expect(steps.locator('tfoot').textContent()).resolves.toMatch(
      /6\.6 s.*2,850 \/ 420.*\$0\.0100.*2 model calls/,
    );
    // By keyboard: turn 3 opens with Enter and shows its refusal and the steps left out.
    await turnButton(page, 3).focus();
    await page.keyboard.press('Enter');
    await expect(turnButton(page, 3).getAttribute('aria-expanded')).resolves.toBe('true');
    const third = timeline(page).getByRole('table', { name: 'Steps of turn 3 (reply, failed)' });
    await expect(third.getByRole('row').filter({ hasText: 'spend_cap' }).textContent()).resolves.toContain(
      'spend_cap_reached',
    );
    await timeline(page).getByText('2 more steps were not recorded', { exact: false }).waitFor();
    await screenshotBoth(page, 'session-timeline-open', { fullPage: true });

    await page.setViewportSize(phone);
    await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).resolves.toBe(true);
    expect(problems.all()).toEqual([]);
    await context.close();
  });

  it("loads a 50-turn session's timeline in one request", { timeout: 120_000 }, async () => {
    const { context, page, problems } = await newTestPage(browser, { origin: product.base });
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes(`/api/sessions/${long}`)) requests.push(new URL(r.url()).pathname);
    });
    await page.goto(`${product.base}/sessions/${long}`);
    await turnButton(page, 50).waitFor();
    await expect(timeline(page).getByRole('button', { name: /^Turn \d+,/ }).count()).resolves.toBe(50);
    await page.waitForLoadState('networkidle');
    expect(requests.sort()).toEqual([`/api/sessions/${long}`, `/api/sessions/${long}/timeline`]);
    await expect(timeline(page).getByText('waited for a reply 2 min', { exact: true }).count()).resolves.toBe(49);
    await screenshotBoth(page, 'session-timeline-50', { fullPage: true });
    for (
      const [size, name] of [[desktop, 'session-timeline-50-top-1280'], [phone, 'session-timeline-50-top-375']] as const
    ) {
      await page.setViewportSize(size);
      await timeline(page).getByRole('heading', { name: 'Timeline' }).evaluate((h) => h.scrollIntoView());
      await screenshot(page, name);
    }
    await expect(page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).resolves.toBe(true);
    expect(problems.all()).toEqual([]);
    await context.close();
  });
});
