/**
 * `cairn session …` as a real process against the real platform: the API (bins/api/main.ts with dev-user
 * sign-in, SQLite, the file object store, a real Redis as the turn queue) and a dispatcher (bins/dispatcher)
 * on the same stores, whose turns call the scripted model server. The demo agent is imported and published
 * with `cairn agent import`; a session is started with typed `--var` values (its id taken as the last word),
 * waits for input, is replied to, parks for a decision, is decided and ends succeeded; `show` prints its
 * pending wait and decision options, trail, messages, usage and cost; a decision when none is pending and a
 * second decision are refused (exit 1 with the API's message); another session is cancelled.
 * Source: docs/decisions.md D7 § Operators.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { bunPath, repoRoot } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';
import { runProcess } from '../helpers/run-process.ts';
import { startScriptedModelServer, type ScriptedModelServer, type ScriptedTurn, scriptedModels } from '../helpers/scripted-model-server.ts';

const script: ScriptedTurn[] = [
  { text: 'Which period do you mean?', toolCalls: [{ name: 'platform_wait', arguments: { reason: 'Which period?' } }] },
  { text: 'American had the most cancellations: 4,321.', toolCalls: [{ name: 'platform_set_variables', arguments: { variables: { answer: 'AA 4321' } } }, { name: 'platform_advance', arguments: { to: 'review', reason: 'The answer is written.' } }] },
  { text: 'Which airline?', toolCalls: [{ name: 'platform_wait', arguments: { reason: 'Which airline?' } }] },
];

let redis: RunningRedis;
let model: ScriptedModelServer;
let api: RunningApi;
let dispatcher: ChildProcess;
let dispatcherOutput = '';
/** Runs cairn without blocking this process, which serves the scripted model the dispatcher's turns call. */
const cairn = (...args: string[]) => runProcess(bunPath, [join(repoRoot, 'bins/cairn/main.ts'), '--url', api.url, ...args], { env: { PATH: process.env.PATH! } });

/** The dispatcher on the API's stores (the same environment as test/helpers/api-process.ts gives the API). */
async function startDispatcher(config: string): Promise<ChildProcess> {
  const dir = dirname(api.docdbPath);
  const child = spawn(bunPath, [join(repoRoot, 'bins/dispatcher/main.ts')], {
    cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH, HOME: dir, NODE_ENV: 'development', DOCDB_URI: `sqlite:${api.docdbPath}`, OBJSTORE_ENDPOINT: `file://${dir}/objects`,
      OBJSTORE_BUCKET: 'cairn', QUEUE_URL: redis.url, PLATFORM_SCRATCH_DIR: join(dir, 'scratch'), PLATFORM_CONFIG: config,
    },
  });
  for (const stream of [child.stdout!, child.stderr!]) stream.on('data', (chunk: Buffer) => { dispatcherOutput += chunk.toString(); });
  for (let i = 0; i < 300 && !dispatcherOutput.includes('dispatcher running'); i += 1) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!dispatcherOutput.includes('dispatcher running: queue')) throw new Error(`The dispatcher did not start consuming turns:\n${dispatcherOutput}`);
  return child;
}

beforeAll(async () => {
  redis = await startRedis();
  model = await startScriptedModelServer(script);
  const config = JSON.stringify({ models: scriptedModels(model, { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 }) });
  api = await startApi(redis.url, { PLATFORM_CONFIG: config });
  dispatcher = await startDispatcher(config);
  const imported = await cairn('agent', 'import', join(repoRoot, 'scripts/demo/agent'), '--agent', 'flights-analyst', '--publish');
  if (imported.status !== 0) throw new Error(`cairn agent import failed: ${imported.stderr}${imported.stdout}`);
}, 180_000);

afterAll(async () => {
  if (dispatcher && dispatcher.exitCode === null) {
    const exited = new Promise((r) => dispatcher.once('exit', r));
    dispatcher.kill('SIGTERM');
    await exited;
  }
  await api?.stop();
  await model?.close();
  await redis?.stop();
});

/** `cairn session show <id> --wait`, failing with the dispatcher's output when it did not settle. */
async function waited(id: string): Promise<string> {
  const run = await cairn('session', 'show', id, '--wait');
  expect(run.status, `${run.stderr}\n${dispatcherOutput.slice(-3000)}`).toBe(0);
  return run.stdout;
}

