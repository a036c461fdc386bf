/**
 * Runs the all-in-one entrypoint, waits until it answers, seeds the demo projects on first start,
 * and prints the MCP endpoint, a demo token and a ready-to-paste MCP client configuration.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { seedDemo } from './seed-demo.ts';

const root = resolve(import.meta.dirname, '..');
const port = process.env.PORT ?? '8080';
const url = `http://127.0.0.1:${port}`;
const dataDir = resolve(process.env.CAIRN_DATA_DIR ?? 'data');
const child = spawn(process.execPath, [resolve(root, 'bins/entrypoint/main.ts')], { stdio: 'inherit', env: { ...process.env, CAIRN_DATA_DIR: dataDir } });
child.on('exit', (code) => process.exit(code ?? 0));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));

const say = (line: string) => process.stdout.write(`[start] ${line}\n`);

async function waitForHealth(): Promise<void> {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    try {
      const response = await fetch(`${url}/api/health`);
      if (response.ok) return;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`cairn did not answer on ${url}/api/health within 60 s; see the lines above.`);
}

try {
  await waitForHealth();
  const tokens = await seedDemo({ url, dataDir, root, log: say });
  const endpoint = `${url}/mcp/flights/mcp`;
  const config = { mcpServers: { 'cairn-flights': { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${tokens.flights}` } } } };
  process.stdout.write([
    '',
    `cairn is running on ${url}  (Ctrl-C stops it; data in ${dataDir})`,
    '',
    `MCP endpoint (published):     ${endpoint}`,
    `MCP endpoint (latest saved):  ${url}/mcp/flights/test/mcp`,
    `Demo token (flights):         ${tokens.flights}`,
    `Also seeded: ${url}/mcp/tpcds/mcp  token ${tokens.tpcds}`,
    '',
    'MCP client configuration (paste into your client\'s MCP settings):',
    JSON.stringify(config, null, 2),
    '',
  ].join('\n') + '\n');
} catch (error) {
  say(`start failed: ${(error as Error).message}`);
  child.kill('SIGTERM');
}
