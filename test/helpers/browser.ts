/**
 * Browser tests of the web app: Playwright (`playwright-core`) driving Debian's `chromium` package
 * (/usr/bin/chromium, installed by scripts/test; Playwright's own browser download cannot work here).
 * Screenshots go to test-results/web/<name>.png (git-ignored); every page collects console errors, page
 * errors and Content-Security-Policy violations so a test can assert there were none.
 *
 * Source: docs/decisions.md D9 (browser tests); spec/platform-service.md § Front proxy routes (CSP).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from './ports.ts';
import { repoRoot } from './product.ts';
import { runStartScript, type StartedScript } from './start-script.ts';

/** Debian's Chromium. */
export const chromiumPath = '/usr/bin/chromium';
/** Where screenshots land. */
export const screenshotDir = join(repoRoot, 'test-results/web');

/** Desktop and phone viewports every page is looked at (CSS px). */
export const desktop = { width: 1280, height: 800 };
export const phone = { width: 375, height: 740 };

/**
 * Launches headless Chromium.
 * @param options.ignoreCertificateErrors - trust the self-signed certificate of the test OpenID provider
 *   (https://127.0.0.1:<port>; the product's CSP only lets the browser reach other origins over https:)
 * @param options.args - more command-line switches
 */
export function launchBrowser(options: { ignoreCertificateErrors?: boolean; args?: string[] } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage', ...(options.ignoreCertificateErrors ? ['--ignore-certificate-errors'] : []), ...(options.args ?? [])],
  });
}

/** What went wrong in a page: console errors, uncaught errors and CSP violations, in order. */
export interface PageProblems {
  /** Console messages of type error (Chromium's "Refused to …" CSP lines are among them). */
  consoleErrors: string[];
  /** Uncaught exceptions of the page. */
  pageErrors: string[];
  /** `securitypolicyviolation` events: `<violated directive> <blocked URI>`. */
  cspViolations: string[];
  /** Every one of the above, for `expect(problems.all()).toEqual([])`. */
  all(): string[];
  /** Forgets what was collected so far (after a step that fails on purpose). */
  clear(): void;
}

/** A page in a fresh browser context (no cookies or storage shared with other contexts). */
export interface TestPage {
  context: BrowserContext;
  page: Page;
  problems: PageProblems;
}

/**
 * A fresh context and page at `viewport` (default {@link desktop}) collecting its problems.
 * @param origin - when given, only console errors and CSP violations of pages of this origin are collected
 *   (the test OpenID provider's own pages are not the app's)
 */
export async function newTestPage(browser: Browser, options: { viewport?: { width: number; height: number }; origin?: string } = {}): Promise<TestPage> {
  const context = await browser.newContext({ viewport: options.viewport ?? desktop });
  return { context, ...(await watched(context, options.origin)) };
}

/**
 * A page of a Chromium of its own with a fresh on-disk profile whose cookie setting is "Allow third-party
 * cookies" (`profile.cookie_controls_mode` 0, Google Chrome's default for most people). Debian's Chromium
 * 156 blocks third-party cookies by default (also in a fresh persistent profile), so a hidden frame of a
 * cross-site OpenID provider gets no session cookie there; this profile is how a test looks at the hidden-frame
 * restore in a browser that sends them. `close()` ends the browser and removes the profile.
 */
export async function newThirdPartyCookiesPage(options: { viewport?: { width: number; height: number }; origin?: string; ignoreCertificateErrors?: boolean } = {}): Promise<TestPage & { close(): Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'cairn-test-chromium-'));
  mkdirSync(join(profile, 'Default'));
  writeFileSync(join(profile, 'Default/Preferences'), JSON.stringify({ profile: { cookie_controls_mode: 0 } }));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: options.viewport ?? desktop,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-dev-shm-usage', ...(options.ignoreCertificateErrors ? ['--ignore-certificate-errors'] : [])],
  });
  const watchedPage = await watched(context, options.origin);
  return { context, ...watchedPage, close: async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); } };
}

async function watched(context: BrowserContext, origin?: string): Promise<{ page: Page; problems: PageProblems }> {
  const problems = await collectProblems(context, origin);
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { __cairnCspViolation?: (text: string) => void }).__cairnCspViolation?.(`${event.violatedDirective} ${event.blockedURI || '(inline)'} at ${event.sourceFile || event.documentURI}:${event.lineNumber}:${event.columnNumber}`);
    });
  });
  // A persistent context opens with a page already there (not announced by the 'page' event).
  const existing = context.pages()[0];
  if (existing) watchPage(existing, problems, origin);
  return { page: existing ?? await context.newPage(), problems };
}

