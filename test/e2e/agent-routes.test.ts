/**
 * Hosted agents over the real API (bins/api/main.ts, dev-user sign-in, SQLite and the file object store):
 * `cairn agent import scripts/demo/agent --agent … --publish` as a real process creates the agent in the
 * default organization, saves the files to main's draft and publishes; the environment read back holds
 * the published build with the validator's counts. An invalid import is refused with located problems
 * (exit 1) and leaves the published build unchanged. Publish, restore, discard and promote answer 202 with
 * a queued environment operation that a real dispatcher (bins/dispatcher/main.ts on the same stores) runs
 * and ends succeeded or failed (a refused publish keeps its located problems); two operations asked at once
 * both succeed; the body and query checks and the 20 MiB upload form of the files batch are exercised over HTTP.
 *
 * Source: spec/platform-service.md (What the service does; § Limits; § Errors); docs/decisions.md D7 § Agents
 * and environments, § Operators.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startDispatcher, waitForOperation, type OperationAnswer, type RunningDispatcher } from '../helpers/dispatcher-process.ts';
import { repoRoot, runCairn } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

let redis: RunningRedis;
let api: RunningApi;
let dispatcher: RunningDispatcher;
let work: string;

beforeAll(async () => {
  redis = await startRedis();
  api = await startApi(redis.url);
  dispatcher = await startDispatcher(api, redis.url);
  work = mkdtempSync(join(tmpdir(), 'cairn-agent-import-'));
}, 120_000);

afterAll(async () => {
  await dispatcher?.stop();
  await api?.stop();
  await redis?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

interface Answer { status: number; body: Record<string, any> }
async function call(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<Answer> {
  const init: RequestInit = { method, headers: body === undefined ? {} : { 'content-type': contentType } };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(`${api.url}${path}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** Asks for an environment operation: 202 with it queued; then waits for it to end. */
async function operation(agentId: string, path: string, body?: unknown): Promise<OperationAnswer> {
  const asked = await call('POST', `/api/agents/${agentId}/environments/${path}`, body);
  expect([asked.status, asked.body.operation?.status]).toEqual([202, 'queued']);
  return waitForOperation(api.url, agentId, asked.body.operation.id);
}

const demoDir = join(repoRoot, 'scripts/demo/agent');
const workflow = 'workflows/flights-analyst/workflow.yaml';

