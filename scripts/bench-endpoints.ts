/**
 * Endpoint benchmark. Starts the product as the e2e tests do (front proxy Caddy, API, dispatcher, embedded queue
 * store and document store, on loopback ports), publishes scripts/bench-fixtures/agents/bench-endpoints (webhook
 * triggers on two public webhook connections, a chat trigger on a public AG-UI connection; the scripted model
 * server answers the chat turns) and prints, side by side from one run:
 * 1. webhook acknowledgements per second and p50/p99 acknowledgement latency through the proxy
 *    (scripts/bench-endpoints-webhooks.ts: `POST /api/webhooks/<address>`, a distinct X-Delivery-Id each, answered
 *    202) against a plain proxied `GET /api/health` measured the same way (same concurrency, same duration); the ratio is the headline. Profile rows:
 *    the same POST refused at the address look-up (404), stopped at the claim (claimed already) and with the
 *    dispatcher stopped (SIGSTOP: the endpoint alone); the client's and each product process's CPU in each run
 *    (cores), and the dispatcher's pace afterwards (sessions opened and ended per second over a bounded wait);
 * 2. duplicates admitted under 25 concurrent retries of one delivery (sessions opened for it beyond the first);
 * 3. AG-UI time to RUN_STARTED (`POST /api/agui/<address>`, request start to the first SSE `data:` line of type
 *    RUN_STARTED), sequential runs, against the time to first byte of `GET /api/health` (scripts/bench-endpoints-agui.ts).
 * 4. one tenant's burst against another's chat: organization B's chat turn over AG-UI alone, then right after
 *    organization A's burst of `--burst N` (default 5,000) webhook deliveries, and A's pace meanwhile
 *    (scripts/bench-endpoints-fairness.ts). Every scripted model call takes 200 ms.
 * Parts 2 and 3 run first (part 1 leaves the dispatcher thousands of turns), part 4 on a product of its own; the
 * output is printed in order.
 * Baseline: parts 1 and 3 run first on the product of an earlier revision (`--baseline REV`, default BASELINE_REVISION in
 * scripts/bench-endpoints-baseline.ts: the webhook path before its claim stopped blocking the event loop and before
 * one round trip for both rate counters), extracted from git, and its headline figures print beside the current ones
 * with their ratio; `--no-baseline` skips it.
 * Targets (docs/decisions.md D24) are printed as same-run ratios beside the baseline's, not asserted: webhook
 * acknowledgements ≥ 0.4 of the health rate with p99 ≤ 2 times the health p99, RUN_STARTED ≤ 4 times the health
 * first byte (scripts/bench-endpoints-baseline.ts `targetLines`). Options: --seconds N (per load run, default 10), --concurrency N (default 32), --few N (the in-flight
 * count of a second run with the dispatcher working, default 8), --runs N (AG-UI, default 50),
 * --cpu-profile DIR (Bun's CPU profile of every product process, written into DIR as markdown when it stops),
 * --tracing (parts 1 and 3 again with spans exported to a receiver on loopback, beside the untraced figures;
 * scripts/bench-endpoints-tracing.ts), --no-fairness (no part 4).
 *
 * Source: spec/platform-service.md § Endpoints, § Limits; docs/decisions.md D8 (endpoints).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCairn, startProduct, type RunningProduct } from '../test/helpers/product.ts';
import { startScriptedModelServer } from '../test/helpers/scripted-model-server.ts';
import { benchAgui } from './bench-endpoints-agui.ts';
import { benchFairness } from './bench-endpoints-fairness.ts';
import {
  BASELINE_REVISION, compareWithBaseline, extractRevision, targetLines, type ProductRun,
} from './bench-endpoints-baseline.ts';
import { waitForSessions } from './bench-endpoints-sessions.ts';
import { tracingComparison } from './bench-endpoints-tracing.ts';
import { webhookThroughput } from './bench-endpoints-webhooks.ts';

const root = resolve(import.meta.dirname, '..');
const option = (name: string, fallback: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) || fallback : fallback);
const seconds = option('--seconds', 10);
const concurrency = option('--concurrency', 32);
const runs = option('--runs', 50);
/** `--burst N` (default 5,000): organization A's deliveries in part 4; `--chats N` (default 5): B's chats each way. */
const burstSize = option('--burst', 5000);
const chats = option('--chats', 5);
/** `--few N` (default 8): the in-flight count of the second webhook run with the dispatcher working. */
const few = option('--few', 8);
/** `--baseline REV` (default {@link BASELINE_REVISION}), `--no-baseline`: the revision measured first, beside now. */
const argAfter = (name: string) =>
  (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] ?? '' : undefined);
