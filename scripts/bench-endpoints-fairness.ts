/**
 * Part 4 of scripts/bench-endpoints: one tenant's burst against another's chat. Organization A is the bench agent's
 * (its `burst` workflow: a webhook trigger on connection `hook-burst` whose session ends without a model call);
 * organization B is made here with the same agent under another slug, and a public AG-UI connection on its chat
 * trigger (one scripted model call per turn). Measured, in one run:
 * 1. B's chat turn alone: `runs` sequential AG-UI runs, request start to the stream's RUN_FINISHED (ms);
 * 2. A's burst: `deliveries` webhook deliveries posted through the front proxy, `concurrency` in flight;
 * 3. right after the last delivery was acknowledged, B's chat turn again, `runs` times, while A's burst runs on;
 * 4. A's pace: its sessions ended per second while B's chats ran, against its pace in the seconds after them.
 * The headline is (3) / (1): at most 2 (docs/decisions.md D24 § 1); printed, not asserted.
 *
 * Source: docs/decisions.md D24 § 1 (fair turns between organizations, interactive first).
 */
import type { RunningProduct } from '../test/helpers/product.ts';
import { quantile } from './bench-endpoints-load.ts';
import { countSessions } from './bench-endpoints-sessions.ts';

/** The figures of part 4 (ms, medians; sessions per second). */
export interface FairnessFigures {
  aloneP50: number;
  burstP50: number;
  /** Organization A's sessions ended per second while B's chats ran, and in the seconds after. */
  paceDuring: number;
  paceAfter: number;
}

/** What part 4 needs of the product and the bench. */
export interface FairnessSetup {
  product: RunningProduct;
  /** Creates a public connection of `protocol` on `agent`; returns its URL on the product's origin, or why not. */
  connection(agent: string, id: string, protocol: string): { url?: string; error?: string };
  /** Imports and publishes the bench agent as `agent` into organization `org`; throws with the CLI's error. */
  importAgent(agent: string, org: string): void;
  deliveries: number;
  runs: number;
  concurrency: number;
}

/** Longest one chat turn is waited for (ms): a chat queued behind the whole burst is reported as at least this. */
const chatTimeoutMs = 120_000;

/** One AG-UI run to its RUN_FINISHED (ms), or throws saying why it did not finish (a TimeoutError past the bound). */
async function chatTurn(url: string, runId: string): Promise<number> {
  const body = { threadId: '', runId, tools: [], context: [], messages: [{ id: 'm1', role: 'user', content: 'hi' }] };
  const t0 = performance.now();
  const response = await fetch(url, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body), signal: AbortSignal.timeout(chatTimeoutMs),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the AG-UI run answered ${response.status}: ${text.slice(0, 160)}`);
  if (!text.includes('"RUN_FINISHED"')) throw new Error(`the AG-UI run ended without RUN_FINISHED: ${text.slice(-200)}`);
  return performance.now() - t0;
}

/** Posts `count` distinct deliveries to `url`, `concurrency` at a time; returns the number answered 202. */
async function burst(url: string, count: number, concurrency: number): Promise<number> {
  let next = 0;
  let accepted = 0;
  const body = JSON.stringify({ action: 'opened', number: 7 });
  const sender = async () => {
    for (let n = next++; n < count; n = next++) {
      const headers = { 'content-type': 'application/json', 'x-delivery-id': `burst-${n}` };
      const answer = await fetch(url, { method: 'POST', headers, body }).catch(() => undefined);
      await answer?.arrayBuffer();
      if (answer?.status === 202) accepted += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
  return accepted;
}

/** Organization A's `burst` sessions ended so far (through the product's store). */
const endedOfA = async (product: RunningProduct) => (await countSessions(product.dataDir, 'burst', true)) ?? 0;

/**
 * Runs part 4 and prints it through `print`. @returns the figures, or undefined when the setup failed (said in a
 * printed line)
 */
export async function benchFairness(
  setup: FairnessSetup, print: (line: string) => void,
): Promise<FairnessFigures | undefined> {
  const { runs } = setup;
  print(`\n4. one tenant's burst against another's chat: organization B's chat turn over AG-UI (to RUN_FINISHED, `
    + `${runs} sequential runs, one scripted model call each) alone, then right after organization A's burst of `
    + `${setup.deliveries} webhook deliveries (${setup.concurrency} in flight)`);
  const urls = await connectTenants(setup, print);
  if (!urls) return undefined;
  const measured = await measureFairness(setup, urls);
  printFairness(setup, measured, print);
  return measured.figures;
}

