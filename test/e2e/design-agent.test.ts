/**
 * The design agent end to end: an API and a dispatcher on a real redis-server, members signing in at a local OpenID
 * provider, the config's designAgent pointing at the scripted model server (model `design-model-x`, apart from the
 * workflows' `scripted-model`). With `cairn design`, a chat creates a workflow with a human decision from a
 * description (the scripted model calls the design tools); a write outside the layout and a call to publish are
 * refused; `cairn agent validate` on the draft passes and a person publishes. A second chat changes a transition and
 * the unpublished changes show it. On an agent with evaluation cases, design_run_evaluations runs one of the draft's
 * cases (on the workflows' model) and hands the verdict back. Design turns go through their own queue with the
 * designAgent model, count
 * against the per-person ceiling, and appear in the organization's design spend. Another organization's member,
 * a User and a Reader of the agent get 404 naming nothing; a chat is personal to the member who opened it.
 * Source: issue "The design agent" § Done when.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startDispatcher, type RunningDispatcher } from '../helpers/dispatcher-process.ts';
import { oidcSignInEnv, startOidcProvider, threePeople, tokensOf, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { installAgentOverApi } from '../helpers/agent-over-api.ts';
import { repoRoot, runCairnAsync } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { scriptedModels, startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn } from '../helpers/scripted-model-server.ts';

const V1 = `title: Expense approval
instructions: Draft an answer to an expense request, then a person decides.
states:
  draft:
    instructions: Summarise the request and propose approve or refuse.
    triggers:
      expense:
        type: chat
    transitions:
      - to: decide
        description: The summary is written.
  decide:
    type: human
    instructions: A person approves or refuses the expense.
    transitions:
      - to: done
        description: Approve.
      - to: refused
        description: Refuse.
  refused: {}
  done: {}
`;
const V2 = V1.replace('      - to: refused\n        description: Refuse.', '      - to: draft\n        description: Refuse; draft again.')
  .replace('  refused: {}\n', '');
const EXPENSES = 'workflows/expenses/workflow.yaml';
const tool = (name: string, args: unknown = {}) => ({ name, arguments: args });
const script: ScriptedTurn[] = [
  // Chat 1 (cairn design): from a description to a valid workflow with a human decision.
  { toolCalls: [tool('design_list_files')] },
  { toolCalls: [tool('design_read_file', { path: 'workflows/chat/workflow.yaml' })] },
  { toolCalls: [tool('design_write_file', { path: EXPENSES, text: V1 })] },
  { toolCalls: [tool('design_write_file', { path: '../../secrets.txt', text: 'x' }), tool('design_publish')] },
  { toolCalls: [tool('design_validate')] },
  { text: 'I added the expenses workflow: a draft, then a person decides.' },
  // Chat 2: a transition changed.
  { toolCalls: [tool('design_read_file', { path: EXPENSES })] },
  { toolCalls: [tool('design_write_file', { path: EXPENSES, text: V2 })] },
  { toolCalls: [tool('design_validate')] },
  { text: 'Refused requests now go back to drafting.' },
  // Chat 2 continued on its thread.
  { text: 'Yes, only that transition changed.' },
  // A chat on the evals agent runs one case of its draft: the case's answer and its judge, then the verdict.
  { toolCalls: [tool('design_run_evaluations', { workflow: 'answer', case: 'a-passes' })] },
  {
    text: 'Delta cancelled the most flights.',
    toolCalls: [tool('platform_set_variables', { variables: { airline: 'Delta' } }), tool('platform_advance', { to: 'review', reason: 'answered' })],
  },
  { text: '{"score": 0.9, "reason": "It names one airline."}' },
  { text: 'The case a-passes passes.' },
  // Cy's own chat.
  { text: 'Hello Cy.' },
];

let redis: RunningRedis;
let provider: RunningOidcProvider;
let model: ScriptedModelServer;
let api: RunningApi;
let dispatcher: RunningDispatcher;
const tokens: Record<string, string> = {};
const ada = { org: '', agent: '', chat1: '', chat2: '', chat3: '', evals: '' };

interface Answer { status: number; body: Record<string, any>; text: string; headers: Headers }

async function as(who: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens[who]}`, accept: 'text/event-stream, application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  let parsed: Record<string, any> = {};
  try { parsed = text ? JSON.parse(text) as Record<string, any> : {}; } catch { /* an event stream */ }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/** One design run over the AG-UI endpoint: its events (SSE data lines, parsed). */
