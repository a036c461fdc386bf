/**
 * Checks the triggers declared on one state: the id is a slug, the kind is known (from `type`, or from
 * the key when it is a kind word), the keys match the kind's schema, an mcp trigger declares no `file`
 * entry, a schedule's cron expression and time zone are valid, a `session` key expression parses, and
 * `multitask` is declared on a chat trigger only.
 *
 * Source: docs/agent-format.md § Triggers; spec/platform-service.md § Trigger declarations, § Errors
 * (mcp trigger declaring a file entry); docs/decisions.md D27 § 1 (multitask).
 */
import { CronPattern } from 'croner';
import { slugRegExp } from './model.ts';
import { multitaskStrategies } from './multitask.ts';
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
  return [...problems, ...multitaskProblems(type, fields, base)];
}

/**
 * `multitask` on a trigger other than chat: one problem at the key (the schema's "unknown key" wording is
 * replaced by this one in checkStateTriggers). A bad value on a chat trigger is a schema problem naming the values.
 * Source: docs/decisions.md D27 § 1.
 */
function multitaskProblems(type: string, fields: Record<string, unknown>, base: string): KeyedProblem[] {
  if (type === 'chat' || !('multitask' in fields)) return [];
  return [{
    key: `${base}/multitask`,
    atKey: true,
    message: `only chat triggers take multitask (what a second message does while a turn runs: ` +
      `${multitaskStrategies.join(', ')}); remove it from this ${type} trigger`,
  }];
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
    const multitaskKey = `${base}/multitask`;
    problems.push(
      // multitask on another kind is reported by kindProblems with its own words, not as an unknown key.
      ...schemaProblems(triggerSchema(type, isTriggerType(id) && id === type), fields, base)
        .filter((p) => type === 'chat' || p.key !== multitaskKey),
      ...kindProblems(type, fields, base),
    );
    declarations.push({ id, type, workflow, state, fields });
  }
  return { problems, declarations };
}