/** What part 4 measured: the figures, each run's times (ms) and the burst's counts and times. */
interface FairnessRun {
  figures: FairnessFigures;
  alone: number[];
  during: number[];
  /** Whether a chat during the burst waited past {@link chatTimeoutMs} (counted as the bound; no more tried). */
  atLeast: boolean;
  accepted: number;
  /** A's sessions ended before the burst and when its posting stopped. */
  before: number;
  duringStart: number;
  /** Seconds the burst's posting took. */
  postSeconds: number;
}

/**
 * Creates organization B with the bench agent and a public AG-UI connection on its chat, and A's burst connection.
 * @returns their URLs, or undefined when one could not be made (said in a printed line)
 */
async function connectTenants(
  setup: FairnessSetup, print: (line: string) => void,
): Promise<{ chat: string; hook: string } | undefined> {
  const made = await fetch(`${setup.product.url}/api/orgs`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Bench B' }),
  });
  if (made.status !== 201) {
    print(`not measured: organization B could not be created (${made.status} ${(await made.text()).slice(0, 160)})`);
    return undefined;
  }
  const orgB = ((await made.json()) as { id?: string; organization?: { id: string } });
  const orgBId = orgB.organization?.id ?? orgB.id ?? '';
  setup.importAgent('bench-b', orgBId);
  const chat = setup.connection('bench-b', 'chat', 'agui');
  const hook = setup.connection('bench-endpoints', 'hook-burst', 'webhook');
  if (!chat.url || !hook.url) {
    print(`not measured: a connection could not be created (${chat.error ?? hook.error})`);
    return undefined;
  }
  return { chat: chat.url, hook: hook.url };
}

/** B's chat turns alone, A's burst, B's chat turns right after it, and A's pace during and after them. */
async function measureFairness(setup: FairnessSetup, urls: { chat: string; hook: string }): Promise<FairnessRun> {
  const { product, runs } = setup;
  for (let i = 0; i < 2; i += 1) await chatTurn(urls.chat, `warm-${i}`);
  const alone: number[] = [];
  for (let i = 0; i < runs; i += 1) alone.push(await chatTurn(urls.chat, `alone-${i}`));
  const before = await endedOfA(product);
  const t0 = performance.now();
  const accepted = await burst(urls.hook, setup.deliveries, setup.concurrency);
  const posted = performance.now();
  const duringStart = await endedOfA(product);
  const during: number[] = [];
  let atLeast = false;
  for (let i = 0; i < runs && !atLeast; i += 1) {
    // A chat still waiting at the bound (the burst ahead of it) counts as the bound, and no more are tried.
    const took = await chatTurn(urls.chat, `burst-${i}`).catch((error: Error) => {
      if (error.name !== 'TimeoutError') throw error;
      atLeast = true;
      return chatTimeoutMs;
    });
    during.push(took);
  }
  const chatsEnd = performance.now();
  const duringEnd = await endedOfA(product);
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const after = await endedOfA(product);
  const figures: FairnessFigures = {
    aloneP50: quantile(alone, 0.5), burstP50: quantile(during, 0.5),
    paceDuring: (duringEnd - duringStart) / ((chatsEnd - posted) / 1000),
    paceAfter: (after - duringEnd) / ((performance.now() - chatsEnd) / 1000),
  };
  return { figures, alone, during, atLeast, accepted, before, duringStart, postSeconds: (posted - t0) / 1000 };
}

/** Prints part 4's table, the burst, A's pace and the headline ratio. */
function printFairness(setup: FairnessSetup, run: FairnessRun, print: (line: string) => void): void {
  const { figures, alone, during, atLeast } = run;
  const ms = (values: number[], q: number) => quantile(values, q).toFixed(0).padStart(8);
  const row = (label: string, values: number[]) => `${label.padEnd(44)} ${ms(values, 0.5)} ${ms(values, 0.9)}`;
  print(`${'run'.padEnd(44)} ${'p50 ms'.padStart(8)} ${'p90 ms'.padStart(8)}`);
  print(row("B's chat turn alone", alone));
  print(row(`B's chat turn right after A's burst${atLeast ? ' (at least: one waited past the bound)' : ''}`, during));
  print(`A's burst: ${run.accepted} of ${setup.deliveries} acknowledged in ${run.postSeconds.toFixed(1)} s; `
    + `${run.duringStart - run.before} of its sessions had ended when the posting stopped`);
  print(`A's sessions ended per second: ${figures.paceDuring.toFixed(1)} while B's chats ran, `
    + `${figures.paceAfter.toFixed(1)} in the 5 s after (the dispatcher's full pace)`);
  const bound = atLeast ? 'at least ' : '';
  print(`ratio after burst / alone: ${bound}${(figures.burstP50 / figures.aloneP50).toFixed(2)}× (target ≤ 2×)`);
}
