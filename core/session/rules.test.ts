/**
 * The tool rules' argument guards (./rules.ts): an argument's value is compared deeply with key order aside, so a
 * forbidden call cannot pass by sending the same object with its keys in another order.
 * Source: docs/agent-format.md § workflow.yaml (tool entries may guard arguments; deny beats allow).
 */
import { describe, expect, it } from 'vitest';
import { inputContains, toolCallRefusal } from './rules.ts';

describe('tool rules with argument guards', () => {
  const rules = {
    allow: [{ tool: 'semantic' }],
    forbid: [{
      tool: 'semantic/execute_query',
      arguments: { modelName: 'payroll', options: { cache: false, raw: true } },
    }],
  };

  it('forbid a call whose arguments are equal whatever their key order', () => {
    const reordered = { sql: 'SELECT 1', options: { raw: true, cache: false }, modelName: 'payroll' };
    expect(toolCallRefusal(rules, 'semantic/execute_query', reordered)).toMatch(
      /^The workflow forbids semantic\/execute_query/,
    );
    expect(toolCallRefusal(rules, 'semantic/execute_query', { ...reordered, options: { raw: true } })).toBeUndefined();
    expect(toolCallRefusal(rules, 'semantic/execute_query', { ...reordered, modelName: 'flights' })).toBeUndefined();
  });

  it('allow a guarded call only with the guarded values, nested ones in any order', () => {
    const guarded = {
      allow: [{ tool: 'crm/update', arguments: { record: { kind: 'lead', owner: 'me' } } }],
      forbid: [],
    };
    expect(toolCallRefusal(guarded, 'crm/update', { record: { owner: 'me', kind: 'lead' } })).toBeUndefined();
    expect(toolCallRefusal(guarded, 'crm/update', { record: { owner: 'you', kind: 'lead' } })).toMatch(
      /allowed here only with/,
    );
    expect(inputContains([1], { a: 1 })).toBe(false);
    expect(inputContains('text', undefined)).toBe(true);
  });
});
