/**
 * End to end through the front proxy: a runaway query costs only its caller. In a project of two
 * models, one agent's query that computes far past the 30 s limit (its engine call does not honour
 * an interrupt) leaves another agent's small query on the other model answering while it runs; the
 * runaway is answered with the timeout error, and its model answers afterwards. Results are capped
 * at 4 MiB of row data with a note.
 * Source: spec/semantic-query-service.md § Limits; docs/decisions.md D6 § 0 (timeouts, memory, result size).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCairn, startProduct, type RunningProduct } from '../helpers/product.ts';
import {
  fixtureModel, flightsModel, mcpClient, projectDir, queryOutputOf, textOf,
} from '../helpers/semantic-fixtures.ts';

let product: RunningProduct;
let runawayAgent: Client;
let otherAgent: Client;

beforeAll(async () => {
  product = await startProduct();
  const imported = runCairn(product.url, ['semantic', 'import', projectDir([flightsModel, fixtureModel('secret_inventory.yaml')]), '--project', 'isolation', '--publish']);
  expect(imported.status, imported.stderr).toBe(0);
  const created = runCairn(product.url, ['semantic', 'token', 'create', 'isolation', '--models', 'flights,secret_inventory']);
  expect(created.status, created.stderr).toBe(0);
  const endpoint = `${product.url}/mcp/isolation/mcp`;
  runawayAgent = await mcpClient(endpoint, created.stdout.trim());
  otherAgent = await mcpClient(endpoint, created.stdout.trim());
}, 180_000);

afterAll(async () => {
  await runawayAgent?.close();
  await otherAgent?.close();
  await product?.stop();
});

const runaway = "SELECT levenshtein(repeat('a', 250000), repeat('b', 250000)) AS distance";
const execute = (client: Client, modelName: string, sql: string) =>
  client.callTool({ name: 'execute_query', arguments: { modelName, sql, store: false } }, undefined, { timeout: 120_000 });
const rowsOf = (result: object) => queryOutputOf(result).rows;

describe('a runaway query', () => {
  it('leaves the other model answering while it runs, and is answered with the timeout error', async () => {
    const arrived: string[] = [];
    const stuck = execute(runawayAgent, 'secret_inventory', runaway).then((result) => {
      arrived.push('runaway');
      return result;
    });
    // Let the runaway reach its query process first (no threshold is asserted on this pause).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const small = await execute(otherAgent, 'flights', "SELECT count(*) AS n FROM origin_airports WHERE state = 'CA'");
    arrived.push('small');
    expect(small.isError).toBeFalsy();
    expect(rowsOf(small)[0][0]).toEqual(expect.any(Number));
    const timedOut = await stuck;
    expect(arrived).toEqual(['small', 'runaway']);
    expect(timedOut.isError).toBe(true);
    expect(textOf(timedOut)).toMatch(/Query timed out after 30 s and was stopped; narrow the query/);
    const after = await execute(runawayAgent, 'secret_inventory', 'SELECT count(*) AS n FROM hangars');
    expect(after.isError).toBeFalsy();
    expect(rowsOf(after)[0][0]).toBeGreaterThan(0);
  }, 120_000);
});

describe('result size', () => {
  it('caps a result at 4 MiB of row data, truncated with a note saying how to narrow the query', async () => {
    const result = await execute(otherAgent, 'flights', "SELECT repeat('x', 100000) AS big FROM range(1000)");
    expect(result.isError).toBeFalsy();
    const output = queryOutputOf(result);
    expect(output).toMatchObject({ rowCount: 41, truncated: true });
    expect(output.note).toMatch(/^Result truncated: the rows passed the 4 MiB \(4,194,304 bytes\) cap on row data, /);
    expect(output.note).toMatch(/so only the first 41 row\(s\) are shown\. Narrow the query: select fewer or shorter /);
    expect(textOf(result).length).toBeLessThan(4.5 * 1024 * 1024);
  });

  it('stops a query whose values outgrow the memory ceiling, and the model keeps answering', async () => {
    const result = await execute(otherAgent, 'flights', 'SELECT len(list_sort(range(100000000))) AS n');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/Query stopped: it needed more memory than the 512 MiB a query may use/);
    expect(rowsOf(await execute(otherAgent, 'flights', 'SELECT 1 AS one'))).toEqual([[1]]);
  });
});
