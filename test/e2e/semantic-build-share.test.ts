/**
 * End to end through the front proxy (docs/decisions.md D18 § 7): scope builds are shared per
 * project. A publish builds the new models in semantic-mcp before any question, so a newcomer's first query finds its
 * data built. Another project's six slow view_queries, published and read with get_semantic_model six times, do not
 * delay a quiet project's first query after its publish: it answers while those builds are still in flight.
 * No timing threshold: outcomes and order are asserted (the quiet query's milliseconds are printed).
 * Source: spec/semantic-query-service.md § What the service does (3); docs/decisions.md D18 § 7.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executeOnce, importStarvationProject } from '../../scripts/lib/bench-starvation.ts';
import { runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import { projectDir } from '../helpers/semantic-fixtures.ts';

let product: RunningProduct;

beforeAll(async () => {
  product = await startProduct();
}, 240_000);

afterAll(async () => {
  await product?.stop();
});

/** semantic-mcp's log lines so far whose message is `message` (and that hold `part`, when given). */
const logged = (message: string, part = '') => product.output
  .filter((line) => line.startsWith('[semantic-mcp] ') && line.includes(`"msg":"${message}"`) && line.includes(part));
const waitUntil = async (condition: () => boolean): Promise<void> => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 100));
};

/** A view_query that runs far past any test (10^12 rows) before it returns the airports. */
const slowView = 'SELECT a.* FROM data.airports a WHERE (SELECT count(*) FROM range(1000000) x, range(1000000) y ' +
  'WHERE hash(x.range + y.range) = 42) >= 0';
const slowModel = (name: string) => `version: "0.1.1"
semantic_model:
  - name: ${name}
    description: Slow ${name}.
    datasets:
      - name: airports
        source: data.airports
        custom_extensions:
          - vendor_name: COMMON
            data: '${JSON.stringify({ view_query: slowView })}'
`;
const slowNames = ['slow1', 'slow2', 'slow3', 'slow4', 'slow5', 'slow6'];
/** The quiet project's model: its own build is a few milliseconds of work (the airports). */
const quietModel = `version: "0.1.1"
semantic_model:
  - name: quiet
    description: Airports.
    datasets:
      - name: airports
        source: data.airports
        custom_extensions:
          - vendor_name: COMMON
            data: '${JSON.stringify({ view_query: 'SELECT * FROM data.airports' })}'
`;

/** Imports a project of {@link quietModel} as `slug` (published) and returns a caller with a token for it. */
function importQuietProject(slug: string): { endpoint: string; token: string; modelName: string } {
  const imported = runCairn(product.url, ['semantic', 'import', projectDir([{ name: 'quiet.yaml', text: quietModel }]),
    '--project', slug, '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['semantic', 'token', 'create', slug, '--models', 'quiet']);
  expect(created.status, created.stderr).toBe(0);
  return { endpoint: `${product.url}/mcp/${slug}/mcp`, token: created.stdout.trim(), modelName: 'quiet' };
}

/** get_semantic_model of `modelName` at `endpoint` with `token` (starts the model's build ahead). */
async function readModel(endpoint: string, token: string, modelName: string): Promise<void> {
  const body = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_semantic_model', arguments: { modelName } } };
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  const answer = await response.json() as { result?: { isError?: boolean } };
  expect(answer.result?.isError).toBeFalsy();
}

describe('scope builds', () => {
  it('start at publish: the first query of a newly published project finds its model built', async () => {
    const newcomer = importStarvationProject(product.url, 'build-newcomer');
    await waitUntil(() => logged('publish seen: building its models', '"project":"build-newcomer"').length > 0);
    await waitUntil(() => logged('scope file built').length > 0);
    const built = logged('scope file built').length;
    expect(await executeOnce(newcomer, 'SELECT count(*) AS n FROM origin_airports')).toMatchObject({ isError: false });
    // The query found the scope file the publish built: it built nothing itself.
    expect(logged('scope file built')).toHaveLength(built);
  }, 180_000);

  it("of another project's six slow view_queries leave a quiet project's first query after its publish answering",
    async () => {
      const dir = projectDir([]);
      for (const name of slowNames) writeFileSync(join(dir, 'models', `${name}.yaml`), slowModel(name));
      const imported = runCairn(product.url, ['semantic', 'import', dir, '--project', 'build-busy', '--publish']);
      expect(imported.status, imported.stderr).toBe(0);
      const created = runCairn(product.url, ['semantic', 'token', 'create', 'build-busy', '--models', slowNames.join(',')]);
      expect(created.status, created.stderr).toBe(0);
      const busyEndpoint = `${product.url}/mcp/build-busy/mcp`;
      for (const name of slowNames) await readModel(busyEndpoint, created.stdout.trim(), name);
      await waitUntil(() => logged('publish seen: building its models', '"project":"build-busy"').length > 0);
      const quiet = importQuietProject('build-quiet');
      const started = performance.now();
      const answer = await executeOnce(quiet, 'SELECT count(*) AS n FROM airports');
      const quietMs = Math.round(performance.now() - started);
      console.log(`[semantic-build-share] the quiet project's first query took ${quietMs} ms`);
      expect(answer).toMatchObject({ isError: false });
      // Not one of the busy project's builds had ended (each runs until the 120 s limit of a view build).
      expect(logged('view_query could not be materialised')).toEqual([]);
    }, 240_000);
});
