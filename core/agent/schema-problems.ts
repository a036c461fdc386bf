/**
 * Checks a value against a TypeBox schema and words each violation for the author of an agent file:
 * what is wrong at which key, and what to do. Unions of words read "use one of: …"; other unions are
 * checked against the variant matching the value's kind, so an unknown key inside an object form is
 * reported as such rather than as "no variant matched".
 *
 * Source: docs/agent-format.md (unknown keys are errors; every message names file, line and key).
 */
import { Kind, type TSchema } from '@sinclair/typebox';
import { Value, type ValueError, ValueErrorType } from '@sinclair/typebox/value';
import { slugPattern, variableNamePattern } from './model.ts';
import type { KeyedProblem } from './yaml-source.ts';

const kindWords: Record<string, string> = {
  String: 'text',
  Object: 'a mapping (key: value)',
  Record: 'a mapping (key: value)',
  Array: 'a list',
  Boolean: 'true or false',
  Integer: 'a whole number',
  Number: 'a number',
  Null: 'empty',
  Unknown: 'any value',
};

/** How a value reads in a message: `"text"`, `a list`, `a mapping`, `number 3`, `nothing`. */
export function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return `${typeof value} ${String(value)}`;
}

const patternHints: Record<string, string> = {
  [slugPattern]: 'a slug: lowercase letters and digits joined by single hyphens (e.g. "flight-analyst")',
  [variableNamePattern]: 'a variable name: a lowercase letter, then lowercase letters, digits, "_" or "-"',
  '^hooks/[A-Za-z0-9_.-]+\\.js$': 'a script path of the form hooks/<name>.js inside the workflow folder',
  '^[a-z0-9_-]+(/[A-Za-z0-9_*.-]+)?$':
    'a tool name: <collection> or <collection>/<tool> (e.g. "semantic/execute_query")',
};

const literalsOf = (schema: TSchema): unknown[] | undefined => {
  const variants = (schema.anyOf ?? []) as TSchema[];
  return variants.length > 0 && variants.every((v) => 'const' in v) ? variants.map((v) => v.const) : undefined;
};

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return 'Array';
  if (value === null) return 'Null';
  if (typeof value === 'object') return 'Object';
  if (typeof value === 'number') return Number.isInteger(value) ? 'Integer' : 'Number';
  return typeof value === 'string' ? 'String' : typeof value === 'boolean' ? 'Boolean' : 'Unknown';
}

/** The union variant of the value's kind (an object value → the object variant), if exactly one. */
function variantFor(schema: TSchema, value: unknown): TSchema | undefined {
  const kind = kindOf(value);
  const matches = ((schema.anyOf ?? []) as TSchema[]).filter((v) =>
    v[Kind] === kind || (kind === 'Integer' && v[Kind] === 'Number') || (kind === 'Object' && v[Kind] === 'Record')
  );
  return matches.length === 1 ? matches[0] : undefined;
}

function unionProblems(error: ValueError): KeyedProblem[] {
  const words = literalsOf(error.schema);
  if (words) {
    return [{
      key: error.path,
      message: `${describeValue(error.value)} is not allowed here; use one of: ${words.join(', ')}`,
    }];
  }
  const variant = variantFor(error.schema, error.value);
  if (variant) return schemaProblems(variant, error.value, error.path);
  const forms = ((error.schema.anyOf ?? []) as TSchema[]).map((v) => kindWords[String(v[Kind])] ?? String(v[Kind]));
  return [{
    key: error.path,
    message: `must be ${[...new Set(forms)].join(' or ')}, found ${describeValue(error.value)}`,
  }];
}

function lengthWords(error: ValueError): string {
  const schema = error.schema;
  switch (error.type) {
    case ValueErrorType.StringMaxLength:
      return `is ${String(error.value).length} characters long; at most ${schema.maxLength} are allowed: shorten it`;
    case ValueErrorType.StringMinLength:
      return 'is empty; write a value or remove the key';
    case ValueErrorType.ArrayMaxItems:
      return `lists ${(error.value as unknown[]).length} entries; at most ${schema.maxItems} are allowed: remove ${
        (error.value as unknown[]).length - Number(schema.maxItems)
      }`;
    case ValueErrorType.ArrayMinItems:
      return `must list at least ${schema.minItems} entr${schema.minItems === 1 ? 'y' : 'ies'}; add one`;
    case ValueErrorType.ObjectMinProperties:
      return `must hold at least ${schema.minProperties} entr${schema.minProperties === 1 ? 'y' : 'ies'}; add one`;
    default:
      return '';
  }
}

function rangeWords(error: ValueError): string {
  const schema = error.schema;
  if (error.type === ValueErrorType.IntegerMinimum || error.type === ValueErrorType.NumberMinimum) {
    return `is ${String(error.value)}; it must be at least ${schema.minimum}`;
  }
  if (error.type === ValueErrorType.IntegerMaximum || error.type === ValueErrorType.NumberMaximum) {
    return `is ${String(error.value)}; it must be at most ${schema.maximum}`;
  }
  return '';
}

function describe(error: ValueError): KeyedProblem[] {
  const { path, schema, value } = error;
  switch (error.type) {
    case ValueErrorType.ObjectAdditionalProperties: {
      const name = path.split('/').pop() ?? '';
      const allowed = Object.keys((schema.properties ?? {}) as object).join(', ');
      return [{
        key: path,
        atKey: true,
        message: `unknown key "${
          name.replace(/~1/g, '/').replace(/~0/g, '~')
        }"; allowed keys here: ${allowed} (remove it or fix its spelling)`,
      }];
    }
    case ValueErrorType.ObjectRequiredProperty:
      return [{ key: path, message: `missing required key "${path.split('/').pop()}"; add it` }];
    case ValueErrorType.Union:
      return unionProblems(error);
    case ValueErrorType.StringPattern:
      return [{
        key: path,
        message: `${describeValue(value)} is not ${
          patternHints[String(schema.pattern)] ?? `of the form ${String(schema.pattern)}`
        }`,
      }];
    case ValueErrorType.Literal:
      return [{ key: path, message: `must be ${JSON.stringify(schema.const)}, found ${describeValue(value)}` }];
    default: {
      const words = lengthWords(error) || rangeWords(error);
      if (words) return [{ key: path, message: words }];
      const expected = kindWords[String(schema[Kind])];
      return [{ key: path, message: expected ? `must be ${expected}, found ${describeValue(value)}` : error.message }];
    }
  }
}

/**
 * The violations of `value` against `schema`, in document order, one per key and reason.
 * @param base - the pointer of `value` in its document (`''` for the root), prefixed to every key
 * @returns problems whose keys are pointers such as `/states/answer/title` (`''` for the root itself)
 */
export function schemaProblems(schema: TSchema, value: unknown, base = ''): KeyedProblem[] {
  const errors = [...Value.Errors(schema, value)].map((e) => ({ ...e, path: base + e.path }));
  const required = new Set(errors.filter((e) => e.type === ValueErrorType.ObjectRequiredProperty).map((e) => e.path));
  const seen = new Set<string>();
  return errors
    .filter((e) => e.type === ValueErrorType.ObjectRequiredProperty || !required.has(e.path))
    .flatMap(describe)
    .filter((p) => {
      const id = `${p.key}\n${p.message}`;
      if (seen.has(id)) return false;
      seen.add(id);
      return true;
    });
}