async function collectProblems(context: BrowserContext, origin?: string): Promise<PageProblems> {
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  const ours = (url: string) => origin === undefined || url.startsWith(origin);
  await context.exposeBinding('__cairnCspViolation', ({ frame }, text: string) => { if (ours(frame.url())) cspViolations.push(text); });
  const problems: PageProblems = {
    consoleErrors, pageErrors, cspViolations,
    all: () => [...consoleErrors.map((t) => `console: ${t}`), ...pageErrors.map((t) => `page error: ${t}`), ...cspViolations.map((t) => `CSP: ${t}`)],
    clear: () => { consoleErrors.length = 0; pageErrors.length = 0; cspViolations.length = 0; },
  };
  context.on('page', (page) => watchPage(page, problems, origin));
  return problems;
}

/** Collects the console errors and uncaught errors of `page` while it shows `origin` (any origin when undefined). */
function watchPage(page: Page, problems: PageProblems, origin?: string): void {
  const ours = () => origin === undefined || page.url().startsWith(origin);
  page.on('console', (message) => {
    if (message.type() === 'error' && ours()) problems.consoleErrors.push(`${message.text()} (${message.location().url}:${message.location().lineNumber})`);
  });
  page.on('pageerror', (error) => { if (ours()) problems.pageErrors.push(`${error.name}: ${error.message}`); });
}

/**
 * Writes a PNG of the page at its current viewport to test-results/web/<name>.png and answers its path.
 * @param options.fullPage - the whole scrollable page instead of the viewport
 */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(screenshotDir, { recursive: true });
  const path = join(screenshotDir, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? false });
  return path;
}

/**
 * Screenshots the page at {@link desktop} (`<name>-1280`) and {@link phone} (`<name>-375`), leaving it at desktop size.
 * @param options.fullPage - the whole scrollable page at each width (for a page whose point is below the fold)
 */
export async function screenshotBoth(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await page.setViewportSize(desktop);
  await screenshot(page, `${name}-1280`, options);
  await page.setViewportSize(phone);
  await screenshot(page, `${name}-375`, options);
  await page.setViewportSize(desktop);
}

/** A product started by scripts/start for a browser test. */
export interface StartedWebApp {
  run: StartedScript;
  /** http://127.0.0.1:<PORT> (the front proxy: the web app, /api, /mcp). */
  base: string;
  dataDir: string;
  /** Stops scripts/start and removes its data directory. */
  stop(): Promise<void>;
}

/**
 * Starts the product as a newcomer does (`scripts/start`, which also builds the web app when stale) on free
 * ports with a fresh CAIRN_DATA_DIR, no model configured, plus `env` (the sign-in mode and its settings);
 * resolves once it printed "cairn is running on" (the demo projects are seeded by then under dev-user).
 * @param port - the public PORT, when it must be known before (an OpenID client's redirect URIs)
 */
export async function startWebApp(env: Record<string, string>, port?: number): Promise<StartedWebApp> {
  // A port freePort chose can be taken by another test's process before scripts/start binds it (the kernel hands
  // out the same ephemeral range): scripts/start then refuses, naming the variable, and a fresh choice is made.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startWebAppOnce(env, port);
    } catch (error) {
      const taken = /\b([A-Z_]*PORT)=\d+ is taken on 127\.0\.0\.1/.exec(String(error))?.[1];
      const raced = taken !== undefined && !(taken === 'PORT' && port !== undefined);
      if (!raced || attempt === 3) throw error;
    }
  }
}

async function startWebAppOnce(env: Record<string, string>, port?: number): Promise<StartedWebApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cairn-web-'));
  const ports = {
    PORT: port ?? await freePort(), API_PORT: await freePort(), SEMANTIC_MCP_PORT: await freePort(),
    CAIRN_EMBEDDED_QUEUE_PORT: await freePort(),
  };
  const run = runStartScript({
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), CAIRN_DATA_DIR: dataDir, HOST: '', CAIRN_PROXY_BIND: '', PLATFORM_CONFIG: '', PLATFORM_CONFIG_FILE: '',
    CAIRN_MODEL_BASE_URL: '', CAIRN_MODEL: '', CAIRN_MODEL_API_KEY: '', CAIRN_MODEL_PROVIDER: '', CAIRN_MODEL_PRICES: '', ...env,
  });
  try {
    await run.waitForLine(/^cairn is running on /, 400_000);
  } catch (error) {
    await run.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return { run, base: `http://127.0.0.1:${ports.PORT}`, dataDir, stop: async () => { await run.stop(); rmSync(dataDir, { recursive: true, force: true }); } };
}

/**
 * From the app's sign-in page (already shown in `page`), signs in at the local OpenID provider's login page
 * (test/helpers/oidc-provider.ts) as `login` with any password, and waits until the provider sends the page back
 * to `appBase`.
 */
export async function signInAtProvider(page: Page, issuer: string, appBase: string, login: string): Promise<void> {
  await page.getByRole('heading', { name: 'Sign in', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${issuer}/interaction/**`);
  await page.getByLabel('Login').fill(login);
  await page.getByLabel('Password').fill('any password');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.waitForURL(`${appBase}/**`);
}
