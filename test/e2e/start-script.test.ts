/**
 * `scripts/start` on this machine as a newcomer would run it (docs/decisions.md D6 § 1), with 3001, 3002 and 6379
 * already taken (a system redis, another dev server): it picks free loopback ports and says so, binds
 * the front proxy to loopback only, survives a kill -9 of the API while `cairn semantic import`
 * uploads the demo (the seeding is retried, the demo token is not duplicated), prints a token that
 * answers an MCP call, and the front proxy logs no error while the backends boot. A port the user set
 * that is taken stops the start with a line naming the variable.
 * With CAIRN_MODEL_BASE_URL, CAIRN_MODEL and CAIRN_MODEL_API_KEY naming a scripted model server, the
 * banner names the model, the platform's config offers it with the key only as a placeholder, and the
 * key is printed and written nowhere; the demo agent is seeded and published; the first start comes up
 * once, naming the demo token it minted before the platform started (no restart, no [config] line leaving
 * out the semantic service), and a second start passes the saved token (the agent left as it is).
 * Source: README.md § Two commands; spec/platform-service.md § Processes of the all-in-one container;
 * docs/decisions.md D7 § Models (scripts/start paragraph), § Done when.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.ts';
import { mcpClient, queryOutputOf } from '../helpers/semantic-fixtures.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../helpers/scripted-model-server.ts';
import { holdPorts, listeningAddresses, pidOf, runStartScript, type StartedScript } from '../helpers/start-script.ts';

let release: () => Promise<void>;
let start: StartedScript;
let dataDir: string;
let publicPort: number;
let killIndex = -1;
let model: ScriptedModelServer;
/** A key that must appear in no output line and no file: only its placeholder is handed on. */
const KEY = 'sk-scripted-never-printed-4f1c9a';
const modelEnv = () => ({ CAIRN_MODEL_BASE_URL: model.baseUrl, CAIRN_MODEL: 'scripted-analyst', CAIRN_MODEL_API_KEY: KEY, CAIRN_MODEL_PROVIDER: '', CAIRN_MODEL_PRICES: '' });
const noUserConfig = { PLATFORM_CONFIG: '', PLATFORM_CONFIG_FILE: '' };

beforeAll(async () => {
  release = await holdPorts([3001, 3002, 6379]);
  model = await startScriptedModelServer([]);
  dataDir = mkdtempSync(join(tmpdir(), 'cairn-start-'));
  publicPort = await freePort();
  start = runStartScript({ PORT: String(publicPort), CAIRN_DATA_DIR: dataDir, HOST: '', CAIRN_PROXY_BIND: '', ...noUserConfig, ...modelEnv() });
  // Kill the API while the flights data file is being uploaded by `cairn semantic import`.
  await start.waitForLine(/^\[start\] uploading data\/flights\.parquet: /, 240_000);
  killIndex = start.lines.length;
  process.kill(pidOf(start.lines, 'api'), 'SIGKILL');
  await start.waitForLine(/^Try it: +cairn session start /, 300_000);
}, 600_000);