describe('cairn agent import and the agent routes', () => {
  let agentId: string;
  let orgId: string;
  let firstBuild: Record<string, any>;

  it('imports and publishes the demo agent as a real process, and the environment reads back', async () => {
    const run = runCairn(api.url, ['agent', 'import', demoDir, '--agent', 'flights', '--publish']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^agent flights \(\S+\) created$/m);
    const commit = /saved 7 file\(s\) to main: commit ([0-9a-f]{40})/.exec(run.stdout)?.[1];
    expect(commit).toBeDefined();
    expect(run.stdout).toContain(`at commit ${commit} (2 workflow(s), 10 state(s), 5 trigger(s), 1 skill(s), 2 test case(s))`);
    orgId = (await call('GET', '/api/orgs')).body.organizations[0].id;
    const agents = await call('GET', `/api/orgs/${orgId}/agents`);
    expect(agents.body.agents).toEqual([expect.objectContaining({ slug: 'flights', name: 'Flights analyst' })]);
    agentId = agents.body.agents[0].id;
    const env = await call('GET', `/api/agents/${agentId}/environments/main`);
    expect(env.status).toBe(200);
    expect(env.body.draft.commitId).toBe(commit);
    expect(env.body.published).toMatchObject({ commitId: commit, counts: { workflows: 2, states: 10, triggers: 5, skills: 1, tests: 2 }, publishedBy: 'dev@localhost' });
    firstBuild = env.body.published;
  });

  it('refuses an invalid import with file:line:col key: message, exit 1, and keeps the published build', () => {
    const broken = join(work, 'broken');
    cpSync(demoDir, broken, { recursive: true });
    writeFileSync(join(broken, workflow), readFileSync(join(broken, workflow), 'utf8').replace('title: Ask', 'titel: oops\ntitle: Ask'));
    const run = runCairn(api.url, ['agent', 'import', broken, '--agent', 'flights', '--publish']);
    expect(run.status).toBe(1);
    expect(run.stdout).toMatch(/^agent flights \(\S+\) found$/m);
    expect(run.stdout).toMatch(new RegExp(`^${workflow}:1:1 /titel: unknown key "titel"`, 'm'));
    expect(run.stdout).toContain('publish refused: 1 problem(s)');
  });

  it('reads the environment back (the draft moved, the published build did not); publish, discard, promote and restore run as queued operations', async () => {
    const env = await call('GET', `/api/agents/${agentId}/environments/main`);
    expect(env.body.published).toEqual(firstBuild);
    expect(env.body.draft.commitId).not.toBe(firstBuild.commitId);
    // The page's extras: the agent's builds (a Restore choice) and the published plane's workflows (spend caps).
    expect(env.body.builds).toEqual([expect.objectContaining({ id: firstBuild.buildId, environment: 'main', commitId: firstBuild.commitId })]);
    expect(env.body.workflows).toEqual(['flights-analyst', 'follow-up']);
    const refused = await operation(agentId, 'main/publish');
    expect(refused).toMatchObject({ kind: 'publish', status: 'failed', result: null, error: { code: 'agent_invalid' } });
    expect(refused.error!.problems).toEqual([expect.objectContaining({ file: workflow, line: 1, column: 1, key: '/titel', text: expect.stringContaining(`${workflow}:1:1 /titel: unknown key "titel"`) })]);
    expect((await call('GET', `/api/agents/${agentId}/environments/main`)).body.published).toEqual(firstBuild);
    const discarded = await operation(agentId, 'main/discard');
    expect(discarded).toMatchObject({ status: 'succeeded', result: { published: firstBuild } });
    const published = await operation(agentId, 'main/publish');
    expect(published).toMatchObject({ status: 'succeeded', error: null, result: { name: 'main', published: { commitId: discarded.result!.draft.commitId } } });
    expect(published.result!.published.buildId).not.toBe(firstBuild.buildId);
    // Two operations on one agent asked at once run one after the other under its lock: both succeed.
    const [promoted, restored] = await Promise.all([operation(agentId, 'main/promote', { to: 'staging' }), operation(agentId, 'main/restore', { buildId: firstBuild.buildId })]);
    expect([promoted.status, restored.status]).toEqual(['succeeded', 'succeeded']);
    expect(promoted.result).toMatchObject({ name: 'staging', published: { buildId: published.result!.published.buildId } });
    expect((await call('GET', `/api/agents/${agentId}/operations/${promoted.id}`)).body.operation).toMatchObject({ id: promoted.id, status: 'succeeded', requestedBy: 'dev@localhost' });
    expect((await call('GET', `/api/agents/${agentId}/operations/no-such-operation`)).body.error.code).toBe('operation_not_found');
    const agent = await call('GET', `/api/agents/${agentId}`);
    expect(agent.body.environments.map((e: { name: string }) => e.name)).toEqual(['main', 'staging']);
    expect(agent.body.environments[1].published.commitId).toBe(agent.body.environments[0].published.commitId);
  });

  it('checks bodies and query strings (400 naming the field) and takes a large files batch only as an upload', async () => {
    const bad = await call('POST', `/api/orgs/${orgId}/agents`, { slug: 'Not A Slug' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('/slug');
    const query = await call('GET', `/api/agents/${agentId}/environments/main?verbose=1`);
    expect(query.status).toBe(400);
    expect(query.body.error.message).toContain('"verbose"');
    const promote = await call('POST', `/api/agents/${agentId}/environments/main/promote`, { too: 'x' });
    expect(promote.status).toBe(400);
    const big = JSON.stringify({ files: [{ path: 'NOTES.md', text: 'x'.repeat(1536 * 1024) }] });
    expect((await call('PUT', `/api/agents/${agentId}/environments/main/files`, big)).status).toBe(413);
    const upload = await call('PUT', `/api/agents/${agentId}/environments/main/files`, big, 'application/octet-stream');
    expect(upload.status).toBe(200);
    expect((await call('GET', `/api/agents/no-such-agent`)).body.error.code).toBe('agent_not_found');
  });
});