const baselineArg = argAfter('--baseline');
const baseline = process.argv.includes('--no-baseline') ? undefined : baselineArg ?? BASELINE_REVISION;
/** `--cpu-profile DIR`: every Bun process of the product writes a CPU profile (markdown) into DIR when it stops. */
/** `--tracing`: parts 1 and 3 again with spans exported (./bench-endpoints-tracing.ts); `--no-fairness`: no part 4. */
const tracing = process.argv.includes('--tracing');
const withFairness = !process.argv.includes('--no-fairness');
const profileDir = process.argv.includes('--cpu-profile') ? resolve(process.argv[process.argv.indexOf('--cpu-profile') + 1] ?? '') : undefined;
const agent = 'bench-endpoints';
const loadAverage = () => { try { return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '); } catch { return 'unknown'; } };

/** Creates a public connection of `protocol` on the bench agent; returns its endpoint URL on the product's origin, or the CLI's error. */
/** The product's helpers of one revision: its product, and its `cairn` command (a CLI talks to its own API). */
interface Helpers { startProduct: typeof startProduct; runCairn: typeof runCairn }

/** This checkout's helpers; the baseline's come from its own extracted sources. */
let cli: typeof runCairn = runCairn;

function connection(product: RunningProduct, id: string, protocol: string, extra: string[] = []): { url?: string; error?: string } {
  const created = cli(product.url, ['connection', 'create', '--agent', agent, '--env', 'main', '--id', id, '--protocol', protocol, '--auth', 'public', ...extra, '--json']);
  if (created.status !== 0) return { error: (created.stderr || created.stdout).trim().split('\n')[0] };
  return { url: (JSON.parse(created.stdout) as { url: string }).url.replace(/^https?:\/\/[^/]+/, product.url) };
}

async function duplicates(product: RunningProduct, url: string, print: (line: string) => void): Promise<void> {
  const answers = await Promise.all(Array.from({ length: 25 }, () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-delivery-id': 'retried-1' }, body: '{"retry":true}' })
    .then(async (r) => ({ status: r.status, body: (await r.json()) as { duplicate?: boolean } }))));
  const first = answers.filter((a) => a.status === 202 && !a.body.duplicate).length;
  const settled = await waitForSessions(product.dataDir, 'dedupe', 1, 60, { thenWaitMs: 2_000 });
  const viaApi = (await (await fetch(`${product.url}/api/agents/${agent}/environments/main/workflows/dedupe/sessions`)).json()) as { sessions: { variables: { trigger: { deliveryId: string } } }[] };
  const opened = viaApi.sessions.filter((s) => s.variables.trigger.deliveryId === 'retried-1').length;
  print('\n2. 25 concurrent retries of one delivery (one X-Delivery-Id)');
  print(`answers: ${answers.filter((a) => a.status === 202).length}× 202 (${first} taken, ${answers.filter((a) => a.body.duplicate).length} duplicate)${answers.some((a) => a.status !== 202) ? `, others: ${answers.filter((a) => a.status !== 202).map((a) => a.status).join(' ')}` : ''}`);
  print(`sessions opened for it: ${opened} (document store: ${settled.count}) → duplicates admitted: ${Math.max(0, opened - 1)} (must be 0)`);
}


/**
 * Starts a product with `start` (this checkout's, or the baseline revision's), publishes the bench agent and runs
 * the parts: all four, or parts 1, 3 and 4 only (`baselineRun`: the parts whose targets are ratios). A part that fails
 * prints which part and why, and the others still run; a product that cannot be set up throws.
 */
async function benchProduct(helpers: Helpers, env: Record<string, string>, baselineRun: boolean): Promise<ProductRun> {
  cli = helpers.runCairn;
  const product = await helpers.startProduct(env);
  // Interrupted (Ctrl-C, a timeout): the product runs in its own process group, so stop it here.
  const stopOnSignal = () => void product.stop().then(() => process.exit(130));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stopOnSignal);
  try {
    const fixture = join(root, 'scripts/bench-fixtures/agents/bench-endpoints');
    const imported = cli(product.url, ['agent', 'import', fixture, '--agent', agent, '--publish']);
    if (imported.status !== 0) throw new Error(`publishing the bench agent failed: ${imported.stderr || imported.stdout}`);
    // The most calls per minute a connection may allow (one connection per load run), so no counter refuses the bench.
    const most = ['--rate', '100000,100000'];
    const hookIds = ['hook', 'hook-paused', 'hook-live', 'hook-few'];
    const hooks = hookIds.map((id) => ({ id, ...connection(product, id, 'webhook', most) }));
    const retried = connection(product, 'retried', 'webhook');
    const notMade = [...hooks, { id: 'retried', ...retried }].filter((c) => !c.url);
    if (notMade.length > 0) {
      const why = notMade.map((c) => `${c.id}: ${c.error}`).join('; ');
      throw new Error(`creating the webhook connections failed: ${why}`);
    }
    const [warm, paused, live, fewUrl] = hooks.map((c) => c.url as string);
    // Parts 2 and 3 run first, while the dispatcher is idle (part 1 leaves it thousands of turns to run); printed in
    // order.
    const run: ProductRun = { parts: [[], [], []] };
    const part = async (index: number, title: string, fn: (print: (line: string) => void) => Promise<void>) => {
      const print = (line: string) => run.parts[index].push(line);
      try {
        await fn(print);
      } catch (error) {
        print(`\n${index + 1}. ${title}: FAILED: ${error instanceof Error ? error.message : String(error)}`);
      }
    };
    const retries = (print: (line: string) => void) => duplicates(product, retried.url as string, print);
    if (!baselineRun) await part(1, 'retries of one delivery', retries);
    const chat = () => connection(product, 'chat', 'agui', most);
    await part(2, 'AG-UI time to RUN_STARTED', async (print) => {
      run.agui = await benchAgui(product, chat, runs, print);
    });
    await part(0, 'webhook acknowledgements', async (print) => {
      const load = { urls: { warm, paused, live, few: fewUrl }, concurrency, seconds, few };
      run.webhook = await webhookThroughput(product, load, print);
    });
    return run;
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, stopOnSignal);
    await product.stop();
  }
}

