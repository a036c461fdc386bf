/**
 * The evaluation routes over the in-memory stores with the real wiring (core/boot/evaluation-wiring.ts: the one
 * agent resolver and authorization helper, the environment's published build read from the object store) and a
 * recording job queue, with two organizations: Ada starts, lists and reads her agent's runs; Bob, a member of
 * another organization, gets 404 naming nothing of them for each route, by slug, by id and with Ada's run id. Bad
 * bodies are 400 naming the field; a selection matching no case is 404 listing the cases; an environment not
 * published is 409. Source: issue "Evaluations" § Results; docs/decisions.md D17 § 2.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { agentCollections, type AgentRecord, agentSchemaVersion, type EnvironmentRecord } from '../../core/agent/hosting-model.ts';
import { evaluationDeps } from '../../core/boot/evaluation-wiring.ts';
import { operationHostingDeps } from '../../core/boot/environment-operations.ts';
import { tmpdir } from 'node:os';
import { createOrganization, ensureOrgIndexes } from '../../core/org/index.ts';
import type { JobQueue } from '../../core/ports/job-queue.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { evaluationRoutes } from './evaluation-routes.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const ada = { subject: 'sub-ada', email: 'ada@example.com' };
const bob = { subject: 'sub-bob', email: 'bob@example.com' };
const files = [
  { path: 'workflows/answer/workflow.yaml', text: 'title: Answer\n' },
  { path: 'workflows/answer/tests/greets.test.yaml', text: 'title: Greets\nsteps:\n  - send: hi\n  - reply: {includes: hello}\n' },
];

const docs = createMemoryDocumentStore();
const objects = createMemoryObjectStore();
let n = 0;
const clock = { now: () => new Date('2026-11-27T10:00:00Z') };
const ids = { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' };
const jobs: string[] = [];
const queue = {
  add: async (_queue: string, _name: string, _data: unknown, options?: { jobId?: string }) => {
    jobs.push(options!.jobId!);
    return options!.jobId!;
  },
} as unknown as JobQueue;
const app = evaluationRoutes({
  deps: evaluationDeps({
    docs, objects, clock, ids, queue, hosting: operationHostingDeps({ docs, objects, clock, ids, scratchDir: tmpdir() }),
  }),
  logger,
  prepare: async () => undefined,
  callerOf: (request) => {
    const who = request.headers.get('x-test-member');
    if (!who) throw new PlatformError('unauthorized', 'Sign in first.', { status: 401 });
    return who === 'ada' ? ada : bob;
  },
});

async function call(who: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { 'x-test-member': who };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await app.handle(new Request(`https://cairn.example.com${path}`, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
  }));
  return { status: response.status, text: await response.text() };
}

async function agent(id: string, orgId: string, slug: string, published: boolean) {
  const record: AgentRecord = { _id: id, schemaVersion: agentSchemaVersion, orgId, slug, name: slug, description: '', createdAt: new Date(), createdBy: 'x' };
  await docs.collection<AgentRecord>(agentCollections.agents).insertOne(record);
  const objectKey = `builds/${id}/b1.json`;
  const content = { buildId: `${id}-b1`, agentId: id, environment: 'main', commitId: 'c1', counts: { workflows: 1, states: 1, triggers: 1, skills: 0, tests: 1 }, publishedAt: '2026-11-27T09:00:00Z', files };
  await objects.put(objectKey, new TextEncoder().encode(JSON.stringify(content)));
  const env: EnvironmentRecord = {
    _id: `${id}:main`, schemaVersion: agentSchemaVersion, agentId: id, orgId, name: 'main', draftCommit: 'c1', draftSavedAt: new Date(), createdAt: new Date(),
    published: published ? { buildId: `${id}-b1`, commitId: 'c1', objectKey, counts: content.counts, publishedAt: new Date(), publishedBy: 'x' } : null,
  };
  await docs.collection<EnvironmentRecord>(agentCollections.environments).insertOne(env);
}

beforeAll(async () => {
  await ensureOrgIndexes(docs);
  const deps = { docs, clock, ids };
  const acme = (await createOrganization(deps, ada, 'Acme'))._id;
  const bobs = (await createOrganization(deps, bob, 'Bobs'))._id;
  await agent('agent-ada', acme, 'desk', true);
  await agent('agent-ada-draft', acme, 'drafty', false);
  await agent('agent-bob', bobs, 'bob-desk', true);
});

describe('evaluation routes, two organizations', () => {
  let runId: string;

  it('the owner starts a run (202), lists it and reads it', async () => {
    const started = await call('ada', 'POST', '/api/agents/desk/environments/main/evaluations', {});
    expect(started.status, started.text).toBe(202);
    const { run } = JSON.parse(started.text) as { run: { id: string; status: string; caseIds: string[]; summary: unknown; buildId: string } };
    runId = run.id;
    expect(run).toMatchObject({ status: 'queued', caseIds: ['answer/greets'], buildId: 'agent-ada-b1', summary: { total: 1, done: 0 } });
    expect(jobs).toEqual([runId]);
    const list = await call('ada', 'GET', '/api/agents/agent-ada/environments/main/evaluations');
    expect(JSON.parse(list.text).runs.map((r: { id: string }) => r.id)).toEqual([runId]);
    const shown = await call('ada', 'GET', `/api/agents/desk/environments/main/evaluations/${runId}`);
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain('orgId');
  });

  it('a member of another organization gets 404 naming nothing, by slug, by id and with the run id', async () => {
    const paths: [string, string, unknown?][] = [
      ['POST', '/api/agents/desk/environments/main/evaluations', {}],
      ['POST', '/api/agents/agent-ada/environments/main/evaluations', {}],
      ['GET', '/api/agents/desk/environments/main/evaluations'],
      ['GET', `/api/agents/agent-ada/environments/main/evaluations/${runId}`],
    ];
    for (const [method, path, body] of paths) {
      const answer = await call('bob', method, path, body);
      expect(answer.status, `${method} ${path}`).toBe(404);
      for (const secret of ['desk', 'agent-ada', runId, 'greets', 'Acme']) expect(answer.text).not.toContain(secret);
    }
    // Bob's own agent, with Ada's run id: not found either; and his own start works.
    expect((await call('bob', 'GET', `/api/agents/bob-desk/environments/main/evaluations/${runId}`)).status).toBe(404);
    expect((await call('bob', 'POST', '/api/agents/bob-desk/environments/main/evaluations', {})).status).toBe(202);
  });

  it('refuses a bad body, a selection matching no case, and an environment not published', async () => {
    const bad = await call('ada', 'POST', '/api/agents/desk/environments/main/evaluations', { workflow: 'Not A Slug' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('workflow');
    const extra = await call('ada', 'POST', '/api/agents/desk/environments/main/evaluations', { cases: 'x' });
    expect(extra.status).toBe(400);
    const none = await call('ada', 'POST', '/api/agents/desk/environments/main/evaluations', { case: 'missing' });
    expect(none.status).toBe(404);
    expect(JSON.parse(none.text).error.message).toBe('no evaluation case matches case missing; the cases are answer/greets');
    const drafty = await call('ada', 'POST', '/api/agents/drafty/environments/main/evaluations', {});
    expect(drafty.status).toBe(409);
    expect(JSON.parse(drafty.text).error.code).toBe('not_published');
  });
});
