/**
 * `cairn agent import` names the agent it creates from what it imports: AGENTS.md's front matter `name` when present,
 * else the slug, never the template's "New agent" (it was, until a publish renamed it). A caller naming an agent
 * through the API gets a clear refusal for a name that is empty or too long.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';

let redis: RunningRedis;
let api: RunningApi;
let dir: string;
const cairn = (...args: string[]) => runProcess(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), '--url', api.url, ...args],
  { env: { PATH: process.env.PATH! } });

beforeAll(async () => {
  redis = await startRedis();
  api = await startApi(redis.url);
  dir = mkdtempSync(join(tmpdir(), 'cairn-import-name-'));
  cpSync(join(repoRoot, 'scripts/demo/agent'), join(dir, 'named'), { recursive: true });
  cpSync(join(repoRoot, 'scripts/demo/agent'), join(dir, 'unnamed'), { recursive: true });
  writeFileSync(join(dir, 'unnamed/AGENTS.md'), 'You answer questions about strikes.\n');
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await redis?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function agentNamed(slug: string): Promise<string | undefined> {
  const { organizations } = await (await fetch(`${api.url}/api/orgs`)).json() as { organizations: { id: string }[] };
  for (const org of organizations) {
    const { agents } = await (await fetch(`${api.url}/api/orgs/${org.id}/agents`)).json() as {
      agents: { slug: string; name: string }[];
    };
    const agent = agents.find((a) => a.slug === slug);
    if (agent) return agent.name;
  }
  return undefined;
}

describe('cairn agent import names the agent it creates', () => {
  it('after the slug when AGENTS.md has no front matter name', async () => {
    const run = await cairn('agent', 'import', join(dir, 'unnamed'), '--agent', 'strike-desk');
    expect(run.status, run.stderr).toBe(0);
    expect(await agentNamed('strike-desk')).toBe('strike-desk');
  });

  it("after AGENTS.md's front matter name when present", async () => {
    const run = await cairn('agent', 'import', join(dir, 'named'), '--agent', 'flights-desk');
    expect(run.status, run.stderr).toBe(0);
    expect(await agentNamed('flights-desk')).toBe('Flights analyst');
  });

  it('refuses an empty name through the API with a clear message', async () => {
    const { organizations } = await (await fetch(`${api.url}/api/orgs`)).json() as { organizations: { id: string }[] };
    const response = await fetch(`${api.url}/api/orgs/${organizations[0].id}/agents`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ slug: 'blank', name: ' ' }),
    });
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toMatch(/name/);
    expect(await agentNamed('blank')).toBeUndefined();
  });
});