/**
 * Part 4 on a product of its own (this checkout's, or the baseline revision's), so the burst it leaves behind slows
 * no other part and no other part's leftovers make B's chat less alone. @returns its lines and figures
 */
async function fairnessRun(helpers: Helpers, env: Record<string, string>): Promise<Pick<ProductRun, 'parts' | 'fairness'>> {
  cli = helpers.runCairn;
  const product = await helpers.startProduct(env);
  const stopOnSignal = () => void product.stop().then(() => process.exit(130));
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, stopOnSignal);
  const lines: string[] = [];
  const print = (line: string) => lines.push(line);
  try {
    const fixture = join(root, 'scripts/bench-fixtures/agents/bench-endpoints');
    const imported = cli(product.url, ['agent', 'import', fixture, '--agent', agent, '--publish']);
    if (imported.status !== 0) throw new Error(`publishing the bench agent failed: ${imported.stderr || imported.stdout}`);
    const importAgent = (slug: string, org: string) => {
      const made = cli(product.url, ['agent', 'import', fixture, '--agent', slug, '--org', org, '--publish']);
      if (made.status !== 0) throw new Error(`publishing ${slug} failed: ${made.stderr || made.stdout}`);
    };
    const connect = (slug: string, id: string, protocol: string) => {
      const extra = ['--rate', '100000,100000'];
      const made = cli(product.url, ['connection', 'create', '--agent', slug, '--env', 'main', '--id', id, '--protocol', protocol, '--auth', 'public', ...extra, '--json']);
      if (made.status !== 0) return { error: (made.stderr || made.stdout).trim().split('\n')[0] };
      return { url: (JSON.parse(made.stdout) as { url: string }).url.replace(/^https?:\/\/[^/]+/, product.url) };
    };
    const setup = { product, connection: connect, importAgent, deliveries: burstSize, runs: chats, concurrency };
    return { parts: [lines], fairness: await benchFairness(setup, print) };
  } catch (error) {
    print(`\n4. one tenant's burst against another's chat: FAILED: ${error instanceof Error ? error.message : String(error)}`);
    return { parts: [lines] };
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.off(signal, stopOnSignal);
    await product.stop();
  }
}

