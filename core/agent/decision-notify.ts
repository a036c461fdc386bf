/**
 * Where a human state's decision is sent out: `notify: {tool: <collection>/<tool>}` (a tool of a collection the
 * organization uses, called by the platform with the decision and its one-time link) or `notify: {connection:
 * <outgoing webhook connection>}` (declared, refused by the validator until outgoing webhook connections exist).
 * The schema and the checks beyond it: exactly one of the two, a tool named `<collection>/<tool>`, only on a human
 * state.
 *
 * Source: docs/decisions.md D26 § 3; docs/agent-format.md § workflow.yaml (A state: notify).
 */
import { Type } from '@sinclair/typebox';
import { type KeyedProblem, pointer } from './yaml-source.ts';

/** A collection tool as `notify.tool` names it: `<collection>/<tool>`. */
export const notifyToolPattern = /^[a-z0-9]+(?:[-_][a-z0-9]+)*\/[A-Za-z0-9_.-]{1,128}$/;

/**
 * The schema of a state's `notify` (the state schema in ./model.ts spreads it in). Source: docs/decisions.md D26 § 3.
 */
export const notifyTerm = {
  notify: Type.Optional(Type.Object({
    tool: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    connection: Type.Optional(Type.String({ minLength: 1, maxLength: 63 })),
  }, { additionalProperties: false })),
};

/** The declared `notify` of a state: the collection and tool the platform calls. */
export interface NotifyTarget {
  collection: string;
  tool: string;
}

/** The collection tool a state's raw `notify` names, or undefined (none, or not a tool). */
export function notifyTargetOf(notify: unknown): NotifyTarget | undefined {
  const tool = (notify as { tool?: unknown } | undefined)?.tool;
  if (typeof tool !== 'string' || !notifyToolPattern.test(tool)) return undefined;
  const at = tool.indexOf('/');
  return { collection: tool.slice(0, at), tool: tool.slice(at + 1) };
}

/**
 * The problems of a state's `notify` beyond its schema, each at its key: only on a human state; exactly one of
 * `tool` and `connection`; `tool` as `<collection>/<tool>`; `connection` not served yet.
 * Source: docs/decisions.md D26 § 3.
 */
export function notifyProblems(name: string, state: Record<string, unknown>): KeyedProblem[] {
  const notify = state.notify;
  if (notify === undefined || notify === null || typeof notify !== 'object' || Array.isArray(notify)) return [];
  if (state.type !== 'human') {
    const message = 'notify applies only to a human state (a decision); add type: human or remove notify';
    return [{ key: pointer('states', name, 'notify'), atKey: true, message }];
  }
  const { tool, connection } = notify as { tool?: unknown; connection?: unknown };
  if ((tool === undefined) === (connection === undefined)) {
    const message = 'notify takes exactly one of tool (<collection>/<tool>) and connection';
    return [{ key: pointer('states', name, 'notify'), atKey: true, message }];
  }
  if (typeof tool === 'string' && !notifyToolPattern.test(tool)) {
    const message = `notify.tool "${tool.slice(0, 80)}" is not <collection>/<tool>, such as mail/send_decision`;
    return [{ key: pointer('states', name, 'notify', 'tool'), message }];
  }
  if (connection !== undefined) {
    const message = 'notify.connection names an outgoing webhook connection, which this platform does not serve ' +
      'yet; use notify.tool with a collection tool instead';
    return [{ key: pointer('states', name, 'notify', 'connection'), message }];
  }
  return [];
}
