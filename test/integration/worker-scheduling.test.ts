/**
 * Workers keep their launcher's CPU priority where the kernel groups processes by session (autogroup): a worker
 * started without a controlling terminal stays in its launcher's session, so in its scheduling group and at its
 * niceness; with a terminal it is cut off from it in a session of its own. Driven with a real launcher, bubblewrap
 * and a worker that sleeps until aborted; the processes' sessions and groups are read from /proc.
 * Source: spec/platform-service.md § Limits; core/adapters/runtime/process-scheduling.ts.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autogroupOf, hasControllingTerminal } from '../../core/adapters/runtime/process-scheduling.ts';
import { childrenOf } from '../../core/adapters/runtime/process-memory.ts';
import { probesEntry, recordingBroker, repoRoot, roomyLimits, testLauncher } from '../fixtures/worker-launcher.ts';

const bun = join(repoRoot, 'node_modules/.bin/bun');

/** The session id of `pid` (field 6 of /proc/<pid>/stat, read after the command name). */
const sessionOf = (pid: number | 'self') =>
  Number(readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ')[3]);

/** Every descendant of `pid`, nearest first. */
function descendants(pid: number): number[] {
  const found: number[] = [];
  for (let queue = childrenOf(pid); queue.length > 0;) {
    const next = queue.shift()!;
    found.push(next);
    queue.push(...childrenOf(next));
  }
  return found;
}

/**
 * Whether `pid` is the worker program itself, not one of bubblewrap's two processes (Node names its main thread
 * `node` or `MainThread` by version, so the test goes by what it is not).
 */
const runsNode = (pid: number) => {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'bwrap';
  } catch {
    return false;
  }
};

describe('hasControllingTerminal', () => {
  it('reads tty_nr from /proc/self/stat, after a command name holding spaces and parentheses', () => {
    expect(hasControllingTerminal('12 (a b) c) S 1 12 12 0 -1 4194560')).toBe(false);
    expect(hasControllingTerminal('12 (bun) S 1 12 12 34816 12 4194560')).toBe(true);
    expect(hasControllingTerminal('garbage')).toBe(true);
  });

  it.skipIf(!existsSync('/usr/bin/script') || !existsSync('/usr/bin/setsid'))(
    'is true under a pseudo-terminal (script) and false in a new session without one (setsid)',
    () => {
      const program = `import { hasControllingTerminal as h } from '${repoRoot}/core/adapters/runtime/process-scheduling.ts';`
        + 'console.log("terminal:" + h())';
      const withTerminal = spawnSync('/usr/bin/script', ['-qec', `${bun} -e "${program.replaceAll('"', '\\"')}"`,
        '/dev/null'], { encoding: 'utf8' });
      expect(withTerminal.stdout).toContain('terminal:true');
      const without = spawnSync('/usr/bin/setsid', ['-w', bun, '-e', program], { encoding: 'utf8' });
      expect(without.stdout).toContain('terminal:false');
    },
  );
});

describe('a worker and its launcher\'s scheduling group', () => {
  const { launcher } = testLauncher();

  it('stays in the launcher\'s session and group without a terminal, or gets its own with one', async () => {
    expect(await launcher.sandbox()).toMatchObject({ mode: 'namespaces' });
    const stop = new AbortController();
    let started = 0;
    const run = launcher.run({
      kind: 'turn', subject: 'turn t-sleep', task: 'sleep', payload: null, limits: roomyLimits,
      broker: recordingBroker().broker, entryFile: probesEntry, signal: stop.signal,
      onStarted: (pid: number) => (started = pid),
    });
    let ended: unknown;
    void run.then((outcome) => (ended = outcome));
    let worker: number | undefined;
    // Under a full suite the worker's bundle and start may take seconds: wait up to 60 s, or until the run ends.
    for (const deadline = Date.now() + 60_000; worker === undefined && ended === undefined && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      worker = started ? descendants(started).find(runsNode) : undefined;
    }
    try {
      expect(worker, `the worker's Node process under bubblewrap (run ended: ${JSON.stringify(ended)})`).toBeDefined();
      const own = autogroupOf('self');
      if (hasControllingTerminal()) {
        expect(sessionOf(worker!)).not.toBe(sessionOf('self'));
        if (own) expect(autogroupOf(worker!)?.group).not.toBe(own.group);
      } else {
        expect(sessionOf(worker!)).toBe(sessionOf('self'));
        if (own) expect(autogroupOf(worker!)).toEqual(own);
      }
    } finally {
      stop.abort();
      expect(await run).toMatchObject({ ended: 'failed', reason: 'signalled' });
    }
  }, 90_000);
});
