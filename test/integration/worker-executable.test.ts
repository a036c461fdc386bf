/**
 * The compiled worker: scripts/lib/build-worker-executable.ts makes the Node single executable application
 * (the permission flags in its start arguments), and the launcher runs it as the product does: the
 * permission model is on inside it with nothing readable or writable beyond its own directory, its heap
 * limit follows the memory limit, hooks round-trip through the broker, a hook's allocations end it at the
 * memory limit, and it refuses a foreign environment.
 * Source: spec/platform-service.md § Rules 6–8; § Deployment settings (a worker reads none).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workerEnvironment } from '../../core/config/worker-environment.ts';
import { executableWorkerProgram } from '../../core/adapters/worker/index.ts';
import { recordingBroker, repoRoot, roomyLimits, testLauncher, testSettings } from '../fixtures/worker-launcher.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-worker-sea-'));
const executable = join(dir, 'worker');

describe('compiled worker (Node single executable application)', () => {
  beforeAll(() => {
    const built = spawnSync(join(repoRoot, 'node_modules/.bin/bun'), [join(repoRoot, 'scripts/lib/build-worker-executable.ts'), executable], { encoding: 'utf8' });
    expect(built.stderr).toBe('');
    expect(built.status).toBe(0);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const launch = (options: Parameters<typeof testLauncher>[0] = {}) => testLauncher({ ...options, program: executableWorkerProgram(executable) });

  it('runs under the permission model with its heap limit from the memory limit', async () => {
    const { launcher } = launch();
    const { broker } = recordingBroker();
    const small = await launcher.run({ kind: 'call', subject: 'call c-small', task: 'sandbox', payload: null, limits: { memoryMb: 256, wallTimeSeconds: 60 }, broker });
    const large = await launcher.run({ kind: 'call', subject: 'call c-large', task: 'sandbox', payload: null, limits: { memoryMb: 1024, wallTimeSeconds: 60 }, broker });
    expect(small).toMatchObject({ ended: 'finished', result: { permissionModel: true, readsRoot: false, writesRoot: false, childProcess: false, workerThreads: false } });
    if (small.ended !== 'finished' || large.ended !== 'finished') throw new Error('unreachable');
    const heap = (outcome: typeof small) => (outcome as { result: { heapLimitMb: number } }).result.heapLimitMb;
    expect(heap(large) - heap(small)).toBe(1024 - 256);
  });

  it('round-trips a hook through the broker and logs its end', async () => {
    const { launcher, lines, ended } = launch();
    const { broker, requests } = recordingBroker();
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-sea', task: 'hook', limits: roomyLimits, broker,
      payload: { source: 'export default async (input) => ({ got: await platform.call("tools.echo", input) })', input: { n: 1 } },
    });
    expect(outcome).toEqual({ ended: 'finished', result: { got: { op: 'tools.echo' } } });
    expect(requests).toEqual([{ op: 'tools.echo', args: { n: 1 } }]);
    await ended('turn t-sea'); // the run resolved at the answer; the end line follows the process's exit
    expect(lines).toEqual([expect.stringMatching(/^\[worker\] ended turn worker \d+ for turn t-sea \(finished\)$/)]);
  });

  it('a hook allocating without end is stopped at the worker memory limit', async () => {
    const { launcher } = launch();
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-sea-alloc', task: 'hook', limits: { memoryMb: 128, wallTimeSeconds: 120 }, broker: recordingBroker().broker,
      payload: { source: 'export default () => { const kept = []; for (;;) kept.push("x".repeat(1 << 20) + kept.length); }', timeoutMs: 600_000 },
    });
    expect(outcome).toEqual({ ended: 'failed', reason: 'exceeded a limit', limit: 'memory', message: 'the turn worker exceeded its memory limit (PLATFORM_WORKER_TURN_MEMORY_MB = 128 MiB)' });
  });

  it('refuses to start holding a variable beyond the allowlist', async () => {
    const { launcher } = launch({ environment: (kind, memoryMb) => ({ ...workerEnvironment(testSettings, { kind, memoryLimitMb: memoryMb }), QUEUE_URL: 'redis://secret@host' }) });
    const outcome = await launcher.run({ kind: 'call', subject: 'call c-env', task: 'echo', payload: 1, limits: roomyLimits, broker: recordingBroker().broker });
    expect(outcome).toMatchObject({ ended: 'failed', reason: 'refused to start' });
    expect(JSON.stringify(outcome)).toContain('QUEUE_URL');
    expect(JSON.stringify(outcome)).not.toContain('secret@host');
  });
});