/** The baseline revision's parts 1 and 3 (its product started from its own sources), or why it could not run. */
async function baselineRun(env: Record<string, string>): Promise<ProductRun | string> {
  let extracted: ReturnType<typeof extractRevision> | undefined;
  try {
    extracted = extractRevision(root, baseline as string);
    const helpers = (await import(join(extracted.dir, 'test/helpers/product.ts'))) as Helpers;
    const run = await benchProduct(helpers, env, true);
    if (!withFairness) return run;
    const fairness = await fairnessRun(helpers, env);
    return { ...run, fairness: fairness.fairness, parts: [...run.parts, ...fairness.parts] };
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    extracted?.remove();
  }
}

async function main(): Promise<void> {
  // Every call answers after 200 ms, as a quick real model would (RUN_STARTED comes before the call).
  const calls = 2 * (runs + 20 + 2 * (chats + 4));
  const script = Array.from({ length: calls }, () => ({ text: 'Hello from the scripted model.', delayMs: 200 }));
  const model = await startScriptedModelServer(script);
  const prices = { input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 };
  const provider = { id: 'scripted', type: 'openai-compatible', apiBaseUrl: model.baseUrl };
  const offered = [{ id: 'scripted-model', provider: 'scripted', prices }];
  const config = { models: { providers: [provider], offered } };
  const profile: Record<string, string> = {};
  if (profileDir) profile.BUN_OPTIONS = `--cpu-prof-md --cpu-prof-dir=${profileDir}`;
  const env: Record<string, string> = { PLATFORM_CONFIG: JSON.stringify(config), ...profile };
  try {
    console.log(`cairn (sources on bun; embedded queue and document stores), ${navigator.hardwareConcurrency} cores, `
      + `load average ${loadAverage()}${baseline ? `; baseline ${baseline.slice(0, 12)} first, parts 1, 3 and 4` : ''}`);
    const old = baseline ? await baselineRun(env) : undefined;
    const current = await benchProduct({ startProduct, runCairn }, env, false);
    const fairness = withFairness ? await fairnessRun({ startProduct, runCairn }, env) : { parts: [] };
    if ('fairness' in fairness) current.fairness = fairness.fairness;
    const traced = tracing
      ? await tracingComparison(current, (extra) => benchProduct({ startProduct, runCairn }, { ...env, ...extra }, true))
      : [];
    for (const line of [...current.parts, ...fairness.parts].flat()) console.log(line);
    // The baseline's part 4 as it printed (its other parts are summed up in the comparison below).
    if (typeof old === 'object') for (const line of old.parts[3] ?? []) console.log(line.replace(/^\n4\./, `\n4. (baseline ${baseline?.slice(0, 12)})`));
    if (old !== undefined) for (const line of compareWithBaseline(baseline as string, current.webhook, old)) console.log(line);
    for (const line of targetLines(baseline, current, old)) console.log(line);
    for (const line of traced) console.log(line);
  } finally {
    await model.close();
  }
  if (profileDir) console.log(`\nCPU profiles of the product's processes (markdown, one per process; the API's names bins/api): ${profileDir}`);
}

try {
  await main();
  process.exit(0);
} catch (error) {
  // Said, not thrown: what could not be set up (the product, the bench agent, its connections) and why.
  console.error(`bench-endpoints failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
