/**
 * Runs a process without blocking the test's event loop (so servers the test hosts keep answering)
 * and collects its output.
 */
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
/** The Bun binary of the repository's dev dependencies. */
export const bunBinary = join(root, 'node_modules', '.bin', 'bun');

/** Exit status and output of a finished process. */
export interface ProcessResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command args` in the repository root (or `options.cwd`) with `options.env` (default: this process's). */
export function runProcess(command: string, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<ProcessResult> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', fail);
    child.on('close', (status) => done({ status, stdout, stderr }));
  });
}

/** Runs Bun with `args` and parses the JSON of the last line it prints. @throws Error with stderr when Bun fails */
export async function runBunJson(args: string[]): Promise<Record<string, unknown>> {
  const result = await runProcess(bunBinary, args);
  if (result.status !== 0) throw new Error(`bun exited with ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
}
