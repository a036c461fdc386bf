/**
 * A pending decision's terms on the trusted side: the expiry and fields a parked session's decision carries are
 * stamped from the records (the workflow's human state, or the parked child's pending decision), never taken from
 * what the worker wrote; a decision's field values are checked against them; and their JSON Schema is what an
 * AG-UI interrupt or an MCP client shows.
 *
 * Source: docs/decisions.md D26 § 2 (decisions expire and carry typed fields; invariants live in the trusted process).
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { DecisionFieldSpec, PendingWork } from './model.ts';
import type { SessionPatch } from './turn-host.ts';
import type { WorkflowView } from './workflow-view.ts';

type Pending = NonNullable<SessionPatch['pending']>;
type DecisionPending = Extract<PendingWork, { kind: 'decision' }>;

/**
 * `pending` with its decision terms taken from the records: for a human state's own decision, `expiresAt` (`now` plus
 * the state's `expires.after`), `expiresTo` and `fields` from `workflow`; for a park on a child, those of the child's
 * recorded pending decision (`childPending`); none otherwise. Whatever the worker wrote under these keys is dropped.
 */
export function stampDecisionTerms(
  workflow: WorkflowView,
  pending: Pending,
  now: Date,
  childPending?: DecisionPending | null,
): Pending {
  const { expiresAt: _a, expiresTo: _t, fields: _f, ...rest } = pending as Pending & Partial<DecisionPending>;
  if (rest.kind !== 'decision') return rest as Pending;
  if (rest.childSessionId !== undefined) {
    if (childPending?.kind !== 'decision') return rest as Pending;
    return {
      ...rest,
      ...(childPending.expiresAt ? { expiresAt: childPending.expiresAt, expiresTo: childPending.expiresTo } : {}),
      ...(childPending.fields ? { fields: childPending.fields } : {}),
    } as Pending;
  }
  const state = workflow.states[rest.state];
  const expires = state?.expires;
  return {
    ...rest,
    ...(expires ? { expiresAt: new Date(now.getTime() + expires.afterMs).toISOString(), expiresTo: expires.to } : {}),
    ...(state?.fields ? { fields: state.fields } : {}),
  } as Pending;
}

const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value;

function typeProblem(field: DecisionFieldSpec, value: unknown): string | undefined {
  const ok = {
    string: typeof value === 'string',
    number: typeof value === 'number' && Number.isFinite(value),
    integer: Number.isInteger(value),
    boolean: typeof value === 'boolean',
    object: value !== null && typeof value === 'object' && !Array.isArray(value),
    array: Array.isArray(value),
  }[field.type];
  return ok ? undefined : `field "${field.name}" must be ${field.type === 'integer' ? 'an' : 'a'} ${field.type}, ` +
    `not ${kindOf(value)}`;
}

/**
 * Checks a decision's field values against the declared fields: every required one given (not null or empty text),
 * each of its type, none undeclared.
 * @returns the values to set as variables (only declared, given ones)
 * @throws PlatformError `invalid_decision_fields` (400) naming the field and what was wrong
 */
export function checkDecisionFields(
  declared: readonly DecisionFieldSpec[] | undefined,
  values: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const given = values ?? {};
  const fields = declared ?? [];
  const refuse = (why: string) => {
    throw new PlatformError('invalid_decision_fields', `${why}.`, { status: 400 });
  };
  if (values !== undefined && (values === null || typeof values !== 'object' || Array.isArray(values))) {
    refuse('fields must be an object of field name to value');
  }
  const names = fields.map((f) => f.name);
  const unknown = Object.keys(given).find((name) => !names.includes(name));
  if (unknown !== undefined) {
    const known = names.length > 0 ? `declared fields: ${names.join(', ')}` : 'this decision declares no fields';
    refuse(`field "${unknown.slice(0, 64)}" is not a field of this decision (${known})`);
  }
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    const value = given[field.name];
    if (value === undefined || value === null || value === '') {
      if (field.required) refuse(`field "${field.name}" is required (${field.type})`);
      continue;
    }
    const problem = typeProblem(field, value);
    if (problem) refuse(problem);
    out[field.name] = value;
  }
  return out;
}

/** The JSON Schema type of a field's type (`integer` stays `integer`). */
const schemaOf = (field: DecisionFieldSpec) => ({
  type: field.type,
  ...(field.description === undefined ? {} : { description: field.description }),
});

/**
 * The JSON Schema of a decision's fields: `{type: 'object', properties, required, additionalProperties: false}`; an
 * AG-UI interrupt's `responseSchema` and an MCP decide tool's input take it. Source: docs/decisions.md D26 § 2.
 */
export function fieldsJsonSchema(fields: readonly DecisionFieldSpec[] | undefined): Record<string, unknown> {
  const list = fields ?? [];
  return {
    type: 'object',
    properties: Object.fromEntries(list.map((f) => [f.name, schemaOf(f)])),
    required: list.filter((f) => f.required).map((f) => f.name),
    additionalProperties: false,
  };
}
