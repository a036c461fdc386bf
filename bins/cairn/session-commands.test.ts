/**
 * `cairn session …` without the platform: argument parsing (typed --var values, required options, the list
 * route), the human text of answers shaped as the session routes' contract (pending, trail, messages with
 * shortened tool arguments and results, usage, cost, children; others' text made terminal-safe), and the
 * commands over real HTTP against a loopback server answering that contract (requests sent, --wait polling,
 * API refusals as exit 1), including cairn itself run as a process.
 * Source: docs/decisions.md D7 § Operators.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bunBinary, runProcess } from '../../test/helpers/run-process.ts';
import { CliError } from './api-client.ts';
import { listPath, parseVariables, runSession, startBody } from './session-commands.ts';
import { formatList, formatShow, formatStarted, type SessionDetail, type SessionView } from './session-format.ts';

const usage = { inputTokens: 1200, outputTokens: 340, cacheReadTokens: 100, cacheWriteTokens: 0, modelCalls: 3, costUsd: 0.012345 };
const view = (fields: Partial<SessionView> = {}): SessionView => ({
  id: 'ses_1', orgId: 'org_1', agentId: 'agt_1', environment: 'main', workflow: 'flights-analyst', buildId: 'bld_1', commitId: 'c1',
  status: 'running', state: 'review', trail: [{ state: 'ask', via: 'start', at: '2026-11-24T00:00:00.000Z' }],
  variables: {}, attributes: {}, pending: null, usage, error: null, trigger: null,
  createdAt: '2026-11-24T00:00:00.000Z', updatedAt: '2026-11-24T00:00:01.000Z', ...fields,
});
const longOutput = `rows: ${'x'.repeat(400)}`;
const detail = (fields: Partial<SessionView> = {}): SessionDetail => ({
  session: view({
    status: 'awaiting_decision',
    trail: [
      { state: 'ask', via: 'start', at: '2026-11-24T00:00:00.000Z' },
      { state: 'review', via: 'tool:advance', at: '2026-11-24T00:00:02.000Z', note: 'answer drafted\u001b[2J' },
    ],
    pending: { kind: 'decision', state: 'review', options: [{ to: 'answer', description: 'Publish it' }, { to: 'ask' }] },
    ...fields,
  }),
  messages: [
    { seq: 1, state: 'ask', turnId: 't1', at: '2026-11-24T00:00:00.000Z', message: { role: 'user', content: 'How many flights?' } },
    { seq: 2, state: 'ask', turnId: 't1', at: '2026-11-24T00:00:01.000Z', message: { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'execute_query', input: { sql: `select ${'a, '.repeat(60)}b` } }] } },
    { seq: 3, state: 'ask', turnId: 't1', at: '2026-11-24T00:00:01.500Z', message: { role: 'tool', results: [{ callId: 'c1', name: 'execute_query', output: longOutput }] } },
  ],
  turns: [{ id: 't1', kind: 'start', status: 'succeeded', usage, error: null, queuedAt: '2026-11-24T00:00:00.000Z' }],
  children: [view({ id: 'ses_child', workflow: 'lookup', status: 'succeeded', parentId: 'ses_1', dispatchId: 'dsp_7' })],
});

describe('cairn session arguments', () => {
  it('types --var values: true/false → boolean, integers and decimals → number, else text', () => {
    expect(parseVariables(['a=true', 'b=false', 'c=42', 'd=-0.5', 'e=1e3', 'f=x=y', 'g=', 'h=007'])).toEqual({ a: true, b: false, c: 42, d: -0.5, e: '1e3', f: 'x=y', g: '', h: 7 });
    for (const bad of [['novalue'], ['=v'], ['k=1', 'k=2']]) {
      const error = (() => { try { parseVariables(bad); } catch (e) { return e; } })();
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(2);
    }
  });

  it('builds the start body and refuses a missing --env or workflow with a usage error', () => {
    expect(startBody(['flights', 'flights-analyst'], { env: 'main', org: 'org_1', trigger: 'ask', message: 'hi', var: ['n=3'] }))
      .toEqual({ agent: 'flights', workflow: 'flights-analyst', environment: 'main', orgId: 'org_1', trigger: 'ask', message: 'hi', variables: { n: 3 } });
    expect(startBody(['a', 'w'], { env: 'main' })).toEqual({ agent: 'a', workflow: 'w', environment: 'main' });
    expect(() => startBody(['a', 'w'], {})).toThrow(/--env is required; usage: cairn session start/);
    expect(() => startBody(['a'], { env: 'main' })).toThrow(/^usage: cairn session start/);
    expect(() => startBody(['a', 'w', 'extra'], { env: 'main' })).toThrow(/unexpected argument "extra"/);
  });

  it('lists from the agent, environment or workflow route', () => {
    expect(listPath({ agent: 'flights' })).toBe('/api/agents/flights/sessions');
    expect(listPath({ agent: 'flights', env: 'main' })).toBe('/api/agents/flights/environments/main/sessions');
    expect(listPath({ agent: 'a/b', env: 'main', workflow: 'w' })).toBe('/api/agents/a%2Fb/environments/main/workflows/w/sessions');
    expect(() => listPath({})).toThrow(/--agent is required/);
    expect(() => listPath({ agent: 'a', workflow: 'w' })).toThrow(/--workflow needs --env/);
  });
});

describe('cairn session output', () => {
  it('ends start with the session id as the last word', () => {
    const text = formatStarted({ session: view({ id: 'ses_42' }), turnId: 't9' });
    expect(text.trim().split(/\s+/).pop()).toBe('ses_42');
    expect(text).toContain('status running, state review (turn t9)');
  });

  it('lists one line per session with cost in USD to 4 decimals', () => {
    const lines = formatList([view(), view({ id: 'ses_2', status: 'succeeded', state: 'done', usage: { ...usage, costUsd: 0 } })]).split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID\s+WORKFLOW\s+ENV\s+STATUS\s+STATE\s+COST \(USD\)\s+CREATED$/);
    expect(lines[1].split(/\s+/)).toEqual(['ses_1', 'flights-analyst', 'main', 'running', 'review', '0.0123', '2026-11-24T00:00:00.000Z']);
    expect(lines[2].split(/\s+/)).toContain('0.0000');
    expect(formatList([])).toBe('No sessions.');
  });

  it('shows status, decision options, trail, shortened tool calls and results, usage, cost and children', () => {
    const text = formatShow(detail());
    expect(text).toContain('status: awaiting_decision  state: review');
    expect(text).toContain('pending: a decision in review (cairn session decide ses_1 --to <state>):');
    expect(text).toMatch(/^ {2}--to answer {2}Publish it$/m);
    expect(text).toMatch(/^ {2}--to ask$/m);
    expect(text).toContain('review ← tool:advance, answer drafted\\u001B[2J');
    expect(text).not.toContain('\u001b');
    expect(text).toMatch(/^ {2}user: How many flights\?$/m);
    const call = text.split('\n').find((l) => l.includes('→ execute_query('))!;
    expect(call).toMatch(/^ {2}assistant → execute_query\(\{"sql":"select a, .*… \(\d+ chars\)\)$/);
    const result = text.split('\n').find((l) => l.includes('← execute_query'))!;
    expect(result).toContain(`${longOutput.slice(0, 200)}… (${longOutput.length} chars)`);
    expect(result).not.toContain(longOutput.slice(0, 201));
    expect(text).toContain('usage: 1200 input, 340 output, 100 cache-read, 0 cache-write tokens; 3 model call(s); cost $0.0123');
    expect(text).toMatch(/^ {2}dsp_7 {2}lookup {2}succeeded {2}ses_child$/m);
  });

  it('shows the reason of a wait for input and a failed session\'s error', () => {
    const text = formatShow({ ...detail({ status: 'failed', pending: { kind: 'input', reason: 'Which airport?', until: '2026-11-25T00:00:00.000Z' }, error: { code: 'budget_exceeded', message: 'The turn spent its budget.' } }), children: [] });
    expect(text).toContain('pending: input (cairn session reply ses_1 TEXT): Which airport? (until 2026-11-25T00:00:00.000Z)');
    expect(text).toContain('error: The turn spent its budget. (budget_exceeded)');
    expect(text).toContain('children: none');
  });
});

/** A loopback server answering the session routes' contract; records each request. */
let server: Server;
let url: string;
const requests: { method: string; path: string; body: unknown }[] = [];
let showsRunning = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      requests.push({ method: req.method!, path: req.url!, body: raw ? JSON.parse(raw) : undefined });
      const send = (status: number, body: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(body)); };
      if (req.method === 'POST' && req.url === '/api/sessions') return send(201, { session: view({ id: 'ses_new' }), turnId: 't1' });
      if (req.url === '/api/sessions/ses_1') return send(200, showsRunning-- > 0 ? { ...detail(), session: view() } : detail({ status: 'succeeded' }));
      if (req.url === '/api/sessions/ses_1/decide') return send(409, { error: { code: 'no_decision_pending', message: 'Session ses_1 has no decision pending.' } });
      if (req.url === '/api/orgs/org_2/agents') return send(200, { agents: [{ id: 'agt_9', slug: 'flights' }] });
      if (req.url === '/api/agents/agt_9/environments/main/sessions') return send(200, { sessions: [view({ id: 'ses_9' })] });
      if (req.url === '/api/sessions/ses_1/reply') return send(200, { turnId: 't2' });
      if (req.url === '/api/sessions/ses_1/cancel') return send(200, { session: view({ status: 'cancelled' }) });
      return send(404, { error: { code: 'not_found', message: `No route ${req.url}` } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('cairn session over HTTP', () => {
  const quiet = () => {};
  const io = { note: quiet };

  it('polls show --wait until the session is no longer running', async () => {
    showsRunning = 2;
    requests.length = 0;
    const timing = { intervalMs: 1, timeoutMs: 60_000 };
    const out = await runSession({ url }, ['show', 'ses_1'], { wait: true }, { ...io, timing });
    expect(requests.map((r) => r.path)).toEqual(['/api/sessions/ses_1', '/api/sessions/ses_1', '/api/sessions/ses_1']);
    expect(out.exitCode ?? 0).toBe(0);
    expect(out.human).toContain('status: succeeded');
  });

  it('lists the sessions of an agent named by its slug in the organization given with --org', async () => {
    requests.length = 0;
    const out = await runSession({ url }, ['list'], { agent: 'flights', env: 'main', org: 'org_2' }, io);
    expect(requests.map((r) => r.path)).toEqual(['/api/orgs/org_2/agents', '/api/agents/agt_9/environments/main/sessions']);
    expect(out.human.split('\n')[1]).toMatch(/^ses_9 /);
    await expect(runSession({ url }, ['list'], { agent: 'nope', org: 'org_2' }, io))
      .rejects.toThrow('organization org_2 has no agent "nope"; its agents: flights');
  });

  it('exits 1 saying so when --wait runs out of time', async () => {
    showsRunning = 1_000;
    const notes: string[] = [];
    const out = await runSession({ url }, ['show', 'ses_1'], { wait: true }, {
      note: (l) => notes.push(l), timing: { intervalMs: 1, timeoutMs: 0 },
    });
    expect(out.exitCode).toBe(1);
    expect(notes).toEqual(['session ses_1 is still running after 0 s; run cairn session show ses_1 --wait again, or cairn session cancel ses_1']);
  });

  it('sends reply and cancel, and gives a refused decision as exit 1 with the API\'s message', async () => {
    requests.length = 0;
    const replied = await runSession({ url }, ['reply', 'ses_1', 'JFK please'], {}, io);
    expect(replied.human).toBe('replied to session ses_1: turn t2 queued');
    const cancelled = await runSession({ url }, ['cancel', 'ses_1'], {}, io);
    expect(cancelled.human).toBe('session ses_1: status cancelled, state review');
    const refused = await runSession({ url }, ['decide', 'ses_1'], { to: 'answer', comment: 'ok' }, io)
      .catch((e: CliError) => e);
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as CliError).message).toBe('Session ses_1 has no decision pending. (no_decision_pending)');
    expect((refused as CliError).exitCode).toBe(1);
    expect(requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ['POST', '/api/sessions/ses_1/reply', { message: 'JFK please' }],
      ['POST', '/api/sessions/ses_1/cancel', {}],
      ['POST', '/api/sessions/ses_1/decide', { to: 'answer', comment: 'ok' }],
    ]);
  });

  it('sends a decision\'s typed fields from repeated --field, and refuses a --field that is not k=v', async () => {
    requests.length = 0;
    const options = { to: 'approve', field: ['amount=12.5', 'urgent=true', 'note=ok'] };
    await runSession({ url }, ['decide', 'ses_1'], options, io).catch(() => undefined);
    expect(requests.map((r) => r.body)).toEqual([{ to: 'approve', fields: { amount: 12.5, urgent: true, note: 'ok' } }]);
    const bad = await runSession({ url }, ['decide', 'ses_1'], { to: 'approve', field: ['amount'] }, io)
      .catch((e: CliError) => e);
    expect((bad as CliError).message).toContain('--field "amount" is not k=v');
    expect((bad as CliError).exitCode).toBe(2);
  });

  it('runs as the cairn process: repeated --var, the id as the last word, --json as the API answered', async () => {
    requests.length = 0;
    const main = join(import.meta.dirname, 'main.ts');
    const env = { PATH: process.env.PATH! };
    const run = await runProcess(bunBinary, [main, '--url', url, 'session', 'start', 'flights', 'flights-analyst', '--env', 'main', '--var', 'limit=5', '--var', 'strict=true', '--message', 'How many?'], { env });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.trim().split(/\s+/).pop()).toBe('ses_new');
    expect(requests[0].body).toEqual({ agent: 'flights', workflow: 'flights-analyst', environment: 'main', message: 'How many?', variables: { limit: 5, strict: true } });
    showsRunning = 0;
    const json = await runProcess(bunBinary, [main, '--url', url, '--json', 'session', 'show', 'ses_1'], { env });
    expect(json.status).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(detail({ status: 'succeeded' }));
    const refused = await runProcess(bunBinary, [main, '--url', url, 'session', 'decide', 'ses_1', '--to', 'answer'], { env });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toBe('cairn: Session ses_1 has no decision pending. (no_decision_pending)\n');
    const usageError = await runProcess(bunBinary, [main, '--url', url, 'session', 'reply', 'ses_1'], { env });
    expect(usageError.status).toBe(2);
  });
});

describe('shortened tool results', () => {
  it('show a multi-line result on one line', async () => {
    const { shorten } = await import('./session-format.ts');
    expect(shorten('# Semantic models (1)\n- flights: On-time\r\n  performance', 200)).toBe('# Semantic models (1) - flights: On-time performance');
  });
});
