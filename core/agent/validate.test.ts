/**
 * The strict validator of the agent repository format: the demo agent validates, and each broken copy
 * gives exactly the expected problem with its file, line, column and key.
 * Source: docs/agent-format.md; spec/platform-service.md § Trigger declarations, § Limits, § Errors.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AgentFile, validateAgentRepository } from './index.ts';

const demoRoot = resolve(import.meta.dirname, '../../scripts/demo/agent');
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
const demo: AgentFile[] = walk(demoRoot).map((p) => ({ path: relative(demoRoot, p), text: readFileSync(p, 'utf8') }));

const workflow = 'workflows/flights-analyst/workflow.yaml';
const testCase = 'workflows/flights-analyst/tests/cancellations.test.yaml';
const skill = 'skills/sql-over-semantic-models/SKILL.md';

/** The demo with `from` replaced by `to` in `file` (which must contain it), or with a file added. */
function broken(file: string, from: string | undefined, to: string): AgentFile[] {
  const existing = demo.find((f) => f.path === file);
  if (!existing || from === undefined) return [...demo.filter((f) => f.path !== file), { path: file, text: to }];
  if (!existing.text.includes(from)) throw new Error(`${file} does not contain ${from}`);
  return demo.map((f) => (f.path === file ? { path: file, text: f.text.replace(from, to) } : f));
}

const secondWorkflow = (triggers: string) => `title: Second\nstates:\n  start:\n    triggers:\n${triggers}\n`;

