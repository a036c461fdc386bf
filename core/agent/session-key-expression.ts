/**
 * Session key expressions: the `session` key of a chat, webhook or callback trigger names which firings share one
 * session. It is a template over the firing: literal text with `{{ path }}` placeholders, where a path is a dotted
 * walk into the firing (the fields the session's `trigger` variable holds) with array indexes, e.g.
 * `{{ body.ticket.id }}`, `{{ query.customer }}`, `order-{{ body.order_id }}`, `{{ body.items[0].sku }}`,
 * `{{ body["x-ref"] }}`. Firings whose keys are equal go to one open session; a firing for which any placeholder
 * yields nothing (missing, null or empty text) has no key and opens a new session of its own.
 *
 * Lives in the agent domain because it is part of the agent format: the validator parses it, core/boot evaluates it
 * at firing time and hands the key to core/session.
 *
 * Source: docs/agent-format.md § Triggers (chat/webhook `session`: session key expression over the firing);
 * spec/platform-service.md § Trigger declarations; docs/decisions.md D8 (session keys).
 */
import { PlatformError } from '../ports/platform-error.ts';

/** One step of a path: a property name or an array index. */
export type PathStep = { key: string } | { index: number };

/** A parsed expression: literal text and placeholders (a path each), in order. */
export type SessionKeyTemplate = ({ text: string } | { path: PathStep[]; source: string })[];

/** Characters of a bare property name in a path (`ticket`, `order_id`, `x-ref`, `0`). */
const nameRegExp = /^[A-Za-z0-9_$-]+/;

/** Parses one placeholder's path (`body.items[0].sku`, `body["odd key"]`); throws a worded Error when it cannot. */
function parsePath(source: string): PathStep[] {
  const steps: PathStep[] = [];
  let rest = source;
  let first = true;
  while (rest.length > 0) {
    if (rest.startsWith('[')) {
      const index = /^\[(\d{1,9})\]/.exec(rest);
      const quoted = /^\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\]/.exec(rest);
      if (index) steps.push({ index: Number(index[1]) });
      else if (quoted) steps.push({ key: (quoted[1] ?? quoted[2]).replace(/\\(.)/g, '$1') });
      else {throw new Error(
          `"${rest.slice(0, 40)}" is not an index: write [0] for an array element or ["key"] for a property`,
        );}
      rest = rest.slice((index ?? quoted)![0].length);
    } else {
      if (!first) {
        if (!rest.startsWith('.')) throw new Error(`expected "." or "[" before "${rest.slice(0, 40)}"`);
        rest = rest.slice(1);
      }
      const name = nameRegExp.exec(rest);
      if (!name) {
        throw new Error(
          `"${
            rest.slice(0, 40) || 'the end'
          }" is not a property name: use letters, digits, _, $ or -, or ["key"] for other names`,
        );
      }
      steps.push(/^\d+$/.test(name[0]) ? { index: Number(name[0]) } : { key: name[0] });
      rest = rest.slice(name[0].length);
    }
    first = false;
  }
  if (steps.length === 0) throw new Error('a placeholder needs a path, e.g. {{ body.id }}');
  return steps;
}

/**
 * Parses a session key expression.
 * @returns the template: literal text and placeholder paths in order
 * @throws PlatformError `invalid_session_key_expression` (400) saying what is wrong where and what to write
 */
export function parseSessionKey(expression: string): SessionKeyTemplate {
  const parts: SessionKeyTemplate = [];
  let rest = expression;
  while (rest.length > 0) {
    const open = rest.indexOf('{{');
    const close = rest.indexOf('}}');
    if (close !== -1 && (open === -1 || close < open)) throw invalid(expression, 'a "}}" has no "{{" before it');
    if (open === -1) {
      parts.push({ text: rest });
      break;
    }
    if (open > 0) parts.push({ text: rest.slice(0, open) });
    const end = rest.indexOf('}}', open + 2);
    if (end === -1) throw invalid(expression, 'a "{{" is not closed by "}}"');
    const source = rest.slice(open + 2, end).trim();
    if (source.includes('{{')) throw invalid(expression, 'placeholders cannot nest');
    if (source.includes('|')) {
      throw invalid(
        expression,
        `"${source.slice(0, 40)}" holds a filter; a placeholder is only a path such as body.ticket.id`,
      );
    }
    try {
      parts.push({ path: parsePath(source), source });
    } catch (error) {
      throw invalid(expression, `in {{ ${source.slice(0, 60)} }}: ${(error as Error).message}`);
    }
    rest = rest.slice(end + 2);
  }
  return parts;
}

const invalid = (expression: string, why: string) =>
  new PlatformError(
    'invalid_session_key_expression',
    `Session key expression ` + `${JSON.stringify(expression.slice(0, 80))} cannot be ` +
      `read: ${why}. Write text with {{ path }} placeholders over the ` + `firing, e.g. "ticket-{{ body.ticket.id }}".`,
    { status: 400 },
  );

/** Why `expression` cannot be parsed, or undefined when it can (the validator's check). */
export function sessionKeyProblem(expression: string): string | undefined {
  try {
    parseSessionKey(expression);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The value at `path` in `value`, or undefined when a step finds nothing (own properties only). */
export function valueAtPath(value: unknown, path: PathStep[]): unknown {
  let current = value;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    const key = 'index' in step ? String(step.index) : step.key;
    if (Array.isArray(current) && 'key' in step) return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** A placeholder's text: text as is, numbers and booleans printed, objects and lists as JSON; nothing is undefined. */
function render(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.length === 0 ? undefined : text;
}

/**
 * Evaluates a trigger's session key expression over a firing.
 * @param expression - the trigger's `session` value; undefined when the trigger declares none
 * @param firing - what the session's `trigger` variable holds (for a webhook: id, type, deliveryId, method,
 *   contentType, userAgent, requestId, query, body)
 * @returns the session key, or undefined when the expression is absent, a placeholder yields nothing (missing,
 *   null or empty text) or the whole key is blank: the firing then opens a new session
 * @throws PlatformError `invalid_session_key_expression` (400) when the expression cannot be parsed
 */
export function sessionKeyOf(expression: string | undefined, firing: unknown): string | undefined {
  if (expression === undefined) return undefined;
  let key = '';
  for (const part of parseSessionKey(expression)) {
    if ('text' in part) {
      key += part.text;
      continue;
    }
    const text = render(valueAtPath(firing, part.path));
    if (text === undefined) return undefined;
    key += text;
  }
  return key.trim().length === 0 ? undefined : key;
}
