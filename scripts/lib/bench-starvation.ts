/**
 * The starvation figure of the semantic benchmark (docs/decisions.md D18 § 2): one project sends 12 runaway queries
 * (a cross join of 10^12 rows that would run to the 30 s timeout) and abandons them (its client goes away
 * after a moment), as single requests or as JSON-RPC batches; another project's `SELECT 1` is sent as
 * they are abandoned. The figure is the milliseconds that `SELECT 1` took, through the front proxy.
 * Used by scripts/bench-semantic.ts and test/e2e/semantic-fair-share.test.ts.
 */
import { runCairn } from '../../test/helpers/product.ts';
import { flightsModel, projectDir } from '../../test/helpers/semantic-fixtures.ts';

/** A project endpoint, a token for it and a model the token may query. */
export interface StarvationCaller {
  endpoint: string;
  token: string;
  modelName: string;
}

/** Options of {@link runStarvationScenario}. */
export interface StarvationOptions {
  /** Runaway queries the busy project sends (default 12). */
  queries?: number;
  /** Calls per request: 1 sends single requests, 3 sends batches of three (default 1). */
  perRequest?: number;
  /** Milliseconds the busy client waits before it goes away (default 1,000). */
  abandonAfterMs?: number;
}

/** What {@link runStarvationScenario} saw. */
export interface StarvationOutcome {
  /** Milliseconds from sending the quiet project's `SELECT 1` to its answer. */
  quietMs: number;
  /** The quiet project's answer: its rows, or the tool error text. */
  quiet: { isError: boolean; rows?: unknown[][]; text: string };
  /** Requests of the busy project answered before their client went away (e.g. refused by a share bound). */
  answeredBeforeAbandon: number;
  /** Calls in the busy project's requests that were not answered before their client went away. */
  abandonedCalls: number;
}

/** A query that runs far past the 30 s timeout and honours an interrupt (no data needed). */
export const runawaySql = 'SELECT count(*) AS n FROM range(1000000) a, range(1000000) b '
  + 'WHERE hash(a.range + b.range) = 42';

const headers = (token: string) => ({
  'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`,
});

/** The body of `count` execute_query calls of `sql` (one call, or a batch when count > 1). */
function callBody(modelName: string, sql: string, count: number, firstId: number): string {
  const calls = Array.from({ length: count }, (_, i) => ({
    jsonrpc: '2.0', id: firstId + i, method: 'tools/call',
    params: { name: 'execute_query', arguments: { modelName, sql, store: false } },
  }));
  return JSON.stringify(count === 1 ? calls[0] : calls);
}

/** One execute_query of `sql` as `caller`: its rows, or its tool error text. */
export async function executeOnce(caller: StarvationCaller, sql: string): Promise<StarvationOutcome['quiet']> {
  const body = callBody(caller.modelName, sql, 1, 1);
  const response = await fetch(caller.endpoint, { method: 'POST', headers: headers(caller.token), body });
  const answer = await response.json() as {
    result?: { isError?: boolean; content: { text: string }[]; structuredContent?: { rows: unknown[][] } };
  };
  const result = answer.result;
  if (!result) return { isError: true, text: JSON.stringify(answer).slice(0, 500) };
  const text = result.content.map((c) => c.text).join('\n');
  const rows = result.isError ? undefined : rowsOf(result.structuredContent, text);
  return { isError: Boolean(result.isError), rows, text };
}

/** The rows of a result: its structured content's, else those of its JSON text (the result carried once). */
function rowsOf(structured: { rows: unknown[][] } | undefined, text: string): unknown[][] | undefined {
  if (structured) return structured.rows;
  try {
    return (JSON.parse(text) as { rows?: unknown[][] }).rows;
  } catch {
    return undefined;
  }
}

/**
 * Runs the scenario: `busy` sends its runaway queries, `quiet`'s `SELECT 1` is sent as `busy`'s client
 * goes away; resolves once the quiet answer has arrived.
 */
export async function runStarvationScenario(
  busy: StarvationCaller, quiet: StarvationCaller, options: StarvationOptions = {},
): Promise<StarvationOutcome> {
  const queries = options.queries ?? 12;
  const perRequest = options.perRequest ?? 1;
  const client = new AbortController();
  let answeredBeforeAbandon = 0;
  let abandonedCalls = 0;
  const sent: Promise<void>[] = [];
  for (let id = 1; id <= queries; id += perRequest) {
    const count = Math.min(perRequest, queries - id + 1);
    const body = callBody(busy.modelName, runawaySql, count, id);
    sent.push(fetch(busy.endpoint, { method: 'POST', headers: headers(busy.token), body, signal: client.signal })
      .then(async (response) => {
        await response.text();
        answeredBeforeAbandon += 1;
      }, () => {
        abandonedCalls += count;
      }));
  }
  await new Promise((resolve) => setTimeout(resolve, options.abandonAfterMs ?? 1000));
  client.abort();
  const started = performance.now();
  const answer = await executeOnce(quiet, 'SELECT 1 AS one');
  const quietMs = performance.now() - started;
  await Promise.all(sent);
  return { quietMs, quiet: answer, answeredBeforeAbandon, abandonedCalls };
}

/** Imports the flights model as project `slug` (published) and returns a caller with a new token for it. */
export function importStarvationProject(url: string, slug: string): StarvationCaller {
  const imported = runCairn(url, ['semantic', 'import', projectDir([flightsModel]), '--project', slug, '--publish']);
  if (imported.status !== 0) throw new Error(`cairn semantic import ${slug} failed: ${imported.stderr}`);
  const created = runCairn(url, ['semantic', 'token', 'create', slug, '--models', 'flights']);
  if (created.status !== 0) throw new Error(`cairn semantic token create ${slug} failed: ${created.stderr}`);
  return { endpoint: `${url}/mcp/${slug}/mcp`, token: created.stdout.trim(), modelName: 'flights' };
}

/**
 * The starvation figure on a started product (`url` of its front proxy): imports two projects
 * (`starve-busy`, `starve-quiet`), runs {@link runStarvationScenario} with 12 abandoned single requests,
 * and returns the milliseconds the quiet project's `SELECT 1` took (the target is within 5,000).
 * @throws Error when the quiet query did not answer with its row
 */
export async function measureStarvation(product: { url: string }): Promise<number> {
  const busy = importStarvationProject(product.url, 'starve-busy');
  const quiet = importStarvationProject(product.url, 'starve-quiet');
  const warm = await executeOnce(quiet, 'SELECT 1 AS one');
  if (warm.isError) throw new Error(`the quiet project's SELECT 1 failed: ${warm.text}`);
  const outcome = await runStarvationScenario(busy, quiet);
  if (outcome.quiet.isError) throw new Error(`the quiet project's SELECT 1 failed: ${outcome.quiet.text}`);
  return outcome.quietMs;
}
