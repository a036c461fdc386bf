/**
 * Seeds the demo semantic projects on first start: `flights` (BTS on-time data from the vega-datasets
 * package, 3,000,000 rows, with airports reached by origin and by destination) and `tpcds` (the OSI
 * TPC-DS example model with generated data). Uses the `cairn` command, as an operator would.
 *
 * Idempotent and retried: a project counts as seeded once it has a published build (an import cut off
 * by an API restart is imported again, replacing what was saved); the demo token is created only when
 * `<dataDir>/demo-tokens.json` has none for the project, after revoking any active token named `demo`
 * (one whose creation answer was lost), so a retry never leaves two. A failed step waits until the API
 * answers again and is tried again, up to `attempts` times; a refusal no retry can change (the API wants a sign-in
 * token: {@link SeedRefusal}) ends seeding at once with what to do. Calls carry CAIRN_TOKEN as a bearer token when
 * set (the `cairn` commands read it too).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTpcdsData } from './demo/generate-tpcds.ts';

/** Where the product runs and where its files are. */
export interface SeedOptions {
  url: string;
  dataDir: string;
  root: string;
  log: (line: string) => void;
  /** Resolves once the API (and semantic-mcp) answer again; called before each retry. */
  waitUntilUp: () => Promise<void>;
  /** Tries per project before giving up (default 5). */
  attempts?: number;
  /**
   * Token values minted before the platform started (scripts/start boots it naming the flights one): a demo token
   * created now takes this value, so the platform's config already names it; one refused (in use) is minted anew.
   */
  minted?: DemoTokens;
}

/** A demo token value minted here, in the form the API mints them (`cairn_mcp_` and 32 random bytes, base64url). */
export function mintDemoToken(): string {
  return `cairn_mcp_${randomBytes(32).toString('base64url')}`;
}

/** Demo tokens by project slug (kept in `<dataDir>/demo-tokens.json`, mode 0600). */
export type DemoTokens = Record<string, string>;

const tokenName = 'demo';

/** A refusal trying again cannot change (e.g. the API wants a sign-in token): seeding stops at once and says why. */
export class SeedRefusal extends Error {}

/** What to do when the API answers 401: seeding needs CAIRN_TOKEN (never its value in the message). */
function signInNeeded(url: string): SeedRefusal {
  const refused = process.env.CAIRN_TOKEN ? 'the CAIRN_TOKEN was refused (expired, or not for this API); ' : '';
  return new SeedRefusal(`seeding needs an access token: this instance signs callers in (PLATFORM_SIGN_IN=oidc or `
    + `cloud-alb), and ${refused}the demo projects and agent are created by you. Get an access token your identity `
    + 'provider issues for PLATFORM_OIDC_AUDIENCE (e.g. from its token endpoint, or the Authorization header the web '
    + `app at ${url} sends once you signed in), then run CAIRN_TOKEN=<token> scripts/start again.`);
}

/** Seeds what is missing and returns the demo tokens. @throws Error naming the project and the last failure */
export async function seedDemo(options: SeedOptions): Promise<DemoTokens> {
  const tokensFile = join(options.dataDir, 'demo-tokens.json');
  const tokens = readDemoTokens(options.dataDir);
  for (const project of ['flights', 'tpcds']) {
    await withRetries(options, `demo project ${project}`, project, () => seedProject(options, project, tokens, tokensFile));
  }
  return tokens;
}

/** The demo tokens saved by an earlier start (empty when none). */
export function readDemoTokens(dataDir: string): DemoTokens {
  const tokensFile = join(dataDir, 'demo-tokens.json');
  return existsSync(tokensFile) ? JSON.parse(readFileSync(tokensFile, 'utf8')) as DemoTokens : {};
}

/**
 * Runs `step` until it succeeds, waiting for the API between tries, up to `options.attempts` (default 5) times.
 * @param what - names the thing seeded in the final error; `short` in the retry lines
 * @throws Error `<what>: <last failure> (tried N times)`
 */
export async function withRetries<T>(options: SeedOptions, what: string, short: string, step: () => Promise<T>): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      if (error instanceof SeedRefusal) throw error;
      const reason = (error as Error).message;
      if (attempt >= attempts) throw new Error(`${what}: ${reason} (tried ${attempts} times)`);
      options.log(`seeding ${short} failed (${reason}); trying again once the API answers (attempt ${attempt + 1} of ${attempts})`);
      await options.waitUntilUp();
    }
  }
}