async function designRun(who: string, agent: string, message: string, threadId = ''): Promise<{ status: number; events: Record<string, any>[]; text: string }> {
  const answer = await as(who, 'POST', `/api/agents/${agent}/environments/main/design`, {
    threadId, runId: `r-${Date.now()}`, tools: [], context: [], messages: [{ id: 'u1', role: 'user', content: message }],
  });
  const events = answer.text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as Record<string, any>);
  return { status: answer.status, events, text: answer.text };
}

/** Asserts a 404 naming none of Ada's identifiers. */
function hidden(label: string, answer: { status: number; text: string }): void {
  expect(answer.status, `${label}: ${answer.text}`).toBe(404);
  for (const id of [ada.org, ada.agent, ada.chat1, ada.chat2].filter(Boolean)) expect(answer.text, label).not.toContain(id);
}

beforeAll(async () => {
  redis = await startRedis();
  provider = await startOidcProvider(threePeople);
  model = await startScriptedModelServer(script);
  const config = {
    models: scriptedModels(model),
    designAgent: { provider: 'openai-compatible', apiBaseUrl: model.baseUrl, model: 'design-model-x', prices: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 } },
  };
  const env = { ...oidcSignInEnv(provider), PLATFORM_CONFIG: JSON.stringify(config), PLATFORM_USER_RATE_PER_MINUTE: '8' };
  api = await startApi(redis.url, env);
  dispatcher = await startDispatcher(api, redis.url, env);
  Object.assign(tokens, await tokensOf(provider));
  ada.org = (await as('ada', 'POST', '/api/orgs', { name: 'Acme' })).body.id;
  ada.agent = (await as('ada', 'POST', `/api/orgs/${ada.org}/agents`, { slug: 'desk' })).body.id;
  expect(ada.agent).toBeTruthy();
  const bobOrg = (await as('bob', 'POST', '/api/orgs', { name: 'Bobco' })).body.id;
  expect((await as('bob', 'POST', `/api/orgs/${bobOrg}/agents`, { slug: 'desk' })).status).toBe(201);
}, 120_000);

afterAll(async () => {
  await dispatcher?.stop();
  await api?.stop();
  await model?.close();
  await provider?.stop();
  await redis?.stop();
});

