/**
 * End to end through the front proxy (docs/decisions.md D18 § 2): one caller cannot starve the others. Project A sends
 * 12 runaway queries with one token (a cross join that would run to the 30 s timeout) and its client goes
 * away after a moment, as single requests and as JSON-RPC batches of three; project B's `SELECT 1`, sent as
 * A's client goes away, answers. A's queries were stopped, not left to their timeouts: the server log says
 * cancelled (running queries interrupted, waiting ones dropped, a batch's remaining calls not run), and A's
 * own next query finds its share free at once (a share still held by runaways would make it wait past the
 * pool's longest wait and be refused). No timing threshold: the outcome and order are asserted.
 * Source: spec/semantic-query-service.md § Limits; docs/decisions.md D18 § 2.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  executeOnce, importStarvationProject, runStarvationScenario, type StarvationCaller,
} from '../../scripts/lib/bench-starvation.ts';
import { startProduct, type RunningProduct } from '../helpers/product.ts';

let product: RunningProduct;
let busy: StarvationCaller;
let quiet: StarvationCaller;

beforeAll(async () => {
  product = await startProduct();
  busy = importStarvationProject(product.url, 'fair-busy');
  quiet = importStarvationProject(product.url, 'fair-quiet');
  // Both projects' data are built and a process has run for each before the scenario.
  for (const caller of [busy, quiet]) expect((await executeOnce(caller, 'SELECT 1 AS one')).rows).toEqual([[1]]);
}, 240_000);

afterAll(async () => {
  await product?.stop();
});

/** semantic-mcp's log lines so far whose message is `message`. */
const logged = (message: string) => product.output
  .filter((line) => line.startsWith('[semantic-mcp] ') && line.includes(`"msg":"${message}"`));
const stopped = 'call cancelled: its client went away; its query was stopped';
const dropped = 'call dropped: its client went away before it ran';
const cancelledCalls = () => logged(stopped).length + logged(dropped).length;
const timedOut = () => product.output
  .filter((line) => /query process killed/.test(line) && /"reason":"timeout"/.test(line));
const waitUntil = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 50));
};

describe('one project abandoning 12 runaway queries', () => {
  it.each([
    ['single requests', 1, 'query cancelled while running: its caller went away; interrupted'],
    ['batches of three', 3, dropped],
  ])('as %s leaves another project answering, and its queries are stopped', async (_label, perRequest, expected) => {
    const before = { calls: cancelledCalls(), expected: logged(expected).length };
    const outcome = await runStarvationScenario(busy, quiet, { perRequest });
    expect(outcome.quiet).toMatchObject({ isError: false, rows: [[1]] });
    // Every call of A's abandoned requests is logged as cancelled (interrupted or taken out of the queue) or as
    // dropped (a batch's call not yet run); none ran on to its timeout.
    expect(outcome.abandonedCalls).toBeGreaterThan(0);
    await waitUntil(() => cancelledCalls() - before.calls >= outcome.abandonedCalls);
    expect(logged(expected).length).toBeGreaterThan(before.expected);
    expect(timedOut()).toEqual([]);
    // A's own next query answers: its share is free (runaways still holding it would make this query wait past
    // the pool's longest wait, 15 s, and be refused with query_busy).
    const next = await executeOnce(busy, 'SELECT 1 AS one');
    expect(next).toMatchObject({ isError: false, rows: [[1]] });
  }, 120_000);
});