async function seedProject(options: SeedOptions, project: string, tokens: DemoTokens, tokensFile: string): Promise<void> {
  if (!(await isPublished(options.url, project))) {
    options.log(`seeding demo project ${project} (first start)`);
    const dir = await prepareProjectDir(options, project);
    await cairn(options, ['semantic', 'import', dir, '--project', project, '--publish']);
    rmSync(dir, { recursive: true, force: true });
    delete tokens[project];
  }
  if (!tokens[project]) {
    await revokeDemoTokens(options.url, project);
    const mint = ['semantic', 'token', 'create', project, '--models', modelOf(project), '--name', tokenName];
    tokens[project] = await registerMinted(options, project) ?? (await cairn(options, mint)).trim();
    writeFileSync(tokensFile, JSON.stringify(tokens, null, 2), { mode: 0o600 });
  }
}

/** Creates the demo token of `project` with the value minted before the start; undefined when none or in use. */
async function registerMinted(options: SeedOptions, project: string): Promise<string | undefined> {
  const value = options.minted?.[project];
  if (!value) return undefined;
  const body = { name: tokenName, models: [modelOf(project)], value };
  const path = `/api/semantic/projects/${project}/tokens`;
  const created = await api<{ token: string }>(options.url, 'POST', path, body, [409]);
  return created.status === 201 ? created.body?.token : undefined;
}

function modelOf(project: string): string {
  return project === 'flights' ? 'flights' : 'tpcds_retail_model';
}

/**
 * One JSON call to the API (with `body` as JSON when given); 404 and the `answered` statuses answer `{ status }`.
 * @throws Error naming the method, path and status; {@link SeedRefusal} on 401
 */
export async function api<T>(
  url: string, method: string, path: string, body?: unknown, answered: number[] = [],
): Promise<{ status: number; body?: T }> {
  const token = process.env.CAIRN_TOKEN;
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const sent = body === undefined ? {} : { body: JSON.stringify(body) };
  const response = await fetch(new URL(path, url), { method, headers, ...sent });
  if (response.status === 401) throw signInNeeded(url);
  if (response.status === 404 || answered.includes(response.status)) return { status: response.status };
  if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`);
  return { status: response.status, body: (await response.json()) as T };
}

/** True once the project exists and has a published build. */
async function isPublished(url: string, slug: string): Promise<boolean> {
  const { body } = await api<{ publishedRevision: number | null }>(url, 'GET', `/api/semantic/projects/${slug}`);
  return body !== undefined && body.publishedRevision !== null;
}

/** Revokes active tokens named `demo` (one created by an attempt whose answer never arrived). */
async function revokeDemoTokens(url: string, slug: string): Promise<void> {
  const { body } = await api<{ tokens: { id: string; name: string; state: string }[] }>(url, 'GET', `/api/semantic/projects/${slug}/tokens`);
  for (const token of body?.tokens ?? []) {
    if (token.name === tokenName && token.state === 'active') await api(url, 'DELETE', `/api/semantic/projects/${slug}/tokens/${encodeURIComponent(token.id)}`);
  }
}

async function prepareProjectDir(options: SeedOptions, project: string): Promise<string> {
  const dir = join(options.dataDir, 'demo-import', project);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'models'), { recursive: true });
  mkdirSync(join(dir, 'data'), { recursive: true });
  const demo = join(options.root, 'scripts', 'demo', project, 'models');
  const modelFile = `${modelOf(project)}.yaml`;
  copyFileSync(join(demo, modelFile), join(dir, 'models', modelFile));
  if (project === 'flights') {
    const vega = join(options.root, 'node_modules', 'vega-datasets', 'data');
    copyFileSync(join(vega, 'flights-3m.parquet'), join(dir, 'data', 'flights.parquet'));
    copyFileSync(join(vega, 'airports.csv'), join(dir, 'data', 'airports.csv'));
  } else {
    await generateTpcdsData(join(dir, 'data'));
  }
  return dir;
}

/** Runs the `cairn` command without blocking (signals and the child's exit stay handled); resolves with stdout. */
export function cairn(options: SeedOptions, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(options.root, 'bins', 'cairn', 'main.ts'), '--url', options.url, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let lastError = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) { options.log(line); lastError = line; }
    });
    child.on('error', reject);
    child.on('close', (status) => (status === 0 ? resolve(stdout) : reject(new Error(`cairn ${args.slice(0, 3).join(' ')}: ${lastError || `exit ${status}`}`))));
  });
}
