/**
 * Tenant boundaries over real HTTP under PLATFORM_SIGN_IN=oidc (a real local OpenID provider, the API and a
 * dispatcher, the scripted model): Ada owns organization Acme with the published `front` agent, its public AG-UI
 * connection, a publish operation and a personal chat she started through the AG-UI endpoint with her own sign-in;
 * Bob has his personal organization with an agent of the same slug. Every route family (agents, environments,
 * operations, sessions, spend caps, connections, deployments, organizations, chat history) answers Bob 404 for
 * Ada's resources with no identifier of hers in the body, while Ada's own calls succeed (the positive control) and
 * `front` resolves to each caller's own agent. Within Acme, Cy (a User, joined by invitation) gets 404 for Ada's
 * chat (read, list, reply, decide, cancel, attributes, chat history) until she holds sessions:personal.
 *
 * Source: docs/decisions.md D17 § 2 (Done when: a two-organization test under oidc drives every route family); spec
 * § Session facts named (a chat is personal), § Authentication rules 7 and 8.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installAgentOverApi } from '../helpers/agent-over-api.ts';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startDispatcher, type RunningDispatcher } from '../helpers/dispatcher-process.ts';
import {
  oidcSignInEnv, startOidcProvider, threePeople, tokensOf, type RunningOidcProvider,
} from '../helpers/oidc-provider.ts';
import { repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import {
  scriptedModels, startScriptedModelServer, type ScriptedModelServer,
} from '../helpers/scripted-model-server.ts';

let redis: RunningRedis;
let provider: RunningOidcProvider;
let model: ScriptedModelServer;
let api: RunningApi;
let dispatcher: RunningDispatcher;
const tokens: Record<string, string> = {};
/** Ada's resources, and every identifier of hers that must never reach Bob. */
const ada = { org: '', agent: '', operation: '', address: '', session: '', thread: '', memberId: '' };

interface Answer { status: number; body: Record<string, any>; text: string }

async function as(who: string, method: string, path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens[who]}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.url}${path}`, {
    method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, any>, text };
}

/** Asserts `answer` is a 404 whose body names none of Ada's identifiers (nor her organization's name or address). */
function hidden(label: string, answer: Answer): void {
  expect(answer.status, `${label}: ${answer.text}`).toBe(404);
  for (const id of [...Object.values(ada), 'Acme', 'ada@example.com']) expect(answer.text, label).not.toContain(id);
}

beforeAll(async () => {
  redis = await startRedis();
  provider = await startOidcProvider(threePeople);
  model = await startScriptedModelServer([{ text: 'Noted, Ada.' }, { text: 'Spare reply.' }]);
  const env = { ...oidcSignInEnv(provider), PLATFORM_CONFIG: JSON.stringify({ models: scriptedModels(model) }) };
  api = await startApi(redis.url, env);
  dispatcher = await startDispatcher(api, redis.url, env);
  Object.assign(tokens, await tokensOf(provider));

  ada.org = (await as('ada', 'POST', '/api/orgs', { name: 'Acme' })).body.id;
  ada.agent = await installAgentOverApi(
    api.url, tokens.ada, ada.org, join(repoRoot, 'test/fixtures/agents/front'), 'front',
    [{ identifier: 'front', protocol: 'agui', auth: 'public' }],
  );
  ada.address = (await as('ada', 'GET', `/api/agents/${ada.agent}/environments/main/connections/front`))
    .body.url.split('/api/agui/')[1];
  ada.memberId = (await as('ada', 'GET', `/api/orgs/${ada.org}`)).body.you.memberId;
  // Ada's personal chat, through the AG-UI endpoint with her own sign-in (as the Chat page does).
  const chat = await fetch(`${api.url}/api/agui/${ada.address}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens.ada}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({
      threadId: '', runId: 'r1', tools: [], context: [],
      messages: [{ id: 'u1', role: 'user', content: 'my salary review notes' }],
    }),
  });
  const events = (await chat.text()).split('\n').filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, any>);
  expect(events.at(-1), JSON.stringify(events))
    .toMatchObject({ type: 'RUN_FINISHED', result: { status: 'awaiting_input' } });
  ada.thread = events[0].threadId;
  ada.session = events.at(-1)!.result.sessionId;
  // The reproduction: an environment operation by the slug the agent was created with.
  const published = await as('ada', 'POST', '/api/agents/front/environments/main/publish');
  expect(published.status, published.text).toBe(202);
  ada.operation = published.body.operation.id;

  const bobOrg = (await as('bob', 'GET', '/api/orgs')).body.organizations[0].id as string;
  expect((await as('bob', 'POST', `/api/orgs/${bobOrg}/agents`, { slug: 'front' })).status).toBe(201);
}, 180_000);