describe('cairn session against the API and a dispatcher', () => {
  let id: string;

  it('starts a session with typed --var values and prints its id as the last word', async () => {
    const run = await cairn('session', 'start', 'flights-analyst', 'flights-analyst', '--env', 'main', '--trigger', 'chat', '--message', 'Which airline had the most cancelled flights?', '--var', 'year=2001', '--var', 'strict=true', '--var', 'carrier=AA');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^started flights-analyst on main: status running, state answer \(turn \S+\)$/m);
    id = run.stdout.trim().split(/\s+/).pop()!;
    const shown = await (await fetch(`${api.url}/api/sessions/${id}`)).json() as { session: { variables: Record<string, unknown> } };
    expect(shown.session.variables).toMatchObject({ year: 2001, strict: true, carrier: 'AA' });
  });

  it('shows the wait for input with the messages so far, and refuses a decision while none is pending', async () => {
    const text = await waited(id);
    expect(text).toContain('status: awaiting_input  state: answer');
    expect(text).toContain(`pending: input (cairn session reply ${id} TEXT): Which period?`);
    expect(text).toMatch(/^ {2}user: Which airline had the most cancelled flights\?$/m);
    expect(text).toMatch(/^ {2}assistant: Which period do you mean\?$/m);
    expect(text).toMatch(/^ {2}assistant → platform_wait\(\{"reason":"Which period\?"\}\)$/m);
    const decided = await cairn('session', 'decide', id, '--to', 'done');
    expect(decided.status).toBe(1);
    expect(decided.stderr).toMatch(/^cairn: .+ \(no_decision_pending\)\n$/);
  });

  it('lists the session by agent, environment and workflow', async () => {
    for (const scope of [[], ['--env', 'main'], ['--env', 'main', '--workflow', 'flights-analyst']]) {
      const run = await cairn('session', 'list', '--agent', 'flights-analyst', ...scope);
      expect(run.status, run.stderr).toBe(0);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^ID\s+WORKFLOW\s+ENV\s+STATUS\s+STATE\s+COST \(USD\)\s+CREATED$/);
      expect(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 5))).toEqual([[id, 'flights-analyst', 'main', 'awaiting_input', 'answer']]);
      expect(lines[1].split(/\s+/)[5]).toMatch(/^\d+\.\d{4}$/);
    }
    expect((await cairn('session', 'list', '--agent', 'flights-analyst', '--env', 'nope')).stdout.trim()).toBe('No sessions.');
  });

  it('takes a reply, parks for a decision with its options, and ends succeeded once decided', async () => {
    const replied = await cairn('session', 'reply', id, 'All of 2001.');
    expect(replied.status, replied.stderr).toBe(0);
    expect(replied.stdout.trim()).toMatch(new RegExp(`^replied to session ${id}: turn \\S+ queued$`));
    const parked = await waited(id);
    expect(parked).toContain('status: awaiting_decision  state: review');
    expect(parked).toMatch(/^ {2}--to done {2}Approve the answer as written\.$/m);
    expect(parked).toMatch(/^ {2}--to answer {2}Send it back/m);
    const decided = await cairn('session', 'decide', id, '--to', 'done', '--comment', 'Looks right.');
    expect(decided.status, decided.stderr).toBe(0);
    const done = await waited(id);
    expect(done).toContain('status: succeeded  state: done');
    const trail = done.split('\n').map((l) => /^ {2}\d{4}-\S+ {2}(\S+) ← ([^,\s]+)/.exec(l)).filter((m) => m !== null).map((m) => `${m[1]} ← ${m[2]}`);
    expect(trail).toEqual(['answer ← start', 'review ← advance', 'done ← decision']);
    expect(done).toMatch(/^usage: 20 input, 10 output, 0 cache-read, 0 cache-write tokens; 2 model call\(s\); cost \$0\.0002$/m);
    const again = await cairn('session', 'decide', id, '--to', 'answer');
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/^cairn: .+ \(no_decision_pending\)\n$/);
  });

  it('cancels a waiting session, and --json gives the API\'s answer', async () => {
    const other = (await cairn('session', 'start', 'flights-analyst', 'flights-analyst', '--env', 'main', '--message', 'How many?')).stdout.trim().split(/\s+/).pop()!;
    expect(await waited(other)).toContain('status: awaiting_input');
    const cancelled = await cairn('session', 'cancel', other);
    expect(cancelled.status, cancelled.stderr).toBe(0);
    expect(cancelled.stdout.trim()).toBe(`session ${other}: status cancelled, state answer`);
    const json = await cairn('--json', 'session', 'show', other);
    expect(json.status, json.stderr).toBe(0);
    const body = JSON.parse(json.stdout) as { session: { id: string; status: string }; messages: { message: { role: string } }[]; children: unknown[] };
    expect(body.session).toMatchObject({ id: other, status: 'cancelled' });
    expect(body.messages.map((m) => m.message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(body.children).toEqual([]);
  });

  it('refuses usage errors with exit 2 and an unknown session with exit 1', async () => {
    expect((await cairn('session', 'start', 'flights-analyst', 'flights-analyst')).status).toBe(2);
    expect((await cairn('session', 'list')).status).toBe(2);
    expect((await cairn('session', 'frobnicate')).status).toBe(2);
    const missing = await cairn('session', 'show', 'no-such-session');
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^cairn: .+ \(not_found\)\n$/);
  });
});