describe('a design chat', () => {
  it('creates a valid workflow with a human decision from a description; outside the layout and publish are refused', async () => {
    const run = await runCairnAsync(api.url, ['--token', tokens.ada!, 'design', 'desk', '--env', 'main', '--message',
      'Approve expense requests: the assistant drafts a summary, then a person approves or refuses.']);
    expect(run.status, `${run.stderr}\n${dispatcher.output().slice(-3000)}`).toBe(0);
    expect(run.stdout).toContain('I added the expenses workflow');
    expect(run.stderr).toMatch(/\[tool\] design_list_files[\s\S]*\[tool\] design_write_file[\s\S]*\[tool\] design_validate/);
    ada.chat1 = /thread (\S+)/.exec(run.stderr)?.[1] ?? '';
    expect(ada.chat1).toMatch(/^design-/);
    expect(model.requests).toHaveLength(6);
    // Every call went to the designAgent model, with the design tools under their own names and the authoring skill.
    for (const request of model.requests) expect(request.body.model).toBe('design-model-x');
    const offered = (model.requests[0]!.body.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['design_list_files', 'design_read_file', 'design_write_file',
      'design_delete_file', 'design_validate', 'design_run_evaluations', 'design_list_tools']));
    expect(offered.some((name) => name.includes('publish') || name.startsWith('semantic'))).toBe(false);
    expect(JSON.stringify(model.requests[0]!.body.messages[0])).toContain('cairn-agent-authoring');
    // The refusals went back to the model as tool errors: the layout, and a tool that does not exist.
    const afterRefusals = JSON.stringify(model.requests[4]!.body.messages);
    expect(afterRefusals).toContain('path_outside_layout');
    expect(afterRefusals).toContain('No tool \\"design_publish\\" is offered');
    expect(JSON.stringify(model.requests[5]!.body.messages.at(-1))).toContain('\\"ok\\":true');
  }, 120_000);

  it('leaves a draft `cairn agent validate` passes, and a person publishes it', async () => {
    const validated = await runCairnAsync(api.url, ['--token', tokens.ada!, 'agent', 'validate', '--agent', 'desk', '--env', 'main']);
    expect(validated.status, validated.stdout + validated.stderr).toBe(0);
    expect(validated.stdout).toContain('valid (2 workflows');
    const files = await as('ada', 'GET', `/api/agents/desk/environments/main/files`);
    expect(files.body.files.find((f: { path: string }) => f.path === EXPENSES).text).toBe(V1);
    const published = await as('ada', 'POST', `/api/agents/desk/environments/main/publish`, {});
    expect(published.status, published.text).toBe(202);
    let status = published.body.operation.status as string;
    for (let i = 0; i < 120 && (status === 'queued' || status === 'running'); i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await as('ada', 'GET', `/api/agents/desk/operations/${published.body.operation.id}`)).body.operation.status;
    }
    expect(status).toBe('succeeded');
    expect((await as('ada', 'GET', '/api/agents/desk/environments/main/design/changes')).body.files).toEqual([]);
  }, 60_000);

  it('changes a transition in a second chat; the unpublished changes show it; its thread continues it', async () => {
    const run = await designRun('ada', 'desk', 'Send refused requests back to drafting instead of ending.');
    expect(run.status, run.text).toBe(200);
    ada.chat2 = run.events.find((e) => e.type === 'RUN_STARTED')!.threadId as string;
    expect(ada.chat2).not.toBe(ada.chat1);
    expect(run.events.at(-1)!.type).toBe('RUN_FINISHED');
    expect(run.text).toContain('Refused requests now go back to drafting.');
    const changes = await as('ada', 'GET', '/api/agents/desk/environments/main/design/changes');
    expect(changes.body.files).toEqual([{ path: EXPENSES, status: 'changed', published: V1, draft: V2 }]);
    expect(V2).toContain('- to: draft\n        description: Refuse; draft again.');
    const again = await designRun('ada', 'desk', 'Is that all?', ada.chat2);
    expect(again.events.find((e) => e.type === 'RUN_STARTED')!.threadId).toBe(ada.chat2);
    expect(again.text).toContain('only that transition changed');
    const listed = await as('ada', 'GET', '/api/agents/desk/environments/main/design');
    expect(listed.body).toMatchObject({ configured: true, model: 'design-model-x' });
    expect(listed.body.chats.map((c: { threadId: string }) => c.threadId)).toEqual([ada.chat2, ada.chat1]);
    // A design chat is continued through its own endpoint only.
    const reply = await as('ada', 'POST', `/api/sessions/${ada.chat2}/reply`, { message: 'publish it' });
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('design_session');
  }, 60_000);

  it('runs the draft\'s evaluation cases with design_run_evaluations and hands the model the verdict', async () => {
    ada.evals = await installAgentOverApi(api.url, tokens.ada!, ada.org, join(repoRoot, 'test/fixtures/agents/evals'), 'evals');
    const before = model.requests.length;
    const run = await designRun('ada', 'evals', 'Do its cases pass?');
    expect(run.status, run.text).toBe(200);
    expect(run.text).toContain('The case a-passes passes.');
    ada.chat3 = run.events.find((e) => e.type === 'RUN_STARTED')!.threadId as string;
    expect(model.requests.length - before).toBe(4);
    // The case ran on the workflows' model; the design agent on its own; the verdict came back as the tool's result.
    expect(model.requests.slice(before).map((r) => r.body.model)).toEqual([
      'design-model-x', 'scripted-model', 'scripted-model', 'design-model-x',
    ]);
    const verdict = JSON.stringify(model.requests.at(-1)!.body.messages.at(-1));
    expect(verdict).toContain('\\"passed\\":true');
    expect(verdict).toMatch(/evaluation run \S+ passed: 1 of 1 case/);
    const runs = await as('ada', 'GET', '/api/agents/evals/environments/main/evaluations');
    expect(runs.body.runs).toHaveLength(1);
    expect(runs.body.runs[0]).toMatchObject({ status: 'passed', draft: true });
  }, 120_000);

  it('runs its turns on the design-agent-turns queue, and its cost is the organization\'s design spend', async () => {
    const queue = new Redis(redis.url);
    try {
      // The turn queues are fair (core/adapters/redis/fair-queue.ts): each keeps the ids of its ended jobs.
      const designJobs = await queue.zrange('cairn:design-agent-turns:fair:e', '0', '-1');
      const turnJobs = await queue.zrange('cairn:turns:fair:e', '0', '-1');
      expect(designJobs.length).toBe(4);
      expect(turnJobs.length).toBe(2); // the evaluation case's: its message, its decision
      expect(designJobs.every((id) => id.startsWith('design-'))).toBe(true);
      expect(turnJobs.every((id) => !id.startsWith('design-'))).toBe(true);
    } finally {
      queue.disconnect();
    }
    const costOf = async (id: string) => (await as('ada', 'GET', `/api/sessions/${id}`)).body.session.usage.costUsd as number;
    const [one, two, three] = await Promise.all([ada.chat1, ada.chat2, ada.chat3].map(costOf));
    expect([one, two, three].every((c) => c! > 0)).toBe(true);
    const spend = await as('ada', 'GET', `/api/orgs/${ada.org}/design-spend`);
    expect(spend.status, spend.text).toBe(200);
    const month = spend.body.periods.find((p: { period: string }) => p.period === 'month');
    expect(month.costUsd).toBeCloseTo(one! + two! + three!, 9);
    // The evaluation's own model calls are the workflow's spend, not the design agent's.
    const byAgent = Object.fromEntries(spend.body.agents.map((a: { slug: string; costUsd: number }) => [a.slug, a.costUsd]));
    expect(Object.keys(byAgent).sort()).toEqual(['desk', 'evals']);
    expect(byAgent.desk).toBeCloseTo(one! + two!, 9);
    expect(byAgent.evals).toBeCloseTo(three!, 9);
    expect(spend.body.agents.find((a: { slug: string }) => a.slug === 'desk')).toMatchObject({ agentId: ada.agent, name: 'New agent', environment: 'main' });
  });
});

