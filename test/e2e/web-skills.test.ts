/**
 * The Skills tab of an environment in a real browser (Debian's Chromium through playwright-core) against the product
 * as `scripts/start` starts it (dev-user), following one skill registry served over https on loopback (git
 * http-backend behind a self-signed certificate the API trusts through NODE_EXTRA_CA_CERTS):
 * - the registry holds two valid skills and one whose SKILL.md names another folder; once the product cloned it, an
 *   agent is created (no description: it lands on the Overview) and its main environment's Skills tab shows the
 *   registry (its id, URL, ready, the commit's first 12 characters, "3 skills"), the three skills with their names,
 *   descriptions and file counts, the broken one's problem and no button for it;
 * - "Add … summarise to the draft" copies the bundle: the tab says what was written (the commit, "2 files written"),
 *   the skill is marked "In the draft" and its button turns into Update; the draft's files (GET …/files) hold both
 *   files, and the Design tab's unpublished changes list them as added;
 * - at 375 px nothing overflows sideways (the URL and commit wrap);
 * - a second product whose config follows no registry (`skillRegistries: []`) says so on the tab, naming the key.
 * No console errors or CSP violations. Screenshots (1280×900 and 375×800) land in test-results/web/skills-*.png.
 *
 * Source: spec/platform-service.md § Rules 16, § Endpoints (GET /api/skill-registries); issue "Skill registries, and
 * collections with per-organization credentials and OAuth apps" § Skill registries.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillRegistryId } from '../../core/config/config-model.ts';
import { launchBrowser, newTestPage, screenshot, startWebApp, type StartedWebApp } from '../helpers/browser.ts';
import { type GitHttpsServer, startGitHttpsServer } from '../helpers/git-https-server.ts';

const skill = (name: string, description: string) =>
  `---\nname: ${name}\ndescription: ${description}\n---\nSay it briefly.\n`;
const SUMMARISE = 'Summarise a long text in three sentences.';
const TRANSLATE = 'Translate a text into English, keeping its tone.';

let git: GitHttpsServer;
let commit: string;
let registry: string;
let product: StartedWebApp;
/** A product following no registry. */
let none: StartedWebApp;
let browser: Browser;

interface RegistryState { id: string; url: string; state: string; commit: string | null; skills: number }

/** Polls GET /api/skill-registries until the registry is no longer being cloned. */
async function registryUpdated(): Promise<RegistryState> {
  for (let i = 0; i < 300; i++) {
    const answer = await fetch(`${product.base}/api/skill-registries`);
    const [state] = ((await answer.json()) as { registries: RegistryState[] }).registries;
    if (state && state.state !== 'cloning') return state;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the registry was still being cloned after 60 s');
}

beforeAll(async () => {
  git = await startGitHttpsServer();
  commit = git.commit({
    'skills/summarise/SKILL.md': skill('summarise', SUMMARISE),
    'skills/summarise/scripts/count.js': 'export const count = (text) => text.split(/\\s+/).length;\n',
    'skills/translate/SKILL.md': skill('translate', TRANSLATE),
    'skills/broken/SKILL.md': skill('mended', 'A skill whose name is not its folder.'),
  }, 'Three skills');
  registry = skillRegistryId(git.url);
  [product, none, browser] = await Promise.all([
    startWebApp({
      PLATFORM_SIGN_IN: 'dev-user', PLATFORM_CONFIG: JSON.stringify({ skillRegistries: [git.url] }),
      NODE_EXTRA_CA_CERTS: git.caFile,
    }),
    startWebApp({ PLATFORM_SIGN_IN: 'dev-user', PLATFORM_CONFIG: JSON.stringify({ skillRegistries: [] }) }),
    launchBrowser(),
  ]);
}, 450_000);

afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await none?.stop();
  await git?.close();
});

const wide = { width: 1280, height: 900 };
const narrow = { width: 375, height: 800 };

/** Screenshots of the whole page at 1280×900 (`skills[-<name>]-1280`) and 375×800 (`-375`); no overflow at 375. */
async function shoot(page: Page, name?: string): Promise<void> {
  const base = name ? `skills-${name}` : 'skills';
  await page.setViewportSize(wide);
  await screenshot(page, `${base}-1280`, { fullPage: true });
  await page.setViewportSize(narrow);
  await screenshot(page, `${base}-375`, { fullPage: true });
  const overflow = await page.evaluate(() => {
    const root = document.documentElement;
    return root.scrollWidth - root.clientWidth;
  });
  expect(overflow, `the page is ${overflow} px wider than 375 px`).toBeLessThanOrEqual(0);
  await page.setViewportSize(wide);
}

