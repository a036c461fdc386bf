/**
 * `scripts/start` on this machine as a newcomer would run it (issue 6 § 1), with 3001, 3002 and 6379
 * already taken (a system redis, another dev server): it picks free loopback ports and says so, binds
 * the front proxy to loopback only, survives a kill -9 of the API while `cairn semantic import`
 * uploads the demo (the seeding is retried, the demo token is not duplicated), prints a token that
 * answers an MCP call, and the front proxy logs no error while the backends boot. A port the user set
 * that is taken stops the start with a line naming the variable.
 * Source: README.md § Two commands; ../shared/spec/platform-service.md § Processes of the all-in-one container.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { mcpClient } from '../helpers/semantic-fixtures.ts';
import { holdPorts, listeningAddresses, pidOf, runStartScript, type StartedScript } from '../helpers/start-script.ts';

let release: () => Promise<void>;
let start: StartedScript;
let dataDir: string;
let publicPort: number;
let killIndex = -1;

beforeAll(async () => {
  release = await holdPorts([3001, 3002, 6379]);
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-start-'));
  publicPort = await freePort();
  start = runStartScript({ PORT: String(publicPort), CAIRN_DATA_DIR: dataDir, HOST: '', CAIRN_PROXY_BIND: '' });
  // Kill the API while the flights data file is being uploaded by `cairn semantic import`.
  await start.waitForLine(/^\[start\] uploading data\/flights\.parquet: /, 240_000);
  killIndex = start.lines.length;
  process.kill(pidOf(start.lines, 'api'), 'SIGKILL');
  await start.waitForLine(/^Demo token \(flights\): +cairn_mcp_/, 300_000);
}, 600_000);

afterAll(async () => {
  await start?.stop();
  await release?.();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('scripts/start with 3001, 3002 and 6379 taken', () => {
  it('picks free loopback ports for the API, semantic-mcp and the embedded store, and says which', () => {
    for (const [port, name] of [[3001, 'API_PORT'], [3002, 'SEMANTIC_MCP_PORT'], [6379, 'CAIRN_EMBEDDED_QUEUE_PORT']] as const) {
      expect(start.lines.some((l) => new RegExp(`^\\[start\\] port ${port} is taken on 127\\.0\\.0\\.1, so .+ uses 127\\.0\\.0\\.1:\\d+ \\(set ${name} to choose\\)$`).test(l)), name).toBe(true);
    }
  });

  it('binds the front proxy to 127.0.0.1 only, and prints no exposure warning', () => {
    expect(listeningAddresses(publicPort)).toEqual(['127.0.0.1']);
    expect(start.lines.some((l) => l.includes('warning: the front proxy listens'))).toBe(false);
  });

  it('survives the kill -9 of the API during seeding: retries, and neither stops nor reports start failed', () => {
    expect(start.lines.some((l) => l.startsWith('[entrypoint] api exited (SIGKILL); starting it again in 2 s'))).toBe(true);
    expect(start.lines.some((l) => /^\[start\] seeding flights failed \(.+\); trying again once the API answers \(attempt 2 of 5\)$/.test(l))).toBe(true);
    expect(start.lines.filter((l) => /start failed|seeding the demo projects failed/.test(l))).toEqual([]);
    expect(start.child.exitCode).toBeNull();
  });

  it('prints a token that answers an MCP call through the front proxy, and created exactly one active demo token per project', async () => {
    const token = /cairn_mcp_\S+/.exec(start.lines.find((l) => l.startsWith('Demo token (flights):'))!)![0];
    const client = await mcpClient(`http://127.0.0.1:${publicPort}/mcp/flights/mcp`, token);
    try {
      const answer = await client.callTool({ name: 'execute_query', arguments: { modelName: 'flights', sql: 'SELECT count(*) AS n FROM flights' } });
      expect(answer.isError).toBeFalsy();
      expect((answer.structuredContent as { rows: number[][] }).rows).toEqual([[3_000_000]]);
    } finally {
      await client.close();
    }
    for (const project of ['flights', 'tpcds']) {
      const { tokens } = await (await fetch(`http://127.0.0.1:${publicPort}/api/semantic/projects/${project}/tokens`)).json() as { tokens: { name: string; state: string }[] };
      expect(tokens.filter((t) => t.name === 'demo' && t.state === 'active'), project).toHaveLength(1);
    }
  });

  it('logs no front-proxy error while waiting for the backends to boot', () => {
    const beforeKill = start.lines.slice(0, killIndex);
    expect(beforeKill.some((l) => l.startsWith('[api] ') && l.includes('api listening on'))).toBe(true);
    expect(beforeKill.filter((l) => l.startsWith('[proxy] ') && /"level":"error"/.test(l))).toEqual([]);
  });
});

describe('scripts/start with a port the user set that is taken', () => {
  it('stops with one line naming the variable', async () => {
    const refused = runStartScript({ PORT: String(await freePort()), API_PORT: '3001', CAIRN_DATA_DIR: join(dataDir, 'unused') });
    expect(await refused.exited).toBe(2);
    expect(refused.lines).toContain('[start] cannot start: API_PORT=3001 is taken on 127.0.0.1 (another process listens there), so the API cannot use it: stop that process or set API_PORT to a free port (or unset API_PORT to let scripts/start pick one).');
  }, 120_000);
});
