/**
 * Validation of an OSI document against the official JSON Schema of its version, with ajv's errors turned
 * into plain-language reasons at JSON pointers. Each schema is compiled once, on first use.
 *
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
// The named export: a default import of this CommonJS module is typed as the module object, not the class,
// under Deno's npm resolution (deno check: "This expression is not constructable").
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { OsiVersion } from '../model.ts';
import schema011 from './schemas/osi-schema-0.1.1.json' with { type: 'json' };
import schema020 from './schemas/osi-schema-0.2.0.dev0.json' with { type: 'json' };

/**
 * A schema violation: where (JSON pointer, `''` for the document root) and why.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export interface PointerProblem {
  path: string;
  reason: string;
}

const schemas: Record<OsiVersion, object> = { '0.1.1': schema011, '0.2.0.dev0': schema020 };
const compiled = new Map<OsiVersion, ValidateFunction>();

function validatorFor(version: OsiVersion): ValidateFunction {
  let validate = compiled.get(version);
  if (!validate) {
    const ajv = new Ajv2020({ allErrors: true, verbose: true, strict: false });
    validate = ajv.compile(schemas[version]);
    compiled.set(version, validate);
  }
  return validate;
}

/**
 * Validates a parsed OSI document against the schema of `version`.
 * @param document - the YAML document as plain JS data
 * @param version - the accepted version the document declares
 * @returns problems in document order (empty when valid); one per distinct path and reason
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export function schemaProblems(document: unknown, version: OsiVersion): PointerProblem[] {
  const validate = validatorFor(version);
  if (validate(document)) return [];
  return describeSchemaErrors(validate.errors ?? []);
}

/**
 * Turns ajv errors (allErrors + verbose) into plain-language problems: `oneOf` branch noise is reduced to
 * the branch that matches the value's type, and duplicates are dropped.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export function describeSchemaErrors(errors: ErrorObject[]): PointerProblem[] {
  const seen = new Set<string>();
  const problems: PointerProblem[] = [];
  for (const error of withoutOneOfNoise(errors)) {
    const problem = describeError(error);
    const key = `${problem.path}\n${problem.reason}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}

function withoutOneOfNoise(errors: ErrorObject[]): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  for (const oneOf of errors.filter((e) => e.keyword === 'oneOf')) {
    const branch = errors.filter((e) => e !== oneOf && e.schemaPath.startsWith(`${oneOf.schemaPath}/`));
    const typeMismatches = branch.filter((e) => e.keyword === 'type' && e.instancePath === oneOf.instancePath);
    typeMismatches.forEach((e) => dropped.add(e));
    if (branch.length > typeMismatches.length) dropped.add(oneOf);
  }
  return errors.filter((e) => !dropped.has(e));
}

function describeError(error: ErrorObject): PointerProblem {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path, reason: `missing required key "${String(params.missingProperty)}"` };
    case 'additionalProperties':
      return {
        path: `${path}/${escapePointer(String(params.additionalProperty))}`,
        reason: `unknown key "${String(params.additionalProperty)}"; allowed keys here: ${allowedKeys(error)}`,
      };
    case 'type':
      return { path, reason: `must be ${typeWords(params.type)}, found ${describeValue(error.data)}` };
    case 'enum':
      return {
        path,
        reason: `${describeValue(error.data)} is not allowed; use one of: ${listOf(params.allowedValues)}`,
      };
    case 'const':
      return { path, reason: `must be ${JSON.stringify(params.allowedValue)}, found ${describeValue(error.data)}` };
    case 'minItems':
      return { path, reason: `must hold at least ${String(params.limit)} item(s); the list is empty` };
    case 'oneOf':
      return { path, reason: `must be ${oneOfTypes(error)}, found ${describeValue(error.data)}` };
    default:
      return { path, reason: error.message ?? `fails the "${error.keyword}" rule of the schema` };
  }
}

function allowedKeys(error: ErrorObject): string {
  const properties = (error.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties;
  return properties ? Object.keys(properties).join(', ') : '(see the OSI schema)';
}

function oneOfTypes(error: ErrorObject): string {
  const branches = (error.schema as { type?: unknown }[] | undefined) ?? [];
  const types = branches.map((b) => (b.type === undefined ? undefined : typeWords(b.type)));
  if (types.some((t) => t === undefined)) return 'one of the forms the OSI schema allows here';
  return types.join(' or ');
}

const typeNames: Record<string, string> = {
  string: 'text',
  object: 'a mapping (key: value)',
  array: 'a list',
  boolean: 'true or false',
  integer: 'a whole number',
  number: 'a number',
  null: 'empty (null)',
};

function typeWords(type: unknown): string {
  const types = Array.isArray(type) ? type : [type];
  return types.map((t) => typeNames[String(t)] ?? String(t)).join(' or ');
}

function describeValue(value: unknown): string {
  if (value === null || value === undefined) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value);
  return `${typeof value} ${String(value)}`;
}

function listOf(values: unknown): string {
  return Array.isArray(values) ? values.map(String).join(', ') : String(values);
}

/**
 * Escapes one JSON-pointer segment (`~` → `~0`, `/` → `~1`).
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
