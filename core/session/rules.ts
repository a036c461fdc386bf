/**
 * Pure rules of sessions: dispatch ids, session attributes, spend cap periods, and which tools a state offers
 * and allows.
 *
 * Source: spec/platform-service.md § Session facts named; docs/agent-format.md § workflow.yaml (tools:
 * deny beats allow and binds child sessions; entries may guard arguments), § Sub-workflows.
 */
import { Value } from '@sinclair/typebox/value';
import { PlatformError } from '../ports/platform-error.ts';
import type { SessionValue } from './model.ts';
import type { SpendPeriod } from './spend-model.ts';
import type { ToolRule } from './workflow-view.ts';

/**
 * The dispatch id of a session's `count`-th workflow call (1-based): `count` for a root session, `<own id>~<count>`
 * inside a child. Source: spec § Session facts named (the root's second dispatch is 2; the first inside dispatch 1 is
 * 1~1).
 */
export function dispatchIdOf(parentDispatchId: string | undefined, count: number): string {
  return parentDispatchId === undefined ? String(count) : `${parentDispatchId}~${count}`;
}

/** Attribute keys: a lowercase letter, then lowercase letters, digits, `_` or `-`. Source: spec § Session facts named.
 */
export const attributeKeyRegExp = /^[a-z][a-z0-9_-]*$/;
/** Longest attribute key, longest text value, and most attributes per session (cairn's choice). */
export const attributeLimits = { keyLength: 64, textLength: 2000, count: 50 } as const;

/** The kind of an attribute value: its own. Source: spec § Session facts named (text, integer, decimal or boolean). */
export function attributeKind(value: SessionValue): 'text' | 'integer' | 'decimal' | 'boolean' {
  if (typeof value === 'string') return 'text';
  if (typeof value === 'boolean') return 'boolean';
  return Number.isInteger(value) ? 'integer' : 'decimal';
}

/**
 * Checks attributes to set (null removes one).
 * @throws PlatformError `invalid_attribute` (400) naming the key and the rule
 */
export function checkAttributes(
  changes: Record<string, unknown>,
  existing: Record<string, SessionValue>,
): Record<string, SessionValue | null> {
  const checked: Record<string, SessionValue | null> = {};
  for (const [key, value] of Object.entries(changes)) {
    if (key.length > attributeLimits.keyLength || !attributeKeyRegExp.test(key)) {
      throw new PlatformError(
        'invalid_attribute',
        `Attribute key ${JSON.stringify(key.slice(0, 80))} ` +
          `is not valid: start with a lowercase letter, then use lowercase ` +
          `letters, digits, _ or - (at most ${attributeLimits.keyLength} ` + `characters).`,
        { status: 400 },
      );
    }
    const ok = value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)) ||
      (typeof value === 'string' && value.length <= attributeLimits.textLength);
    if (!ok) {
      throw new PlatformError(
        'invalid_attribute',
        `Attribute "${key}" must be text (at most ${attributeLimits.textLength} characters), an integer, a decimal ` +
          `or a boolean (null removes it).`,
        { status: 400 },
      );
    }
    checked[key] = value as SessionValue | null;
  }
  const kept = new Set(
    [...Object.keys(existing), ...Object.keys(checked)].filter((k) => (k in checked ? checked[k] !== null : true)),
  );
  if (kept.size > attributeLimits.count) {
    throw new PlatformError(
      'invalid_attribute',
      `A session holds at most ${attributeLimits.count} attributes; remove some first.`,
      { status: 400 },
    );
  }
  return checked;
}

/**
 * The start of the UTC period holding `at`: midnight (day), Monday midnight (week), the 1st at midnight (month).
 * Source: spec § Session facts named (Spend cap: UTC day, week from Monday, or month).
 */
export function periodStart(period: SpendPeriod, at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  if (period === 'day') return new Date(day);
  if (period === 'month') return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const sinceMonday = (at.getUTCDay() + 6) % 7;
  return new Date(day - sinceMonday * 86_400_000);
}

/** The name a model sees for a catalog tool (`semantic/execute_query` → `semantic__execute_query`; providers accept
 * letters, digits, _ and -). */
export const modelToolName = (collection: string, tool: string): string =>
  `${collection}__${tool}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

/** The rule name of a catalog tool (`semantic/execute_query`) or of a workflow tool (`platform_workflow_<slug>`). */
export const ruleToolName = (
  collection: string | undefined,
  tool: string,
): string => (collection === undefined ? tool : `${collection}/${tool}`);

function nameMatches(rule: string, name: string): boolean {
  if (rule === name) return true;
  const [ruleCollection, ruleTool] = rule.split('/');
  const [collection, tool] = name.split('/');
  if (ruleTool === undefined) return tool !== undefined && ruleCollection === collection;
  if (ruleCollection !== collection || tool === undefined) return false;
  if (!ruleTool.includes('*')) return false;
  const pattern = new RegExp(
    `^${ruleTool.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`,
  );
  return pattern.test(tool);
}

/**
 * Whether `input` holds every key of `partial` with an equal value: deep, key order aside (a guard compared as JSON
 * text was passed by the same object with its keys in another order). Shared by the tool guards and evaluation mocks.
 */
export function inputContains(input: unknown, partial: Record<string, unknown> | undefined): boolean {
  if (partial === undefined) return true;
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return Object.keys(partial).length === 0;
  const given = input as Record<string, unknown>;
  return Object.entries(partial).every(([key, value]) => key in given && Value.Equal(given[key], value));
}

const guardHolds = (rule: ToolRule, input: unknown): boolean => inputContains(input, rule.arguments);

/** Allow and forbid rules in force in a state: the workflow's `*_always`, the state's, and those inherited from
 * parents. */
export interface ToolRules {
  allow: ToolRule[];
  forbid: ToolRule[];
}

/** True when a state offers the tool to the model: an allow rule names it and no unguarded forbid rule does (deny beats
 * allow). */
export function toolOffered(rules: ToolRules, name: string): boolean {
  return rules.allow.some((r) => nameMatches(r.tool, name)) &&
    !rules.forbid.some((r) => r.arguments === undefined && nameMatches(r.tool, name));
}

/**
 * Why a call is not allowed, or undefined when it is: an allow rule whose guards hold names it, and no forbid rule
 * whose guards hold does. Source: docs/agent-format.md § workflow.yaml (deny beats allow; entries may guard arguments).
 */
export function toolCallRefusal(rules: ToolRules, name: string, input: unknown): string | undefined {
  const forbidding = rules.forbid.find((r) => nameMatches(r.tool, name) && guardHolds(r, input));
  if (forbidding) {
    return `The workflow forbids ${name}${
      forbidding.arguments ? ` with ${JSON.stringify(forbidding.arguments)}` : ''
    } here.`;
  }
  const allowing = rules.allow.filter((r) => nameMatches(r.tool, name));
  if (allowing.length === 0) return `${name} is not allowed in this state.`;
  if (!allowing.some((r) => guardHolds(r, input))) {
    return `${name} is allowed here only with ${allowing.map((r) => JSON.stringify(r.arguments)).join(' or ')}.`;
  }
  return undefined;
}