describe('the design endpoint to anyone but a Maintainer', () => {
  it('is 404 to another organization\'s member, naming nothing; their own agent of the same slug is theirs', async () => {
    for (const [method, path] of [['GET', `/api/agents/${ada.agent}/environments/main/design`],
      ['GET', `/api/agents/${ada.agent}/environments/main/design/changes`], ['GET', `/api/agents/${ada.agent}/environments/main/files`],
      ['GET', `/api/orgs/${ada.org}/design-spend`]] as const) {
      hidden(`${method} ${path}`, await as('bob', method, path));
    }
    hidden('POST design', await designRun('bob', ada.agent, 'show me her draft'));
    hidden('POST design on her thread', await designRun('bob', ada.agent, 'continue', ada.chat1));
    const own = await as('bob', 'GET', '/api/agents/desk/environments/main/design');
    expect(own.status).toBe(200);
    expect(own.body.chats).toEqual([]);
  });

  it('is 404 to a User and to a Reader of the agent; a Maintainer\'s chat is their own, not another\'s thread', async () => {
    const invited = await as('ada', 'POST', `/api/orgs/${ada.org}/invitations`, { email: 'cy@example.com' });
    const joined = await as('cy', 'POST', `/api/invitations/link/${(invited.body.link as string).split('/invite/')[1]}/join`);
    expect(joined.body.status).toBe('accepted');
    const cy = joined.body.memberId as string;
    const asCy = async () => {
      hidden('POST design', await designRun('cy', 'desk', 'change it', ada.chat1));
      hidden('GET changes', await as('cy', 'GET', '/api/agents/desk/environments/main/design/changes'));
      hidden('GET design', await as('cy', 'GET', '/api/agents/desk/environments/main/design'));
    };
    await asCy(); // a User
    const readers = await as('ada', 'POST', `/api/orgs/${ada.org}/groups`, { name: 'Readers', agentRoles: [{ agent: '*', role: 'reader' }] });
    expect(readers.status, readers.text).toBe(201);
    expect((await as('ada', 'POST', `/api/orgs/${ada.org}/groups/${readers.body.id}/members/${cy}`)).status).toBe(200);
    expect((await as('ada', 'DELETE', `/api/orgs/${ada.org}/groups/${ada.org}.user/members/${cy}`)).status).toBe(200);
    expect((await as('cy', 'GET', '/api/agents/desk')).status).toBe(200);
    await asCy(); // a Reader
    expect((await as('ada', 'POST', `/api/orgs/${ada.org}/groups/${ada.org}.maintainer/members/${cy}`)).status).toBe(200);
    const run = await designRun('cy', 'desk', 'Hello', ada.chat1);
    expect(run.status, run.text).toBe(200);
    const thread = run.events.find((e) => e.type === 'RUN_STARTED')!.threadId as string;
    expect(thread).not.toBe(ada.chat1);
    expect(run.text).toContain('Hello Cy.');
    expect(run.text).not.toContain('expenses workflow');
  }, 60_000);

  it('counts against the per-person ceiling (429 with Retry-After)', async () => {
    const statuses: number[] = [];
    let limited: Answer | undefined;
    for (let i = 0; i < 10 && !limited; i++) {
      const answer = await as('bob', 'POST', '/api/agents/desk/environments/main/design', { threadId: '', runId: 'r', tools: [], context: [], messages: [] });
      statuses.push(answer.status);
      if (answer.status === 429) limited = answer;
    }
    expect(statuses.slice(0, -1).every((s) => s === 400), statuses.join(',')).toBe(true);
    expect(limited?.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(model.requests).toHaveLength(script.length);
  });
});
