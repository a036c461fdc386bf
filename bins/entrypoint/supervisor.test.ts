/**
 * The all-in-one supervisor's stop with real child processes: a child marked stopLast (the queue store) gets its
 * SIGTERM only after the others have exited, so a dispatcher still settling its jobs while it stops can reach it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
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
});
