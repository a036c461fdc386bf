/**
 * Runs the all-in-one entrypoint, waits until it answers, seeds the demo projects and the demo agent on
 * first start, and prints the MCP endpoint, a demo token, a ready-to-paste MCP client configuration, the
 * model configured and the command that starts a session of the demo agent.
 *
 * The front proxy binds HOST (default 127.0.0.1); taken default internal ports are replaced by free
 * ones (scripts/start-ports.ts). The wait asks the API and semantic-mcp on their own ports first and
 * the front proxy only once both answer, so the proxy logs no 502 while they boot. Seeding survives
 * API restarts (scripts/seed-demo.ts); if it finally fails, cairn keeps serving and says so.
 *
 * The config (scripts/start-config.ts: models from CAIRN_MODEL_*, the semantic service entry) is read by
 * the platform at boot only and names the demo token through CAIRN_DEMO_SEMANTIC_TOKEN: a start without a saved
 * token (the first) mints its value before the platform starts and seeding creates the flights token with it, so
 * the platform comes up once (its catalog discovers the service once the token exists); later starts pass the
 * saved token. Only when that value cannot be used (seeding had to mint another) is the entrypoint restarted once,
 * gracefully, with the token seeding created.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { buildStartConfig, DEMO_TOKEN_VARIABLE, type StartConfig } from './start-config.ts';
import { DEMO_AGENT, DEMO_QUESTION, DEMO_WORKFLOW, seedDemoAgent, type SeededAgent } from './seed-demo-agent.ts';
import { demoEndpointLine } from './seed-demo-connections.ts';
import { mintDemoToken, readDemoTokens, seedDemo, SeedRefusal, type DemoTokens } from './seed-demo.ts';
import { chooseStartPorts, type StartPorts } from './start-ports.ts';

const root = resolve(import.meta.dirname, '..');
const dataDir = resolve(process.env.CAIRN_DATA_DIR ?? 'data');
const say = (line: string) => process.stdout.write(`[start] ${line}\n`);
/** How long the product may take to answer, first start included (ms). */
const upWithinMs = 120_000;

let ports: StartPorts;
let config: StartConfig;
try {
  ports = await chooseStartPorts(process.env, say);
  config = buildStartConfig(process.env, { appDir: process.env.CAIRN_APP_DIR ?? root, semanticMcpPort: ports.semanticMcpPort });
} catch (error) {
  say(`cannot start: ${(error as Error).message}`);
  process.exit(2);
}
for (const line of config.lines) say(line);
const localHost = ports.host === '0.0.0.0' || ports.host === '::' ? '127.0.0.1' : ports.host.includes(':') ? `[${ports.host}]` : ports.host;
const url = `http://${localHost}:${ports.publicPort}`;

let child: ChildProcess;
let restarting = false;
let stopping = false;
/** The demo token the running entrypoint was given (undefined: none yet, the first start). */
let bootToken: string | undefined;

/** Starts the entrypoint with the config and, when saved, the demo token. Its exit ends scripts/start (but during a restart). */
function launch(token: string | undefined): void {
  bootToken = token;
  // Endpoint URLs, invitation links and callback addresses name the address this start answers on (unless set).
  const appBase = process.env.APP_BASE_URL ? {} : { APP_BASE_URL: url };
  const env = { ...process.env, ...ports.env, ...config.env, ...appBase, CAIRN_DATA_DIR: dataDir, ...(token ? { [DEMO_TOKEN_VARIABLE]: token } : {}) };
  child = spawn(process.execPath, [resolve(root, 'bins/entrypoint/main.ts')], { stdio: 'inherit', env });
  child.on('exit', (code) => { if (!restarting || stopping) process.exit(code ?? 0); });
}

/** Stops the entrypoint gracefully (SIGTERM: it stops every process), then starts it again with `token`. */
async function restartWith(token: string): Promise<void> {
  restarting = true;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  if (stopping) process.exit(0);
  restarting = false;
  launch(token);
  await waitUntilUp();
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => { stopping = true; child.kill(signal); });

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

function printReady(tokens: DemoTokens | undefined, agent: SeededAgent | undefined): void {
  const endpoint = `${url}/mcp/flights/mcp`;
  const lines = ['', `cairn is running on ${url}  (Ctrl-C stops it; data in ${dataDir})`, ''];
  if (tokens) {
    const mcp = { mcpServers: { 'cairn-flights': { type: 'http', url: endpoint, headers: { Authorization: `Bearer ${tokens.flights}` } } } };
    lines.push(
      `MCP endpoint (published):     ${endpoint}`,
      `MCP endpoint (latest saved):  ${url}/mcp/flights/test/mcp`,
      `Demo token (flights):         ${tokens.flights}`,
      `Also seeded: ${url}/mcp/tpcds/mcp  token ${tokens.tpcds}`,
      '',
      'MCP client configuration (paste into your client\'s MCP settings):',
      JSON.stringify(mcp, null, 2),
      '',
    );
  }
  lines.push(config.modelLine, config.designLine);
  if (agent) {
    lines.push(
      `Demo agent:                   ${DEMO_AGENT} (organization ${agent.org.name}, published build ${agent.buildId}), workflow ${DEMO_WORKFLOW}`,
      `Try it:                       cairn session start ${DEMO_AGENT} ${DEMO_WORKFLOW} --env main --message "${DEMO_QUESTION}"`,
    );
    for (const endpoint of agent.endpoints ?? []) lines.push(demoEndpointLine(endpoint));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Seeds the demo projects (restarting once when the demo token is new) and the demo agent; a failure is one line. */
async function seedEverything(): Promise<{ tokens?: DemoTokens; agent?: SeededAgent }> {
  const seed = { url, dataDir, root, log: say, waitUntilUp };
  let tokens: DemoTokens | undefined;
  try {
    tokens = await seedDemo({ ...seed, ...(firstToken ? { minted: { flights: firstToken } } : {}) });
  } catch (error) {
    // A refusal (a sign-in token needed) is said once: the demo agent would meet the same one.
    if (error instanceof SeedRefusal) {
      say(`cairn keeps serving without the demo projects and agent: ${error.message}`);
      return {};
    }
    say(`seeding the demo projects failed, cairn keeps serving without them (run scripts/start again to retry): ${(error as Error).message}`);
  }
  if (config.offersSemanticService && tokens?.flights && tokens.flights !== bootToken) {
    say('restarting cairn once so that it offers the demo semantic service with the new demo token (the config is read at boot; later starts pass the saved token from the beginning)');
    await restartWith(tokens.flights);
  }
  try {
    return { tokens, agent: await seedDemoAgent(seed) };
  } catch (error) {
    say(`seeding the demo agent failed, cairn keeps serving without it (run scripts/start again to retry): ${(error as Error).message}`);
    return { tokens };
  }
}

// A first start mints the demo token before the platform starts, so the platform boots naming it and comes up once;
// seeding then creates the flights token with this value (the service is discovered once it exists).
const savedToken = readDemoTokens(dataDir).flights;
const firstToken = savedToken === undefined && config.offersSemanticService ? mintDemoToken() : undefined;
launch(savedToken ?? firstToken);
try {
  await waitUntilUp();
} catch (error) {
  say(`start failed: ${(error as Error).message}`);
  child!.kill('SIGTERM');
  await new Promise(() => undefined); // exits with the entrypoint
}
const seeded = await seedEverything().catch((error: Error) => {
  say(`start failed: ${error.message}`);
  child.kill('SIGTERM');
  return new Promise<never>(() => undefined);
});
printReady(seeded.tokens, seeded.agent);
