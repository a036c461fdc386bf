/**
 * The worker's permission model, probed from inside real worker processes started by the launcher with
 * the worker's own flags: reading outside its directory, writing outside it, starting a process, a thread
 * or a native addon, and reaching the starting process's secrets are each refused, reported on the
 * channel and logged as `[worker] refused <operation> for <subject>`, never with a path or value.
 * Source: spec/platform-service.md § Rules 6, 8; § Deployment settings (a worker reads none);
 * § Operational log lines ([worker]).
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKER_ENVIRONMENT_VARIABLES } from '../../core/config/worker-environment.ts';
import { probesEntry, recordingBroker, repoRoot, roomyLimits, testLauncher } from '../fixtures/worker-launcher.ts';

const secret = 'test-master-key-value-0123456789';
const addon = join(repoRoot, 'node_modules/@duckdb/node-bindings-linux-x64/duckdb.node');
const outside = join(tmpdir(), `cairn-worker-probe-${process.pid}.txt`);

describe('worker permission model', () => {
  const { launcher, lines, ended } = testLauncher();
  /** Runs probe `task` and waits for its worker's end (its run resolves at the answer). */
  const probe = async (task: string, payload: unknown = null) => {
    lines.length = 0;
    const outcome = await launcher.run({ kind: 'turn', subject: `turn t-${task}`, task, payload, limits: roomyLimits, broker: recordingBroker().broker, entryFile: probesEntry });
    await ended(`turn t-${task}`);
    return outcome;
  };
  const refusedWith = (task: string, operation: string) => {
    expect(lines).toEqual([
      `[worker] refused ${operation} for turn t-${task}`,
      expect.stringMatching(new RegExp(`^\\[worker\\] ended turn worker \\d+ for turn t-${task} \\(failed\\)$`)),
    ]);
  };
  let before: string | undefined;
  beforeAll(() => {
    before = process.env.MASTER_KEY;
    process.env.MASTER_KEY = secret;
  });
  afterAll(() => {
    if (before === undefined) delete process.env.MASTER_KEY;
    else process.env.MASTER_KEY = before;
  });

  it.each([
    ['readOutside', 'FileSystemRead', null],
    ['readParentEnvironment', 'FileSystemRead', null],
    ['writeOutside', 'FileSystemWrite', { path: outside }],
    ['spawnProcess', 'ChildProcess', null],
    ['startThread', 'WorkerThreads', null],
    ['loadAddon', 'Addon', { path: addon }],
  ])('%s is refused (%s) and logged without a path', async (task, operation, payload) => {
    const outcome = await probe(task, payload);
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'error', code: 'worker_permission_refused' });
    if (outcome.ended !== 'failed') throw new Error('unreachable');
    expect(outcome.message).toMatch(new RegExp(`^the worker was refused ${operation}:`));
    refusedWith(task, operation);
    expect(lines.join('\n') + outcome.message).not.toMatch(/\/etc|\/proc|\/tmp|duckdb|environ/);
  });

  it('a write outside leaves nothing behind; the worker\'s own directory is writable and readable', async () => {
    await probe('writeOutside', { path: outside });
    expect(existsSync(outside)).toBe(false);
    expect(await probe('writeOwnDirectory')).toEqual({ ended: 'finished', result: 'mine' });
  });

  it('a refusal thrown outside the task (an uncaught exception) is reported too', async () => {
    const outcome = await probe('uncaughtRefusal');
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'error', code: 'worker_permission_refused' });
    refusedWith('uncaughtRefusal', 'FileSystemRead');
  });

  it('the environment\'s secrets are not in the worker: it holds exactly the allowlist, and the parent\'s environ is refused', async () => {
    expect(process.env.MASTER_KEY).toBe(secret);
    const outcome = await probe('environment');
    expect(outcome).toEqual({ ended: 'finished', result: [...WORKER_ENVIRONMENT_VARIABLES].sort() });
    const environ = await probe('readParentEnvironment');
    expect(JSON.stringify(environ)).not.toContain(secret);
    refusedWith('readParentEnvironment', 'FileSystemRead');
  });
});