afterAll(async () => {
  await dispatcher?.stop();
  await api?.stop();
  await model?.close();
  await provider?.stop();
  await redis?.stop();
});

describe('another organization\'s resources', () => {
  it('are 404 to Bob on every route family, naming nothing of Ada\'s', async () => {
    const agent = `/api/agents/${ada.agent}`;
    const env = `${agent}/environments/main`;
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/orgs/${ada.org}`], ['GET', `/api/orgs/${ada.org}/members`], ['GET', `/api/orgs/${ada.org}/groups`],
      ['POST', `/api/orgs/${ada.org}/groups`, { name: 'Mine' }],
      ['PUT', `/api/orgs/${ada.org}/groups/${ada.org}.user`, { permissions: ['sessions:personal'] }],
      ['POST', `/api/orgs/${ada.org}/groups/${ada.org}.owner/members/${ada.memberId}`],
      ['DELETE', `/api/orgs/${ada.org}/members/${ada.memberId}`],
      ['GET', `/api/orgs/${ada.org}/invitations`],
      ['POST', `/api/orgs/${ada.org}/invitations`, { email: 'bob@example.com' }],
      ['GET', `/api/orgs/${ada.org}/agents`], ['POST', `/api/orgs/${ada.org}/agents`, { slug: 'stolen' }],
      ['GET', agent], ['GET', env], ['PUT', `${env}/files`, { files: [{ path: 'NOTES.md', text: 'x' }] }],
      ['PATCH', env, { evaluationGate: true }],
      ['GET', `${env}/evaluations`], ['POST', `${env}/evaluations`, {}], ['GET', `${env}/evaluations/ev-1`],
      ['POST', `${env}/publish`], ['POST', `${env}/promote`, { to: 'staging' }],
      ['GET', `${agent}/operations/${ada.operation}`],
      ['GET', `${env}/connections`], ['GET', `${env}/connections/front`],
      ['PATCH', `${env}/connections/front`, { origins: ['https://bob.example'] }],
      ['POST', `${env}/connections`, { identifier: 'mine', protocol: 'agui', auth: 'public' }],
      ['DELETE', `${env}/connections/front`],
      ['GET', `${env}/deployments`], ['POST', `${env}/deployments/retry`],
      ['GET', `${agent}/sessions`], ['GET', `${env}/sessions`], ['GET', `${env}/workflows/concierge/sessions`],
      ['GET', `/api/sessions?agent=${ada.agent}`],
      ['POST', '/api/sessions', { agent: ada.agent, environment: 'main', workflow: 'concierge' }],
      ['POST', '/api/sessions', { agent: 'front', orgId: ada.org, environment: 'main', workflow: 'concierge' }],
      ['GET', `/api/sessions/${ada.session}`], ['POST', `/api/sessions/${ada.session}/reply`, { message: 'show me' }],
      ['POST', `/api/sessions/${ada.session}/decide`, { to: 'review' }],
      ['POST', `/api/sessions/${ada.session}/cancel`, {}],
      ['PATCH', `/api/sessions/${ada.session}/attributes`, { stolen: true }],
      ['GET', `${env}/workflows/concierge/spend-caps`],
      ['PUT', `${env}/workflows/concierge/spend-caps/day`, { limitUsd: 0.01 }],
      ['GET', `/api/chat/history/${ada.thread}`],
    ];
    for (const [method, path, body] of calls) hidden(`${method} ${path}`, await as('bob', method, path, body));
    // Lists answer Bob's own resources only.
    const sessions = await as('bob', 'GET', '/api/sessions');
    expect([sessions.status, sessions.body.sessions]).toEqual([200, []]);
    const history = await as('bob', 'GET', '/api/chat/history');
    expect([history.status, history.body.chats]).toEqual([200, []]);
    const workflows = await as('bob', 'GET', '/api/chat/workflows');
    expect(workflows.text).not.toContain(ada.agent);
    expect((await as('bob', 'GET', '/api/orgs')).text).not.toContain(ada.org);
    // `front` is each caller's own agent.
    const bobsFront = await as('bob', 'GET', '/api/agents/front');
    expect(bobsFront.status).toBe(200);
    expect(bobsFront.body.id).not.toBe(ada.agent);
    expect(bobsFront.text).not.toContain(ada.org);
  });

  it('are Ada\'s own to read and change (the positive control), by id and by slug', async () => {
    const reads = [
      `/api/orgs/${ada.org}`, `/api/orgs/${ada.org}/members`, `/api/orgs/${ada.org}/agents`, `/api/agents/${ada.agent}`,
      '/api/agents/front', '/api/agents/front/environments/main', `/api/agents/front/operations/${ada.operation}`,
      '/api/agents/front/environments/main/connections',
      '/api/agents/front/environments/main/deployments', `/api/sessions/${ada.session}`, '/api/agents/front/sessions',
      '/api/agents/front/environments/main/workflows/concierge/spend-caps', `/api/chat/history/${ada.thread}`,
    ];
    for (const path of reads) {
      const answer = await as('ada', 'GET', path);
      expect(answer.status, `${path}: ${answer.text}`).toBe(200);
    }
    expect((await as('ada', 'GET', '/api/agents/front')).body.id).toBe(ada.agent);
    const gate = await as('ada', 'PATCH', '/api/agents/front/environments/main', { evaluationGate: false });
    expect([gate.status, gate.body.evaluationGate]).toEqual([200, false]);
    expect((await as('ada', 'GET', `/api/sessions?agent=front`)).body.sessions.map((s: { id: string }) => s.id))
      .toContain(ada.session);
    expect((await as('ada', 'PATCH', `/api/sessions/${ada.session}/attributes`, { topic: 'salary' })).body.attributes)
      .toEqual({ topic: 'salary' });
    const decide = await as('ada', 'POST', `/api/sessions/${ada.session}/decide`, { to: 'review' });
    expect([decide.status, decide.body.error?.code]).toEqual([409, 'no_decision_pending']);
    expect((await as('ada', 'GET', '/api/chat/history')).body.chats.map((c: { threadId: string }) => c.threadId))
      .toEqual([ada.thread]);
  });
});

describe('another member\'s chat', () => {
  let cyMemberId = '';

  it('is not found by a User of the same organization: read, list, reply, decide, cancel, attributes, '
    + 'chat history', async () => {
    const invited = await as('ada', 'POST', `/api/orgs/${ada.org}/invitations`, { email: 'cy@example.com' });
    expect(invited.status).toBe(201);
    const joined = await as(
      'cy', 'POST', `/api/invitations/link/${(invited.body.link as string).split('/invite/')[1]}/join`,
    );
    expect(joined.body.status).toBe('accepted');
    cyMemberId = joined.body.memberId;
    expect((await as('cy', 'GET', '/api/agents/front')).status).toBe(200);
    const calls: [string, string, unknown?][] = [
      ['GET', `/api/sessions/${ada.session}`],
      ['POST', `/api/sessions/${ada.session}/reply`, { message: 'my notes now' }],
      ['POST', `/api/sessions/${ada.session}/decide`, { to: 'review' }],
      ['POST', `/api/sessions/${ada.session}/cancel`, {}],
      ['PATCH', `/api/sessions/${ada.session}/attributes`, { read: true }], ['GET', `/api/chat/history/${ada.thread}`],
    ];
    for (const [method, path, body] of calls) {
      const answer = await as('cy', method, path, body);
      expect(answer.status, `${method} ${path}: ${answer.text}`).toBe(404);
      expect(answer.text).not.toContain(ada.session);
      expect(answer.text).not.toContain(ada.thread);
    }
    for (const path of ['/api/sessions', '/api/agents/front/sessions', `/api/sessions?agent=${ada.agent}`]) {
      const listed = await as('cy', 'GET', path);
      expect(listed.status).toBe(200);
      expect(listed.text).not.toContain(ada.session);
    }
    const session = await as('ada', 'GET', `/api/sessions/${ada.session}`);
    expect(session.body.session).toMatchObject({ status: 'awaiting_input', attributes: { topic: 'salary' } });
  });

  it('is seen by a member holding sessions:personal, but stays out of their own chat history', async () => {
    const group = await as('ada', 'POST', `/api/orgs/${ada.org}/groups`, {
      name: 'Chat readers', permissions: ['sessions:personal'],
    });
    expect(group.status).toBe(201);
    expect((await as('ada', 'POST', `/api/orgs/${ada.org}/groups/${group.body.id}/members/${cyMemberId}`)).status)
      .toBe(200);
    const read = await as('cy', 'GET', `/api/sessions/${ada.session}`);
    expect(read.status, read.text).toBe(200);
    expect(read.body.messages.some((m: { content?: unknown }) => JSON.stringify(m).includes('my salary review notes')))
      .toBe(true);
    for (const path of ['/api/sessions', '/api/agents/front/sessions', `/api/sessions?agent=${ada.agent}`]) {
      expect((await as('cy', 'GET', path)).text, path).toContain(ada.session);
    }
    expect((await as('cy', 'GET', `/api/chat/history/${ada.thread}`)).status).toBe(404);
  });
});
