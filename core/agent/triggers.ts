/**
 * Checks the triggers declared on one state: the id is a slug, the kind is known (from `type`, or from
 * the key when it is a kind word), the keys match the kind's schema, an mcp trigger declares no `file`
 * entry, a schedule's cron expression and time zone are valid, and a `session` key expression parses.
 *
 * Source: docs/agent-format.md § Triggers; spec/platform-service.md § Trigger declarations, § Errors
 * (mcp trigger declaring a file entry).
 */
import { CronPattern } from 'croner';
import { slugRegExp } from './model.ts';
import { schemaProblems } from './schema-problems.ts';
import { sessionKeyProblem } from './session-key-expression.ts';
import { isTriggerType, type TriggerDeclaration, triggerSchema, triggerTypes } from './trigger-model.ts';
import { type KeyedProblem, pointer } from './yaml-source.ts';

/**
 * Why a cron expression is refused, or undefined when it is valid: five fields (minute hour day-of-month
 * month day-of-week, names such as MON and JAN allowed) or a nickname (@hourly, @daily, @weekly,
 * @monthly, @yearly). Seconds are not offered: schedules fire at minute precision.
 * Source: docs/agent-format.md § Triggers (schedule: cron).
 */
export function cronProblem(expression: string): string | undefined {
  try {
    new CronPattern(expression, undefined, { mode: '5-part' });
    return undefined;
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, '');
  }
}

/** True when `zone` is an IANA time zone this runtime knows (e.g. Europe/Paris, UTC). */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

function kindProblems(type: string, fields: Record<string, unknown>, base: string): KeyedProblem[] {
  const problems: KeyedProblem[] = [];
  if (type === 'mcp') {
    for (const list of ['requires', 'returns'] as const) {
      const entries = Array.isArray(fields[list]) ? (fields[list] as { type?: unknown }[]) : [];
      entries.forEach((entry, i) => {
        if (entry?.type === 'file') {
          problems.push({
            key: `${base}/${list}/${i}/type`,
            message: `an mcp trigger cannot ${list === 'requires' ? 'take' : 'return'} a file (a tool call carries ` +
              'no files); use type string with a link or an id, or declare a manual trigger for file input',
          });
        }
      });
    }
  }
  if (type === 'schedule' && typeof fields.cron === 'string') {
    const why = cronProblem(fields.cron);
    if (why) {
      problems.push({
        key: `${base}/cron`,
        message: `${JSON.stringify(fields.cron)} is not a valid ` +
          `cron expression (${why}); write five fields "minute hour day month ` +
          `weekday", e.g. "0 9 * * 1-5", or @daily`,
      });
    }
  }
  if (type === 'schedule' && typeof fields.timezone === 'string' && !isTimeZone(fields.timezone)) {
    problems.push({
      key: `${base}/timezone`,
      message: `${
        JSON.stringify(fields.timezone)
      } is not a known time zone; use an IANA name such as "Europe/Paris" or "UTC"`,
    });
  }
  if (typeof fields.session === 'string') {
    const why = sessionKeyProblem(fields.session);
    if (why) {
      problems.push({
        key: `${base}/session`,
        message: why.replace(/^Session key expression /, 'the session key expression '),
      });
    }
  }
  return problems;
}

/** The kind of a trigger, or the problem saying why it has none. */
function kindOf(id: string, value: Record<string, unknown>, base: string): { type?: string; problem?: KeyedProblem } {
  if (value.type === undefined) {
    if (isTriggerType(id)) return { type: id };
    return {
      problem: {
        key: base,
        message: `trigger "${id}" has no type; add type: one of ${
          triggerTypes.join(', ')
        } (or name the trigger after its kind, e.g. chat:)`,
      },
    };
  }
  if (isTriggerType(value.type)) return { type: value.type };
  return {
    problem: {
      key: `${base}/type`,
      message: `${JSON.stringify(value.type)} is not a trigger type; use one of: ${triggerTypes.join(', ')}`,
    },
  };
}

/**
 * Checks the `triggers` mapping of one state.
 * @param triggers - the value under `states/<state>/triggers` (already known to be a mapping)
 * @returns problems (keys are pointers into workflow.yaml) and the declarations whose kind is known
 */
export function checkStateTriggers(
  workflow: string,
  state: string,
  triggers: Record<string, unknown>,
): { problems: KeyedProblem[]; declarations: TriggerDeclaration[] } {
  const problems: KeyedProblem[] = [];
  const declarations: TriggerDeclaration[] = [];
  for (const [id, raw] of Object.entries(triggers)) {
    const base = pointer('states', state, 'triggers', id);
    if (!slugRegExp.test(id)) {
      problems.push({
        key: base,
        atKey: true,
        message:
          `trigger id "${id}" is not a slug; rename it with lowercase letters and digits joined by single hyphens ` +
          `(e.g. "ask-analyst")`,
      });
    }
    const value = raw === null && isTriggerType(id) ? {} : raw;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push({ key: base, message: `trigger "${id}" must be a mapping of its settings (write {} for none)` });
      continue;
    }
    const fields = value as Record<string, unknown>;
    const kind = kindOf(id, fields, base);
    if (kind.problem || !kind.type) {
      if (kind.problem) problems.push(kind.problem);
      continue;
    }
    const type = kind.type as TriggerDeclaration['type'];
    problems.push(
      ...schemaProblems(triggerSchema(type, isTriggerType(id) && id === type), fields, base),
      ...kindProblems(type, fields, base),
    );
    declarations.push({ id, type, workflow, state, fields });
  }
  return { problems, declarations };
}
