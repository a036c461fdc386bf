/**
 * The session page's decision form fields (docs/decisions.md D26 § 2): each declared type gets its input, and the
 * drafts become the decide request's `fields` as their types, a blank optional one left out, a blank required one or
 * a value that does not parse named before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import type { DecisionFieldSpec } from '../../core/session/model.ts';
import { emptyDrafts, fieldValues, inputOf } from '../../web/src/pages/platform/sessions/decision-fields.ts';

const fields: DecisionFieldSpec[] = [
  { name: 'amount', type: 'number', required: true },
  { name: 'count', type: 'integer', required: false },
  { name: 'urgent', type: 'boolean', required: false },
  { name: 'note', type: 'string', required: false },
  { name: 'tags', type: 'array', required: false },
];

describe('the decision form fields', () => {
  it('gives each type its input and starts blank', () => {
    expect(fields.map(inputOf)).toEqual(['number', 'number', 'checkbox', 'text', 'json']);
    expect(emptyDrafts(fields)).toEqual({ amount: '', count: '', urgent: false, note: '', tags: '' });
  });

  it('sends the values as their types and leaves blank optional ones out', () => {
    const drafts = { ...emptyDrafts(fields), amount: ' 12.5 ', urgent: true, tags: '["a", "b"]' };
    expect(fieldValues(fields, drafts)).toEqual({ values: { amount: 12.5, urgent: true, tags: ['a', 'b'] } });
  });

  it('names a blank required field, a number that does not parse, a fraction for an integer and bad JSON', () => {
    const blank = emptyDrafts(fields);
    expect(fieldValues(fields, blank)).toEqual({ problem: 'amount is required.' });
    expect(fieldValues(fields, { ...blank, amount: 'ten' })).toEqual({ problem: 'amount must be a number.' });
    expect(fieldValues(fields, { ...blank, amount: '1', count: '2.5' })).toEqual({ problem: 'count must be a whole number.' });
    expect(fieldValues(fields, { ...blank, amount: '1', tags: '[a' })).toMatchObject({ problem: expect.stringContaining('tags must be JSON') });
  });
});
