/**
 * A human state's `notify` (docs/decisions.md D26 § 3): `notify: {tool: <collection>/<tool>}` validates on the demo
 * agent's review state, and each mistake is reported at its file, line, column and key with what to do.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { notifyTargetOf } from './decision-notify.ts';
import { type AgentFile, validateAgentRepository } from './index.ts';

const demoRoot = resolve(import.meta.dirname, '../../scripts/demo/agent');
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
const demo: AgentFile[] = walk(demoRoot).map((p) => ({ path: relative(demoRoot, p), text: readFileSync(p, 'utf8') }));
const workflow = 'workflows/flights-analyst/workflow.yaml';

/** The demo with `lines` added before the line `at` of its workflow (the review state's instructions by default). */
function withLines(lines: string, at = '    instructions: A member reads the draft'): AgentFile[] {
  return demo.map((f) => {
    if (f.path !== workflow) return f;
    if (!f.text.includes(at)) throw new Error(`${workflow} does not contain ${at}`);
    return { path: f.path, text: f.text.replace(at, `${lines}\n${at}`) };
  });
}

/** The line of `needle` in the demo workflow (1-based), before any lines were added. */
const lineOf = (needle: string) =>
  demo.find((f) => f.path === workflow)!.text.split('\n').findIndex((l) => l.includes(needle)) + 1;

describe('notify of a human state', () => {
  it('accepts a collection tool, which names the collection and the tool', () => {
    expect(validateAgentRepository(withLines('    notify: { tool: mail/send_decision }')).problems).toEqual([]);
    expect(notifyTargetOf({ tool: 'mail/send_decision' })).toEqual({ collection: 'mail', tool: 'send_decision' });
    expect(notifyTargetOf({ tool: 'mail' })).toBeUndefined();
    expect(notifyTargetOf(undefined)).toBeUndefined();
  });

  const review = lineOf('    instructions: A member reads the draft');
  const cases = [
    {
      name: 'a tool that is not <collection>/<tool>',
      lines: '    notify: { tool: send-mail }',
      problem: { line: review, key: '/states/review/notify/tool' },
      message: /notify.tool "send-mail" is not <collection>\/<tool>/,
    },
    {
      name: 'both a tool and a connection',
      lines: '    notify: { tool: mail/send, connection: approvals }',
      problem: { line: review, column: 5, key: '/states/review/notify' },
      message: /exactly one of tool .* and connection/,
    },
    {
      name: 'an outgoing webhook connection, not served yet',
      lines: '    notify: { connection: approvals }',
      problem: { line: review, key: '/states/review/notify/connection' },
      message: /does not serve yet; use notify.tool/,
    },
    {
      name: 'an unknown key in notify',
      lines: '    notify: { tool: mail/send, to: ops }',
      problem: { line: review, key: '/states/review/notify/to' },
      message: /unknown key "to"/,
    },
  ];
  for (const c of cases) {
    it(`reports ${c.name} at its key`, () => {
      const problems = validateAgentRepository(withLines(c.lines)).problems;
      expect(problems).toHaveLength(1);
      expect(problems[0]).toMatchObject({ file: workflow, ...c.problem });
      expect(problems[0].message).toMatch(c.message);
    });
  }

  it('reports notify on an agent state at the key', () => {
    const problems = validateAgentRepository(withLines('    notify: { tool: mail/send }', '    on_error: failed'))
      .problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: workflow, column: 5, key: '/states/answer/notify' });
    expect(problems[0].message).toMatch(/notify applies only to a human state/);
  });
});