afterAll(async () => {
  await start?.stop();
  await release?.();
  await model?.close();
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
      expect(queryOutputOf(answer).rows).toEqual([[3_000_000]]);
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

/** Every regular file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The environment of process `pid`, from /proc. */
function environOf(pid: number): Record<string, string> {
  return Object.fromEntries(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));
}

const leftOutSemantic = (l: string) => l.startsWith('[config] left out service "semantic"');
const restartLine = (l: string) => l.startsWith('[start] restarting cairn once so that it offers the demo semantic service');

async function demoAgent(): Promise<{ id: string; buildId: string }> {
  const api = (path: string) => fetch(`http://127.0.0.1:${publicPort}${path}`).then(async (r) => { expect(r.status, path).toBe(200); return r.json(); });
  const { organizations } = await api('/api/orgs') as { organizations: { id: string; kind: string }[] };
  const org = organizations.find((o) => o.kind === 'default')!;
  const { agents } = await api(`/api/orgs/${org.id}/agents`) as { agents: { id: string; slug: string }[] };
  const agent = agents.find((a) => a.slug === 'flights-analyst');
  expect(agent, 'agent flights-analyst').toBeDefined();
  const env = await api(`/api/agents/${agent!.id}/environments/main`) as { published: { buildId: string; counts: { workflows: number } } | null };
  expect(env.published?.counts.workflows).toBe(2);
  return { id: agent!.id, buildId: env.published!.buildId };
}

describe('scripts/start with CAIRN_MODEL_* and the demo agent', () => {
  it('names the model in the banner, hands the platform only the key\'s placeholder, and prints or writes the key nowhere', () => {
    expect(start.lines).toContain(`Model:                        scripted-analyst (openai-compatible at ${model.baseUrl}, key from CAIRN_MODEL_API_KEY)`);
    const config = JSON.parse(environOf(pidOf(start.lines, 'api')).PLATFORM_CONFIG) as { models: { providers: { apiKey: string }[]; offered: { id: string; prices: object }[] } };
    expect(config.models.providers[0].apiKey).toBe('${{CAIRN_MODEL_API_KEY}}');
    expect(config.models.offered).toEqual([{ id: 'scripted-analyst', provider: 'openai-compatible', prices: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }]);
    expect(start.lines.filter((l) => l.startsWith('[config] left out model'))).toEqual([]);
    expect(start.lines.filter((l) => l.includes(KEY))).toEqual([]);
    expect(filesUnder(dataDir).filter((f) => readFileSync(f).includes(KEY))).toEqual([]);
  });

  it('seeds and publishes the demo agent in the default organization, and prints how to start a session', async () => {
    const agent = await demoAgent();
    expect(start.lines).toContain('Try it:                       cairn session start flights-analyst flights-analyst --env main --message "Which state has the most delayed departures?"');
    expect(start.lines.find((l) => l.startsWith('Demo agent:'))).toContain(`published build ${agent.buildId}), workflow flights-analyst`);
  });

  it('comes up once on the first start, naming from its boot the demo token it minted before the platform started', () => {
    expect(start.lines.filter(restartLine)).toEqual([]);
    expect(start.lines.filter(leftOutSemantic)).toEqual([]);
    expect(start.lines.filter((l) => l === '[entrypoint] SIGTERM: stopping every process')).toEqual([]);
    const saved = JSON.parse(readFileSync(join(dataDir, 'demo-tokens.json'), 'utf8')) as { flights: string };
    expect(environOf(pidOf(start.lines, 'api')).CAIRN_DEMO_SEMANTIC_TOKEN).toBe(saved.flights);
    expect(start.lines.filter((l) => /interrupted by a platform restart|seeding flights-analyst failed/.test(l))).toEqual([]);
  });

  it('a second start passes the saved token from the beginning: no restart, no [config] line for the semantic service, the agent left as it is', async () => {
    const before = await demoAgent();
    await start.stop();
    start = runStartScript({ PORT: String(publicPort), CAIRN_DATA_DIR: dataDir, HOST: '', CAIRN_PROXY_BIND: '', ...noUserConfig, ...modelEnv() });
    await start.waitForLine(/^Try it: +cairn session start /, 300_000);
    expect(start.lines.filter(restartLine)).toEqual([]);
    expect(start.lines.filter(leftOutSemantic)).toEqual([]);
    expect(start.lines.filter((l) => l.startsWith('[start] seeding demo'))).toEqual([]);
    expect(await demoAgent()).toEqual(before);
    expect(environOf(pidOf(start.lines, 'api')).CAIRN_DEMO_SEMANTIC_TOKEN).toMatch(/^cairn_mcp_/);
  }, 400_000);
});

describe('scripts/start with a port the user set that is taken', () => {
  it('stops with one line naming the variable', async () => {
    const refused = runStartScript({ PORT: String(await freePort()), API_PORT: '3001', CAIRN_DATA_DIR: join(dataDir, 'unused') });
    expect(await refused.exited).toBe(2);
    expect(refused.lines).toContain('[start] cannot start: API_PORT=3001 is taken on 127.0.0.1 (another process listens there), so the API cannot use it: stop that process or set API_PORT to a free port (or unset API_PORT to let scripts/start pick one).');
  }, 120_000);
});
