/**
 * The all-in-one supervisor with real child processes: a child marked stopLast (the queue store) gets its SIGTERM
 * only after the others have exited, so a dispatcher still settling its jobs while it stops can reach it; and with
 * setpriv, a child ends when the supervising process is killed with SIGKILL instead of running on orphaned.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findProgram } from '../../core/adapters/worker/sandbox.ts';
import { supervise } from './supervisor.ts';

const dir = mkdtempSync(join(tmpdir(), 'cairn-supervisor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A node child that appends its tag to the ready file once it listens for SIGTERM, and on SIGTERM waits `delayMs`,
 * appends its tag to the log and exits.
 */
const child = (tag: string, delayMs: number, stopLast = false) => ({
  tag, command: process.execPath, env: { PATH: process.env.PATH }, stopLast,
  args: ['-e', `const fs = require('node:fs'); process.on('SIGTERM', () => setTimeout(() => {
    fs.appendFileSync(${JSON.stringify(join(dir, 'log'))}, '${tag}\\n'); process.exit(0); }, ${delayMs}));
    fs.appendFileSync(${JSON.stringify(join(dir, 'ready'))}, '${tag}\\n'); setInterval(() => {}, 1e6);`],
});

describe('supervise', () => {
  it('stops a stopLast child only after the others have exited', async () => {
    const supervisor = supervise([child('queue', 0, true), child('dispatcher', 500), child('api', 100)]);
    const readyFile = join(dir, 'ready');
    const ready = () => (existsSync(readyFile) ? readFileSync(readyFile, 'utf8').trim().split('\n').length : 0);
    while (ready() < 3) await new Promise((r) => setTimeout(r, 50));
    await supervisor.stop();
    const order = readFileSync(join(dir, 'log'), 'utf8').trim().split('\n');
    expect(order).toHaveLength(3);
    expect(order[2]).toBe('queue');
  });

  const setpriv = process.platform === 'linux' ? findProgram('setpriv', process.env.PATH) : undefined;
  it.skipIf(!setpriv)('with setpriv, ends every child when the supervising process is killed with SIGKILL', async () => {
    // A supervising process of its own (Bun, as the entrypoint runs), printing its child's pid once started.
    const script = join(dir, 'supervising.ts');
    writeFileSync(script, [
      `import { supervise } from ${JSON.stringify(join(import.meta.dirname, 'supervisor.ts'))};`,
      `const kids = supervise([{ tag: 'api', command: 'sleep', args: ['600'], env: {} }], { setpriv: ${
        JSON.stringify(setpriv)} });`,
      'setTimeout(function show() {',
      "  const pid = kids.pids().api; if (pid) console.log('child', pid); else setTimeout(show, 20);",
      '}, 20);',
    ].join('\n'));
    const bun = join(import.meta.dirname, '../../node_modules/.bin/bun');
    const parent = spawn(bun, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const childPid = await new Promise<number>((resolve) => {
      parent.stdout!.on('data', (chunk: Buffer) => {
        const found = /child (\d+)/.exec(String(chunk));
        if (found) resolve(Number(found[1]));
      });
    });
    // Running, not a zombie waiting for whoever adopted it to reap it (state Z in /proc/<pid>/stat).
    const alive = (pid: number) => {
      try {
        return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
      } catch {
        return false;
      }
    };
    expect(alive(childPid)).toBe(true);
    parent.kill('SIGKILL');
    while (alive(childPid)) await new Promise((r) => setTimeout(r, 50));
    expect(alive(childPid)).toBe(false);
  });
});
