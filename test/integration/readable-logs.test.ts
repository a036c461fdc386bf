/**
 * Logs read well at a terminal and stay JSON elsewhere: a process whose stdout is a terminal (a pseudo-terminal from
 * util-linux `script`) prints its pino lines through pino-pretty (time, level, name, message, fields; secrets still
 * redacted), and the all-in-one supervisor shows its children's JSON lines the same way; with stdout a pipe both stay
 * JSON lines. Run on Bun, as the product's processes are.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bunPath, repoRoot } from '../helpers/product.ts';

const logger = join(repoRoot, 'core/adapters/log/pino-logger.ts');
const supervisor = join(repoRoot, 'bins/entrypoint/supervisor.ts');
const logProgram = `import { createPinoLogger } from ${JSON.stringify(logger)};
createPinoLogger({ name: 'probe' }).info({ turn: 't1', token: 'sk-secret-value' }, 'hello there');`;
const relayProgram = `import { tagged } from ${JSON.stringify(supervisor)};
const record = { level: 40, time: Date.now(), pid: 7, hostname: 'h', name: 'api', msg: 'slow answer', ms: 12 };
tagged('api', JSON.stringify(record));
tagged('api', 'a plain line');`;

/** Runs `program` on Bun with stdout a terminal (`script`) or a pipe; returns its output without terminal colours. */
function run(program: string, terminal: boolean): string {
  const command = [bunPath, '-e', program];
  const result = terminal
    ? spawnSync('script', ['-qec', command.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' '), '/dev/null'],
      { encoding: 'utf8', env: { PATH: process.env.PATH, TERM: 'xterm' } })
    : spawnSync(command[0], command.slice(1), { encoding: 'utf8', env: { PATH: process.env.PATH } });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.replace(/\u001b\[[0-9;]*m/g, '').replace(/\r/g, '');
}

describe('log lines', () => {
  it('are readable at a terminal, with secrets redacted', () => {
    const out = run(logProgram, true).trim();
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(probe\): hello there \{.*"turn":"t1".*\}$/);
    expect(out).toContain('"token":"[redacted]"');
    expect(out).not.toContain('sk-secret-value');
  });

  it('stay JSON lines when stdout is not a terminal', () => {
    const line = JSON.parse(run(logProgram, false).trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, name: 'probe', msg: 'hello there', turn: 't1', token: '[redacted]' });
  });

  it("are relayed readable by the all-in-one supervisor at a terminal, other lines as they are", () => {
    const lines = run(relayProgram, true).trim().split('\n');
    expect(lines[0]).toMatch(/^\[api\] \[\d\d:\d\d:\d\d\.\d{3}\] WARN \(api\): slow answer \{"ms":12\}$/);
    expect(lines[1]).toBe('[api] a plain line');
  });

  it('are relayed as JSON by the supervisor when stdout is not a terminal', () => {
    const lines = run(relayProgram, false).trim().split('\n');
    expect(lines[0]).toMatch(/^\[api\] \{"level":40,/);
    expect(lines[1]).toBe('[api] a plain line');
  });
});