describe('validateAgentRepository', () => {
  it('accepts the demo agent and counts what it declares', () => {
    const result = validateAgentRepository(demo);
    expect(result.problems).toEqual([]);
    expect(result).toMatchObject({ ok: true, counts: { workflows: 2, states: 10, triggers: 5, skills: 1, tests: 2 } });
  });

  const cases: {
    name: string;
    files: AgentFile[];
    problem: { file: string; line: number; column: number; key: string };
    message: RegExp;
  }[] = [
    {
      name: 'an unknown key at the root',
      files: broken(workflow, 'title: Ask', 'titel: oops\ntitle: Ask'),
      problem: { file: workflow, line: 1, column: 1, key: '/titel' },
      message: /unknown key "titel"; allowed keys here: title, instructions/,
    },
    {
      name: 'an unknown key in a state',
      files: broken(workflow, '    title: Approve the answer', '    title: Approve the answer\n    approvers: [ops]'),
      problem: { file: workflow, line: 44, column: 5, key: '/states/review/approvers' },
      message: /unknown key "approvers".*on_error/,
    },
    {
      name: 'an unknown key in a trigger',
      files: broken(workflow, '        examples:', '        greeting: hi\n        examples:'),
      problem: { file: workflow, line: 23, column: 9, key: '/states/answer/triggers/chat/greeting' },
      message: /unknown key "greeting"; allowed keys here: type, session, examples, connection/,
    },
    {
      name: 'a state name that is not a slug',
      files: broken(workflow, '  failed:\n', '  Extra_State:\n    triggers:\n      manual: {}\n  failed:\n'),
      problem: { file: workflow, line: 53, column: 3, key: '/states/Extra_State' },
      message: /state name "Extra_State" is not a slug; rename it/,
    },
    {
      name: 'a transition to a missing state',
      files: broken(workflow, '- to: answer', '- to: answers'),
      problem: { file: workflow, line: 49, column: 13, key: '/states/review/transitions/1/to' },
      message: /"answers", which is not a state of this workflow; use one of: answer, review, done, failed/,
    },
    {
      name: 'a human state without transitions',
      files: broken(
        workflow,
        '  done:\n    title: Answer approved',
        '  done:\n    title: Answer approved\n    type: human',
      ),
      problem: { file: workflow, line: 51, column: 3, key: '/states/done' },
      message: /human state "done" has no transitions.*add transitions/,
    },
    {
      name: 'an agent description over 500 characters',
      files: broken('AGENTS.md', 'description: Answers', `description: ${'x'.repeat(480)} Answers`),
      problem: { file: 'AGENTS.md', line: 3, column: 14, key: '/description' },
      message: /is \d+ characters long; at most 500 are allowed: shorten it/,
    },
    {
      name: 'more than six chat examples',
      files: broken(
        workflow,
        '          - Which airports',
        '          - a\n          - b\n          - c\n          - d\n          - Which airports',
      ),
      problem: { file: workflow, line: 24, column: 11, key: '/states/answer/triggers/chat/examples' },
      message: /lists 7 entries; at most 6 are allowed: remove 1/,
    },
    {
      name: 'a file in mcp requires',
      files: broken(
        workflow,
        '      chat:\n',
        '      ask:\n        type: mcp\n        requires:\n          - name: report\n            type: file\n ' +
          '     chat:\n',
      ),
      problem: { file: workflow, line: 26, column: 19, key: '/states/answer/triggers/ask/requires/0/type' },
      message: /an mcp trigger cannot take a file/,
    },
    {
      name: 'a bad cron expression',
      files: broken(
        workflow,
        '      chat:\n',
        '      nightly:\n        type: schedule\n        cron: "61 * * * *"\n      chat:\n',
      ),
      problem: { file: workflow, line: 24, column: 15, key: '/states/answer/triggers/nightly/cron' },
      message: /"61 \* \* \* \*" is not a valid cron expression \(Invalid value for minute: 61\)/,
    },
    {
      name: 'a multitask value that is not a strategy',
      files: broken(workflow, '        connection: chat\n', '        connection: chat\n        multitask: queue\n'),
      problem: { file: workflow, line: 28, column: 20, key: '/states/answer/triggers/chat/multitask' },
      message: /"queue" is not allowed here; use one of: reject, enqueue, interrupt, rollback/,
    },
    {
      name: 'multitask on a trigger other than chat',
      files: [...demo, {
        path: 'workflows/second/workflow.yaml',
        text: secondWorkflow('      inbox:\n        type: webhook\n        multitask: interrupt'),
      }],
      problem: {
        file: 'workflows/second/workflow.yaml',
        line: 7,
        column: 9,
        key: '/states/start/triggers/inbox/multitask',
      },
      message: /^only chat triggers take multitask .*remove it from this webhook trigger$/,
    },
    {
      name: 'a duplicate trigger id',
      files: [...demo, { path: 'workflows/second/workflow.yaml', text: secondWorkflow('      chat: {}') }],
      problem: { file: 'workflows/second/workflow.yaml', line: 5, column: 7, key: '/states/start/triggers/chat' },
      message: /trigger id "chat" is already declared in workflows\/flights-analyst\/workflow.yaml \(state answer\)/,
    },
    {
      name: 'a completion naming a missing workflow',
      files: [...demo, {
        path: 'workflows/second/workflow.yaml',
        text: secondWorkflow('      after-analyst:\n        type: completion\n        workflow: flight-analyst'),
      }],
      problem: {
        file: 'workflows/second/workflow.yaml',
        line: 7,
        column: 19,
        key: '/states/start/triggers/after-analyst/workflow',
      },
      message: /workflow "flight-analyst" does not exist in this agent; use one of: flights-analyst/,
    },
    {
      name: 'a skill whose name is not its folder',
      files: broken(skill, 'name: sql-over-semantic-models', 'name: sql-helper'),
      problem: { file: skill, line: 2, column: 7, key: '/name' },
      message: /name "sql-helper" differs from the folder "sql-over-semantic-models"/,
    },
    {
      name: 'a YAML syntax error',
      files: broken(workflow, '    title: Answer approved', '    title: [Answer approved'),
      problem: { file: workflow, line: 53, column: 3, key: '/' },
      message: /^YAML syntax error: .*fix the YAML at this line/,
    },
    {
      name: 'an unknown file in a workflow folder',
      files: [...demo, { path: 'workflows/flights-analyst/notes.txt', text: 'x' }],
      problem: { file: 'workflows/flights-analyst/notes.txt', line: 1, column: 1, key: '/' },
      message: /holds only workflow.yaml, WORKFLOW.md, hooks\/\*.js and tests\/\*.test.yaml/,
    },
    {
      name: 'a workflow folder without workflow.yaml',
      files: [...demo, { path: 'workflows/empty/WORKFLOW.md', text: 'prose' }],
      problem: { file: 'workflows/empty/', line: 1, column: 1, key: '/' },
      message: /workflows\/empty\/ has no workflow.yaml/,
    },
    {
      name: 'a hook script that does not exist',
      files: broken(workflow, '    budget:', '    before:\n      - script: hooks/check.js\n    budget:'),
      problem: { file: workflow, line: 36, column: 17, key: '/states/answer/before/0/script' },
      message: /hook script "hooks\/check.js" does not exist; add workflows\/flights-analyst\/hooks\/check.js/,
    },
    {
      name: 'on_error naming a missing state',
      files: broken(workflow, 'on_error: failed', 'on_error: broken').map((f) =>
        f.path === workflow ? { ...f, text: f.text.replace('  failed:\n    title: Could not answer\n', '') } : f
      ),
      problem: { file: workflow, line: 38, column: 15, key: '/states/answer/on_error' },
      message: /on_error names "broken"/,
    },
    {
      name: 'a test case deciding for a missing state',
      files: broken(testCase, 'to: done', 'to: approved'),
      problem: { file: testCase, line: 18, column: 11, key: '/steps/4/decide/to' },
      message: /decision to "approved", which is not a state of workflow "flights-analyst"/,
    },
    {
      name: 'a test step with two keys',
      files: broken(testCase, '  - succeeded: true', '  - succeeded: true\n    parked: input'),
      problem: { file: testCase, line: 21, column: 5, key: '/steps/6' },
      message: /a step holds exactly one action or assertion; found succeeded, parked/,
    },
    {
      name: 'a trigger type that does not exist',
      files: broken(workflow, '      chat:\n', '      inbox:\n        type: email\n      chat:\n'),
      problem: { file: workflow, line: 23, column: 15, key: '/states/answer/triggers/inbox/type' },
      message: /"email" is not a trigger type; use one of: chat, mcp/,
    },
  ];

  it.each(cases)('reports $name', ({ files, problem, message }) => {
    const result = validateAgentRepository(files);
    expect(result.ok).toBe(false);
    expect(result.problems.map(({ message: _, ...at }) => at)).toEqual([problem]);
    expect(result.problems[0].message).toMatch(message);
  });
});
