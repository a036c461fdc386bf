/**
 * The worker launcher with real worker processes (Node under its permission model, the worker program
 * bundled from sources): the hook task round trip through the broker, the per-worker token, the
 * environment check, cancellation and slots.
 * Source: spec/platform-service.md § Rules 6–8; § Deployment settings (a worker reads none);
 * § Operational log lines ([worker]).
 */
import { describe, expect, it } from 'vitest';
import { executableWorkerProgram } from '../../core/adapters/worker/index.ts';
import { workerEnvironment } from '../../core/config/worker-environment.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import { probesEntry, rawChannelEntry, recordingBroker, roomyLimits, testLauncher, testSettings } from '../fixtures/worker-launcher.ts';

const hookSource = `export default async (input) => {
  const answer = await platform.call('tools.lookup', { city: input.city });
  let refused;
  try { await platform.call('tools.missing', {}); } catch (error) { refused = [error.name, error.code, error.message]; }
  return { answer, refused, doubled: input.n * 2 };
}`;

describe('worker launcher', () => {
  it('runs a hook in QuickJS whose platform.call goes through the broker, and logs how the worker ended', async () => {
    const { launcher, lines, ended } = testLauncher();
    const requests: unknown[] = [];
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-hook', task: 'hook', limits: roomyLimits,
      payload: { source: hookSource, input: { city: 'Oslo', n: 21 } },
      broker: async (op, args) => {
        requests.push({ op, args });
        if (op === 'tools.missing') throw new PlatformError('not_found', 'no tool tools.missing');
        return { temperature: 4 };
      },
    });
    expect(outcome).toEqual({ ended: 'finished', result: { answer: { temperature: 4 }, refused: ['PlatformError', 'not_found', 'no tool tools.missing'], doubled: 42 } });
    expect(requests).toEqual([{ op: 'tools.lookup', args: { city: 'Oslo' } }, { op: 'tools.missing', args: {} }]);
    await ended('turn t-hook'); // the run resolved at the answer; the end line follows the process's exit
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[worker\] ended turn worker \d+ for turn t-hook \(finished\)$/);
  });

  it('fails a hook whose script throws with hook_failed naming the script error, without a host stack', async () => {
    const { launcher, lines, ended } = testLauncher();
    const outcome = await launcher.run({
      kind: 'call', subject: 'call c-1', task: 'hook', limits: roomyLimits,
      payload: { source: 'export default (input) => input.missing.field', input: {} }, broker: recordingBroker().broker,
    });
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'error', code: 'hook_failed' });
    if (outcome.ended !== 'failed') throw new Error('unreachable');
    expect(outcome.message).toMatch(/^the hook failed: TypeError: cannot read property 'field' of undefined \(hook\.js:1:\d+\)$/);
    expect(outcome.message).not.toMatch(/node_modules|bins\/worker|\.cjs/);
    await ended('call c-1');
    expect(lines[0]).toMatch(/^\[worker\] ended call worker \d+ for call c-1 \(failed\)$/);
  });

  it('refuses a request with a wrong token and one sent after the worker answered, never calling the broker', async () => {
    const { launcher, lines, ended } = testLauncher();
    const { broker, requests } = recordingBroker();
    const outcome = await launcher.run({ kind: 'turn', subject: 'turn t-token', task: 'any', payload: null, limits: roomyLimits, broker, entryFile: rawChannelEntry });
    expect(outcome).toEqual({ ended: 'finished', result: { done: true } });
    // The run resolves at the answer; the request sent after it is read before the worker's end.
    await ended('turn t-token');
    expect(requests).toEqual([]);
    expect(lines.slice(0, 2)).toEqual(['[worker] refused a request with a wrong token for turn t-token', '[worker] refused a request after its end for turn t-token']);
    expect(lines[2]).toMatch(/^\[worker\] ended turn worker \d+ for turn t-token \(finished\)$/);
  });

  it('a worker whose environment holds anything beyond the allowlist refuses to start, naming the variable and not its value', async () => {
    const secret = 'mk-very-secret-value-123';
    const { launcher, lines } = testLauncher({ environment: (kind, memoryMb) => ({ ...workerEnvironment(testSettings, { kind, memoryLimitMb: memoryMb }), MASTER_KEY: secret }) });
    const outcome = await launcher.run({ kind: 'call', subject: 'call c-env', task: 'echo', payload: 1, limits: roomyLimits, broker: recordingBroker().broker });
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'refused to start' });
    if (outcome.ended !== 'failed') throw new Error('unreachable');
    expect(outcome.message).toMatch(/^the call worker refused to start: its environment holds MASTER_KEY;/);
    expect(JSON.stringify(outcome) + lines.join('\n')).not.toContain(secret);
    expect(lines).toEqual([expect.stringMatching(/^\[worker\] ended call worker \d+ for call c-env \(refused to start\)$/)]);
  });

  it('a cancelled run ends its worker (SIGTERM) with the outcome signalled', async () => {
    const { launcher, lines } = testLauncher();
    const controller = new AbortController();
    const requests: string[] = [];
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-cancel', task: 'hook', limits: roomyLimits, signal: controller.signal,
      payload: { source: 'export default async () => { await platform.call("started"); return await platform.call("never"); }' },
      broker: async (op) => {
        requests.push(op);
        if (op === 'started') return null;
        controller.abort();
        return new Promise(() => undefined);
      },
    });
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'signalled', message: 'the turn worker was stopped: its run was cancelled' });
    expect(requests).toEqual(['started', 'never']);
    expect(lines).toEqual([expect.stringMatching(/^\[worker\] ended turn worker \d+ for turn t-cancel \(signalled\)$/)]);
  });

  it('runs at most the kind\'s slots at once; a further run waits, then runs', async () => {
    const { launcher } = testLauncher({ slots: { turn: 1, call: 1 } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const first = launcher.run({
      kind: 'turn', subject: 'turn t-first', task: 'hook', limits: roomyLimits,
      payload: { source: 'export default async () => platform.call("hold")' },
      broker: async () => (entered(), await held, 'first'),
    });
    await inside;
    const second = launcher.run({ kind: 'turn', subject: 'turn t-second', task: 'echo', payload: 'second', limits: roomyLimits, broker: recordingBroker().broker });
    const call = launcher.run({ kind: 'call', subject: 'call c-free', task: 'echo', payload: 'call', limits: roomyLimits, broker: recordingBroker().broker });
    expect(await call).toEqual({ ended: 'finished', result: 'call' });
    expect(launcher.slots.usage('turn')).toEqual({ running: 1, waiting: 1 });
    release();
    expect(await first).toEqual({ ended: 'finished', result: 'first' });
    expect(await second).toEqual({ ended: 'finished', result: 'second' });
    // Its slot is given back once its worker has ended (the run resolved at its answer): a reservation gets it.
    (await launcher.slots.reserve('turn'))?.release();
    expect(launcher.slots.usage('turn')).toEqual({ running: 0, waiting: 0 });
  });

  it.each([
    ['exitWithoutAnswer', 'the turn worker ended (exit code 3) without answering'],
    ['garbageOnChannel', 'the turn worker wrote something that is not a channel message'],
  ])('a worker that %s lost its channel', async (task, message) => {
    const { launcher, lines } = testLauncher();
    const outcome = await launcher.run({ kind: 'turn', subject: `turn t-${task}`, task, payload: null, limits: roomyLimits, broker: recordingBroker().broker, entryFile: probesEntry });
    expect(outcome).toEqual({ ended: 'failed', reason: 'lost its channel', message });
    expect(lines).toEqual([expect.stringMatching(new RegExp(`^\\[worker\\] ended turn worker \\d+ for turn t-${task} \\(lost its channel\\)$`))]);
  });

  it('a worker program that cannot be started ends refused to start', async () => {
    const { launcher, lines } = testLauncher({ program: executableWorkerProgram('/nonexistent/cairn/worker') });
    const outcome = await launcher.run({ kind: 'call', subject: 'call c-missing', task: 'echo', payload: 1, limits: roomyLimits, broker: recordingBroker().broker });
    expect(outcome).toEqual({ ended: 'failed', reason: 'refused to start', message: 'the call worker could not start (ENOENT)' });
    expect(lines).toEqual(['[worker] ended call worker (not started) for call c-missing (refused to start)']);
  });
});
