/**
 * Runs the all-in-one entrypoint, waits until it answers, seeds the demo projects on first start,
 * and prints the MCP endpoint, a demo token and a ready-to-paste MCP client configuration.
 *
 * The front proxy binds HOST (default 127.0.0.1); taken default internal ports are replaced by free
 * ones (scripts/start-ports.ts). The wait asks the API and semantic-mcp on their own ports first and
 * the front proxy only once both answer, so the proxy logs no 502 while they boot. Seeding survives
 * API restarts (scripts/seed-demo.ts); if it finally fails, cairn keeps serving and says so.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { seedDemo, type DemoTokens } from './seed-demo.ts';
import { chooseStartPorts, type StartPorts } from './start-ports.ts';

const root = resolve(import.meta.dirname, '..');
const dataDir = resolve(process.env.CAIRN_DATA_DIR ?? 'data');
const say = (line: string) => process.stdout.write(`[start] ${line}\n`);
/** How long the product may take to answer, first start included (ms). */
const upWithinMs = 120_000;

let ports: StartPorts;
try {
  ports = await chooseStartPorts(process.env, say);
} catch (error) {
  say(`cannot start: ${(error as Error).message}`);
  process.exit(2);
}
const localHost = ports.host === '0.0.0.0' || ports.host === '::' ? '127.0.0.1' : ports.host.includes(':') ? `[${ports.host}]` : ports.host;
const url = `http://${localHost}:${ports.publicPort}`;
const child = spawn(process.execPath, [resolve(root, 'bins/entrypoint/main.ts')], { stdio: 'inherit', env: { ...process.env, ...ports.env, CAIRN_DATA_DIR: dataDir } });
child.on('exit', (code) => process.exit(code ?? 0));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));

async function answers(target: string): Promise<boolean> {
  try {
    return (await fetch(target, { signal: AbortSignal.timeout(5_000) })).ok;
  } catch {
    return false;
  }
}

/** Resolves once the API, semantic-mcp and then the front proxy answer. @throws Error after {@link upWithinMs} */
async function waitUntilUp(): Promise<void> {
  const stages = [`http://127.0.0.1:${ports.apiPort}/api/health`, `http://127.0.0.1:${ports.semanticMcpPort}/mcp/_health`, `${url}/api/health`, `${url}/mcp/_health`];
  const deadline = Date.now() + upWithinMs;
  for (const stage of stages) {
    while (!(await answers(stage))) {
      if (Date.now() > deadline) throw new Error(`cairn did not answer on ${stage} within ${upWithinMs / 1000} s; see the lines above.`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

function printReady(tokens: DemoTokens | undefined): void {
  const endpoint = `${url}/mcp/flights/mcp`;
  const lines = ['', `cairn is running on ${url}  (Ctrl-C stops it; data in ${dataDir})`, ''];
  if (tokens) {
    const config = { mcpServers: { 'cairn-flights': { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${tokens.flights}` } } } };
    lines.push(
      `MCP endpoint (published):     ${endpoint}`,
      `MCP endpoint (latest saved):  ${url}/mcp/flights/test/mcp`,
      `Demo token (flights):         ${tokens.flights}`,
      `Also seeded: ${url}/mcp/tpcds/mcp  token ${tokens.tpcds}`,
      '',
      'MCP client configuration (paste into your client\'s MCP settings):',
      JSON.stringify(config, null, 2),
      '',
    );
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

try {
  await waitUntilUp();
} catch (error) {
  say(`start failed: ${(error as Error).message}`);
  child.kill('SIGTERM');
  await new Promise(() => undefined); // exits with the entrypoint
}
let tokens: DemoTokens | undefined;
try {
  tokens = await seedDemo({ url, dataDir, root, log: say, waitUntilUp });
} catch (error) {
  say(`seeding the demo projects failed, cairn keeps serving without them (run scripts/start again to retry): ${(error as Error).message}`);
}
printReady(tokens);
