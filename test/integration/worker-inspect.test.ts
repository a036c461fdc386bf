/**
 * PLATFORM_WORKER_INSPECT=on with real worker processes: each worker starts with an inspector on a free
 * loopback port and without the permission model, and one `[worker] inspector …` line names the port
 * (a production boot refuses the setting: core/config/boot-rules.test.ts).
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_WORKER_INSPECT); § Rules 8.
 */
import { describe, expect, it } from 'vitest';
import { bundledWorkerProgram, createWorkerLauncher } from '../../core/adapters/worker/index.ts';
import { workerEnvironment } from '../../core/config/worker-environment.ts';
import { recordingBroker, repoRoot, roomyLimits, testSettings } from '../fixtures/worker-launcher.ts';

function inspectLauncher(inspect: boolean) {
  const lines: string[] = [];
  const launcher = createWorkerLauncher({
    program: bundledWorkerProgram({ appDir: repoRoot }), inspect,
    environment: (kind, memoryMb) => workerEnvironment(testSettings, { kind, memoryLimitMb: memoryMb }),
    slots: { turn: 1, call: 1 }, log: (line) => lines.push(line),
  });
  return { launcher, lines };
}

const inspectorLine = /^\[worker\] inspector of turn worker \d+ for turn t-inspect on 127\.0\.0\.1:(\d+) \(no permission model: PLATFORM_WORKER_INSPECT=on\)$/;

describe('PLATFORM_WORKER_INSPECT', () => {
  it('on: the worker runs without the permission model, with an inspector whose port is logged and answers', async () => {
    const { launcher, lines } = inspectLauncher(true);
    let targets: { webSocketDebuggerUrl?: string }[] = [];
    const outcome = await launcher.run({
      kind: 'turn', subject: 'turn t-inspect', task: 'hook', limits: roomyLimits,
      payload: { source: 'export default async () => platform.call("probe")' },
      broker: async () => {
        const port = inspectorLine.exec(lines.find((line) => inspectorLine.test(line)) ?? '')?.[1];
        targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
        return 'probed';
      },
    });
    expect(outcome).toEqual({ ended: 'finished', result: 'probed' });
    expect(targets[0]?.webSocketDebuggerUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\//);
    const facts = await launcher.run({ kind: 'turn', subject: 'turn t-inspect', task: 'sandbox', payload: null, limits: roomyLimits, broker: recordingBroker().broker });
    expect(facts).toMatchObject({ ended: 'finished', result: { permissionModel: false } });
    expect(lines.filter((line) => inspectorLine.test(line))).toHaveLength(2);
  });

  it('off: the same worker runs under the permission model and logs no inspector', async () => {
    const { launcher, lines } = inspectLauncher(false);
    const facts = await launcher.run({ kind: 'turn', subject: 'turn t-inspect', task: 'sandbox', payload: null, limits: roomyLimits, broker: recordingBroker().broker });
    expect(facts).toMatchObject({ ended: 'finished', result: { permissionModel: true, childProcess: false } });
    expect(lines.some((line) => line.includes('inspector'))).toBe(false);
  });
});
