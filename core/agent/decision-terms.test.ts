/**
 * A human state's decision terms (docs/decisions.md D26 § 2): `expires` and `fields` validate on the demo agent's
 * review state, and each mistake is reported at its file, line, column and key with what to do; durations parse.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { durationMs } from './decision-terms.ts';
import { type AgentFile, validateAgentRepository } from './index.ts';

const demoRoot = resolve(import.meta.dirname, '../../scripts/demo/agent');
const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
const demo: AgentFile[] = walk(demoRoot).map((p) => ({ path: relative(demoRoot, p), text: readFileSync(p, 'utf8') }));
const workflow = 'workflows/flights-analyst/workflow.yaml';
const anchor = '    instructions: A member reads the draft';

/** The demo with `terms` (YAML lines at the review state's indentation) added to its review state. */
function withTerms(terms: string, at = anchor): AgentFile[] {
  return demo.map((f) => {
    if (f.path !== workflow) return f;
    if (!f.text.includes(at)) throw new Error(`${workflow} does not contain ${at}`);
    return { path: f.path, text: f.text.replace(at, `${terms}\n${at}`) };
  });
}

const fieldsBlock = [
  '    fields:',
  '      - name: amount',
  '        type: number',
  '        description: The approved amount in USD.',
  '      - name: reason',
  '        required: false',
].join('\n');

describe('decision terms of a human state', () => {
  it('accepts expires and typed fields on a human state', () => {
    const result = validateAgentRepository(withTerms(`    expires: { after: 48h, to: done }\n${fieldsBlock}`));
    expect(result.problems).toEqual([]);
    expect(validateAgentRepository(withTerms('    expires: { after: P7D, to: answer }')).problems).toEqual([]);
  });

  const cases: { name: string; terms: string; line: number; column: number; key: string; message: RegExp }[] = [
    {
      name: 'an expiry to a missing state',
      terms: '    expires: { after: 48h, to: archived }',
      line: 45,
      column: 32,
      key: '/states/review/expires/to',
      message: /expires.to names "archived", which is not a state of this workflow; use one of: answer, review/,
    },
    {
      name: 'a duration that is not one',
      terms: '    expires: { after: two days, to: done }',
      line: 45,
      column: 23,
      key: '/states/review/expires/after',
      message: /"two days" is not a duration; write one between 1 s and 365 d, such as 30s/,
    },
    {
      name: 'a duration over 365 days',
      terms: '    expires: { after: 400d, to: done }',
      line: 45,
      column: 23,
      key: '/states/review/expires/after',
      message: /"400d" is out of bounds/,
    },
    {
      name: 'a duration without a unit',
      terms: '    expires: { after: 48, to: done }',
      line: 45,
      column: 23,
      key: '/states/review/expires/after',
      message: /has no unit; write it with one, such as 48s or 48h/,
    },
    {
      name: 'two fields of one name',
      terms: `${fieldsBlock}\n      - name: amount`,
      line: 51,
      column: 15,
      key: '/states/review/fields/2/name',
      message: /a second field named "amount"; field names are unique/,
    },
    {
      name: 'a field name that is not a variable name',
      terms: '    fields:\n      - name: Amount',
      line: 46,
      column: 15,
      key: '/states/review/fields/0/name',
      message: /a variable name: a lowercase letter/,
    },
    {
      name: 'a file field',
      terms: '    fields:\n      - name: scan\n        type: file',
      line: 47,
      column: 15,
      key: '/states/review/fields/0/type',
      message: /a decision carries no files; use one of: string, number, integer, boolean, object, array/,
    },
    {
      name: 'an unknown key in a field',
      terms: '    fields:\n      - name: amount\n        kind: number',
      line: 47,
      column: 9,
      key: '/states/review/fields/0/kind',
      message: /unknown key "kind"; allowed keys here: name, type, description, required/,
    },
  ];
  for (const c of cases) {
    it(`reports ${c.name} at its place`, () => {
      const result = validateAgentRepository(withTerms(c.terms));
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toMatchObject({ file: workflow, line: c.line, column: c.column, key: c.key });
      expect(result.problems[0].message).toMatch(c.message);
    });
  }

  it('counts a state reached only by an expiry as reachable', () => {
    const lapsed = (files: AgentFile[]) =>
      files.map((
        f,
      ) => (f.path === workflow ? { ...f, text: f.text.replace('  done:\n', '  lapsed: {}\n  done:\n') } : f));
    expect(validateAgentRepository(lapsed(withTerms('    expires: { after: 1h, to: lapsed }'))).problems).toEqual([]);
    const unreached = validateAgentRepository(lapsed(demo)).problems;
    expect(unreached.map((p) => p.key)).toEqual(['/states/lapsed']);
  });

  it('refuses expires on an agent state, at the key', () => {
    const result = validateAgentRepository(withTerms('    expires: { after: 1h, to: failed }', '    on_error: failed'));
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).toMatchObject({ file: workflow, key: '/states/answer/expires' });
    expect(result.problems[0].message).toMatch(/expires applies only to a human state/);
  });

  it('parses short and ISO 8601 durations, and refuses others', () => {
    expect([durationMs('30s'), durationMs('15m'), durationMs('48h'), durationMs('7d')]).toEqual([
      30_000,
      900_000,
      172_800_000,
      604_800_000,
    ]);
    expect([durationMs('PT48H'), durationMs('P7D'), durationMs('P1DT12H'), durationMs('PT1S')]).toEqual([
      172_800_000,
      604_800_000,
      129_600_000,
      1000,
    ]);
    expect([durationMs('P'), durationMs('PT'), durationMs('1y'), durationMs('P1M'), durationMs('')]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });
});
