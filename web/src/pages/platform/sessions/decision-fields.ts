/**
 * The decision form's fields (docs/decisions.md D26 § 2): the input each declared field gets (text, number, checkbox,
 * or JSON text for an object or a list), the values as typed, and the `fields` the decide request sends, with what is
 * wrong with a value before it is sent (the platform checks them again and answers 400 naming the field).
 *
 * Source: docs/decisions.md D26 § 2; docs/agent-format.md § workflow.yaml (A state: fields).
 */
import type { DecisionFieldSpec } from '../../../../../core/session/model.ts';

/** The input a field is edited with. */
export type FieldInput = 'text' | 'number' | 'checkbox' | 'json';

/** The input of a field's type: a checkbox for boolean, a number input for number and integer, JSON text for object and array. */
export function inputOf(field: Pick<DecisionFieldSpec, 'type'>): FieldInput {
  if (field.type === 'boolean') return 'checkbox';
  if (field.type === 'number' || field.type === 'integer') return 'number';
  if (field.type === 'object' || field.type === 'array') return 'json';
  return 'text';
}

/** What the form holds per field: the text typed, or a checkbox's state. */
export type FieldDrafts = Record<string, string | boolean>;

/** The starting drafts: empty text, unchecked boxes. */
export function emptyDrafts(fields: readonly DecisionFieldSpec[]): FieldDrafts {
  return Object.fromEntries(fields.map((f) => [f.name, inputOf(f) === 'checkbox' ? false : '']));
}

/**
 * The `fields` of a decide request from the drafts: each given value as its type (a number parsed, JSON parsed), a
 * blank optional one left out; or the first problem (a required field blank, a number or JSON that does not parse).
 */
export function fieldValues(
  fields: readonly DecisionFieldSpec[],
  drafts: FieldDrafts,
): { values: Record<string, unknown> } | { problem: string } {
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const draft = drafts[field.name];
    if (typeof draft === 'boolean') { values[field.name] = draft; continue; }
    const text = (draft ?? '').trim();
    if (text === '') {
      if (field.required) return { problem: `${field.name} is required.` };
      continue;
    }
    const kind = inputOf(field);
    if (kind === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) {
        return { problem: `${field.name} must be ${field.type === 'integer' ? 'a whole number' : 'a number'}.` };
      }
      values[field.name] = n;
    } else if (kind === 'json') {
      try {
        values[field.name] = JSON.parse(text);
      } catch {
        return { problem: `${field.name} must be JSON (${field.type === 'array' ? 'a list like [1, 2]' : 'an object like {"a": 1}'}).` };
      }
    } else values[field.name] = text;
  }
  return { values };
}