describe('Skills tab', () => {
  it('lists the registry and its skills; adds one to the draft, which then holds its files', async () => {
    const state = await registryUpdated();
    expect(state).toMatchObject({ id: registry, url: git.url, state: 'ready', commit, skills: 3 });
    const { context, page, problems } = await newTestPage(browser, { origin: product.base, viewport: wide });
    try {
      await page.goto(`${product.base}/agents`);
      await page.getByRole('button', { name: 'New agent' }).click();
      await page.getByLabel('Slug', { exact: true }).fill('helper');
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.waitForURL(`${product.base}/agents/helper/environments/main/overview`);
      const tabs = page.getByRole('navigation', { name: 'Environment pages' });
      await tabs.getByRole('link', { name: 'Skills' }).click();
      await page.waitForURL(`${product.base}/agents/helper/environments/main/skills`);
      await expect(tabs.getByRole('link', { name: 'Skills' }).getAttribute('aria-current')).resolves.toBe('page');

      // The registry's line: id, URL, ready, the commit served, its skill count.
      const section = page.getByRole('region', { name: registry });
      await section.getByText(git.url, { exact: true }).waitFor();
      await section.locator('.badge', { hasText: 'ready' }).waitFor();
      await expect(section.locator('.skill-registry-facts').textContent())
        .resolves.toMatch(new RegExp(`^commit ${commit.slice(0, 12)} · 3 skills · updated `));

      // Its skills by slug: the two valid ones offer Add; the broken one says why and offers nothing.
      const skills = section.getByRole('list', { name: `Skills of ${registry}` });
      const card = (slug: string) => skills.locator('.skill-card', { hasText: `(${slug})` });
      await card('summarise').waitFor();
      await expect(skills.locator('.skill-card h4').allTextContents())
        .resolves.toEqual(['mended (broken)', 'summarise (summarise)', 'translate (translate)']);
      await expect(card('summarise').locator('.skill-description').textContent()).resolves.toBe(SUMMARISE);
      await expect(card('summarise').locator('.skill-files').textContent()).resolves.toBe('2 files');
      await expect(card('translate').locator('.skill-description').textContent()).resolves.toBe(TRANSLATE);
      await expect(card('translate').locator('.skill-files').textContent()).resolves.toBe('1 file');
      const brokenProblems = card('broken').getByRole('list', { name: `Problems of ${registry}/broken` });
      await expect(brokenProblems.textContent()).resolves
        .toContain('name "mended" differs from the folder "broken"; set name: broken or rename the folder');
      await expect(card('broken').getByRole('button').count()).resolves.toBe(0);
      await expect(skills.getByText('In the draft', { exact: true }).count()).resolves.toBe(0);
      await page.getByRole('button', { name: `Add ${registry}/translate to the draft` }).waitFor();
      await shoot(page);

      // Add summarise: the tab says what was written; the skill is now in the draft and offers Update.
      await page.getByRole('button', { name: `Add ${registry}/summarise to the draft` }).click();
      const done = card('summarise').getByRole('status');
      await done.waitFor({ timeout: 30_000 });
      await expect(done.textContent()).resolves
        .toBe(`Added ${registry}/summarise (commit ${commit.slice(0, 12)}): 2 files written.`);
      await card('summarise').getByText('In the draft', { exact: true }).waitFor();
      await page.getByRole('button', { name: `Update ${registry}/summarise in the draft` }).waitFor();
      await expect(page.getByRole('button', { name: `Add ${registry}/summarise to the draft` }).count())
        .resolves.toBe(0);
      await expect(card('translate').getByText('In the draft', { exact: true }).count()).resolves.toBe(0);
      await shoot(page, 'added');

      // The draft holds the bundle.
      const answer = await fetch(`${product.base}/api/agents/helper/environments/main/files`);
      expect(answer.status).toBe(200);
      const { files } = (await answer.json()) as { files: { path: string; text: string }[] };
      const paths = files.map((f) => f.path);
      expect(paths).toEqual(expect.arrayContaining(['skills/summarise/SKILL.md', 'skills/summarise/scripts/count.js']));
      expect(paths.filter((p) => p.startsWith('skills/'))).toHaveLength(2);
      expect(files.find((f) => f.path === 'skills/summarise/SKILL.md')!.text).toBe(skill('summarise', SUMMARISE));

      // The Design tab's unpublished changes list the skill's files as added.
      await tabs.getByRole('link', { name: 'Design' }).click();
      const changes = page.getByRole('region', { name: 'Unpublished changes' });
      for (const path of ['skills/summarise/SKILL.md', 'skills/summarise/scripts/count.js']) {
        const diff = changes.locator('.design-diff', { hasText: path });
        await diff.waitFor();
        await expect(diff.locator('.badge').first().textContent()).resolves.toBe('added');
      }
      expect(problems.all()).toEqual([]);
    } finally {
      await context.close();
    }
  }, 300_000);

  it('without a registry: the tab says none is followed and where the config lists them', async () => {
    const answer = await fetch(`${none.base}/api/skill-registries`);
    await expect(answer.json()).resolves.toEqual({ registries: [] });
    const { context, page, problems } = await newTestPage(browser, { origin: none.base, viewport: wide });
    try {
      await page.goto(`${none.base}/agents`);
      await page.getByRole('button', { name: 'New agent' }).click();
      await page.getByLabel('Slug', { exact: true }).fill('plain');
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.waitForURL(`${none.base}/agents/plain/environments/main/overview`);
      await page.getByRole('navigation', { name: 'Environment pages' }).getByRole('link', { name: 'Skills' }).click();
      await page.getByText('This deployment follows no skill registry.', { exact: true }).waitFor();
      await expect(page.locator('.skills-tab .empty').textContent()).resolves.toContain(
        'The config’s skillRegistries lists them: the https URLs of public git repositories',
      );
      await expect(page.getByRole('button', { name: /to the draft$/ }).count()).resolves.toBe(0);
      await shoot(page, 'none');
      expect(problems.all()).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);
});
