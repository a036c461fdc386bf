/**
 * The terms of a human state's decision: `expires: {after, to}` (after that long, the platform takes the session to
 * `to` by itself) and `fields` (typed values the decision carries; they become session variables): the duration
 * parser and the checks that need more than the schema in ./model.ts (a duration within bounds, `to` a state of the
 * workflow, field names unique, no `file` field, no field named `trigger`).
 *
 * Source: docs/decisions.md D26 § 2; docs/agent-format.md § workflow.yaml (A state: expires, fields).
 */
import { parameterTypes } from './trigger-model.ts';
import { type KeyedProblem, pointer } from './yaml-source.ts';

/** The shortest and longest expiry, in ms (1 s and 365 days). Source: docs/decisions.md D26 § 2. */
export const expiryBoundsMs = { min: 1000, max: 365 * 24 * 3600 * 1000 } as const;

/** The value types of a decision field: those of trigger parameters, without `file` (a decision carries no files). */
export const decisionFieldTypes = parameterTypes.filter((t) => t !== 'file');

/**
 * A field of a decision as declared: `name` (a variable name), `type` (default string), `description`, `required`
 * (default true). The schema is in ./model.ts (the state schema). Source: docs/decisions.md D26 § 2.
 */
export interface DecisionField {
  name: string;
  type?: (typeof parameterTypes)[number];
  description?: string;
  required?: boolean;
}

const units: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const shortForm = /^(\d+)\s*([smhd])$/;
const isoForm = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/**
 * A duration in ms: `<n>s|m|h|d` or ISO 8601 `P[nW][nD][T[nH][nM][nS]]` (no years or months: their length varies).
 * @returns the milliseconds, or undefined when `text` is neither form
 */
export function durationMs(text: string): number | undefined {
  const short = shortForm.exec(text.trim());
  if (short) return Number(short[1]) * units[short[2]];
  const iso = isoForm.exec(text.trim().toUpperCase());
  if (!iso || text.trim().toUpperCase() === 'P' || /T$/.test(text.trim().toUpperCase())) return undefined;
  const [w, d, h, m, s] = iso.slice(1).map((n) => Number(n ?? 0));
  return (((w * 7 + d) * 24 + h) * 60 + m) * 60_000 + s * 1000;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function expiresProblems(name: string, expires: unknown, states: ReadonlySet<string>): KeyedProblem[] {
  if (!isRecord(expires)) return [];
  const problems: KeyedProblem[] = [];
  if (typeof expires.after === 'string') {
    const ms = durationMs(expires.after);
    if (ms === undefined || ms < expiryBoundsMs.min || ms > expiryBoundsMs.max) {
      const what = ms === undefined ? 'is not a duration' : 'is out of bounds';
      problems.push({
        key: pointer('states', name, 'expires', 'after'),
        message: `expires.after "${expires.after}" ${what}; write one between 1 s and 365 d, such as 30s, 15m, ` +
          `48h, 7d, PT48H or P7D`,
      });
    }
  } else if (typeof expires.after === 'number') {
    problems.push({
      key: pointer('states', name, 'expires', 'after'),
      message: `expires.after ${expires.after} has no unit; write it with one, such as ${expires.after}s or ` +
        `${expires.after}h`,
    });
  }
  if (typeof expires.to === 'string' && !states.has(expires.to)) {
    problems.push({
      key: pointer('states', name, 'expires', 'to'),
      message: `expires.to names "${expires.to}", which is not a state of this workflow; use one of: ${
        [...states].join(', ')
      }`,
    });
  }
  return problems;
}

function fieldProblems(name: string, fields: unknown): KeyedProblem[] {
  if (!Array.isArray(fields)) return [];
  const problems: KeyedProblem[] = [];
  const seen = new Set<string>();
  fields.forEach((field, i) => {
    if (!isRecord(field) || typeof field.name !== 'string') return;
    if (seen.has(field.name)) {
      problems.push({
        key: pointer('states', name, 'fields', i, 'name'),
        message: `a second field named "${field.name}"; field names are unique, rename or remove one`,
      });
    } else if (field.name === 'trigger') {
      problems.push({
        key: pointer('states', name, 'fields', i, 'name'),
        message: 'a field cannot be named "trigger" (the variable holding the firing); rename it',
      });
    }
    seen.add(field.name);
    if (field.type === 'file') {
      problems.push({
        key: pointer('states', name, 'fields', i, 'type'),
        message: `field "${field.name}" has type file, but a decision carries no files; use one of: ${
          decisionFieldTypes.join(', ')
        }`,
      });
    }
  });
  return problems;
}

/**
 * The problems of a state's `expires` and `fields` beyond their schema: `after` a duration of 1 s to 365 d, `to` a
 * state of the workflow, unique field names (none `trigger`), no `file` field; and both only on a human state.
 * Source: docs/decisions.md D26 § 2.
 */
export function decisionTermProblems(
  name: string,
  state: Record<string, unknown>,
  states: ReadonlySet<string>,
): KeyedProblem[] {
  const problems = [...expiresProblems(name, state.expires, states), ...fieldProblems(name, state.fields)];
  for (const key of ['expires', 'fields'] as const) {
    if (state[key] !== undefined && state.type !== 'human') {
      problems.push({
        key: pointer('states', name, key),
        atKey: true,
        message: `${key} applies only to a human state (a decision); add type: human or remove ${key}`,
      });
    }
  }
  return problems;
}
