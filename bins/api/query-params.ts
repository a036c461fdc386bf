/**
 * Query strings of the API routes, checked against TypeBox schemas before a handler reads them: every
 * route declares the parameters it takes ({@link NoQuery} when none); an unknown, repeated or malformed
 * parameter is refused with 400 naming it and what it must be, so nothing the caller sends turns into
 * NaN or "no limit" further down.
 *
 * Source: spec/platform-service.md § Errors (400 for a bad request); docs/decisions.md D6 § 3.
 */
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { isPlatformError, PlatformError } from '../../core/ports/platform-error.ts';
import { json } from './http-helpers.ts';

/** The query of a route that takes no parameters: any parameter is refused. */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * A query parameter holding a whole number from `minimum` to `maximum` (written in decimal digits).
 * The route applies `default` when the parameter is absent; the description names all three for messages.
 */
export function wholeNumberParam(range: { minimum: number; maximum: number; default: number }) {
  return Type.Optional(Type.Integer({ ...range, description: `a whole number from ${range.minimum} to ${range.maximum} (default ${range.default})` }));
}

/** A free-text query parameter of at most `maxLength` characters; `description` says what it is. */
export function textParam(description: string, maxLength = 200) {
  return Type.Optional(Type.String({ minLength: 1, maxLength, description: `${description} (1 to ${maxLength} characters)` }));
}

/**
 * Reads the query string of `request` against `schema` (an object of optional parameters, each a string,
 * a whole number or a union of literals, with a `description` used in messages).
 * @returns the parameters, whole numbers converted
 * @throws PlatformError `invalid_argument` (400) naming the parameter: unknown to the route, given twice,
 *   or not what its schema says (e.g. `Query parameter "limit" must be a whole number from 1 to 500 (default 50).`)
 *
 * Source: docs/decisions.md D6 § 3 (validate every route's query string; 400 with the parameter named)
 */
export function readQuery<S extends TObject>(request: Request, schema: S): Static<S> {
  const raw: Record<string, unknown> = {};
  for (const [name, text] of new URL(request.url).searchParams) {
    const property: TSchema | undefined = Object.hasOwn(schema.properties, name) ? schema.properties[name] : undefined;
    if (property === undefined) throw invalidQuery(unknownParameter(name, schema));
    if (Object.hasOwn(raw, name)) throw invalidQuery(`Give the query parameter "${name}" once.`);
    raw[name] = convert(property, text);
  }
  const [error] = Value.Errors(schema, raw);
  if (error === undefined) return raw as Static<S>;
  const name = error.path.split('/')[1] ?? '';
  const expected = (schema.properties[name] as TSchema | undefined)?.description ?? error.message.toLowerCase();
  throw invalidQuery(`Query parameter "${name}" must be ${expected}.`);
}

/**
 * A `beforeHandle` hook checking the query string against `schema` (default {@link NoQuery}), for plugins
 * whose handlers read no parameters: answers the 400 of {@link readQuery} itself, so it holds with or
 * without the request rules' error handler.
 */
export function queryRule(schema: TObject = NoQuery) {
  return ({ request }: { request: Request }): Response | undefined => {
    try {
      readQuery(request, schema);
      return undefined;
    } catch (error) {
      if (!isPlatformError(error)) throw error;
      return json({ error: { code: error.code, message: error.message } }, error.status ?? 400);
    }
  };
}

/** Whole-number parameters must be plain decimal digits (no `1e3`, `0x10`, spaces or signs but `-`). */
function convert(property: TSchema, text: string): unknown {
  if (property.type === 'integer') return /^-?\d{1,15}$/.test(text) ? Number(text) : text;
  return text;
}

/** The refusal of a parameter the route does not take; a name that is not plain (or long) is not echoed. */
function unknownParameter(name: string, schema: TObject): string {
  const plain = /^[\w.-]{1,40}$/.test(name);
  const known = Object.keys(schema.properties);
  if (known.length === 0) return `This route takes no query parameters; remove ${plain ? `"${name}"` : 'them'}.`;
  return `${plain ? `Unknown query parameter "${name}"` : 'A query parameter is not one this route takes'}; this route takes ${known.map((k) => `"${k}"`).join(', ')}.`;
}

function invalidQuery(message: string): PlatformError {
  return new PlatformError('invalid_argument', message, { status: 400 });
}
