/**
 * Decisions over an MCP endpoint: a call whose session parks for a decision answers it (`decision`: id, state,
 * options, fields, expiresAt), and the platform tool `decide` ({sessionId, to, comment?, fields?}) takes it with
 * channel `mcp`, then answers as the workflow's tool would (waiting for the decision's turn).
 *
 * Only the caller that started the session decides it: the session was opened by this endpoint's connection (same
 * organization, agent, environment and identifier, kept in the session's `trigger` variable with the caller's kind
 * and subject) for the same caller, a member or an OIDC subject by their subject, an endpoint token caller as the
 * holder of the connection's token. A public endpoint has no caller to tell apart, so `decide` decides nothing there.
 * Anything else (another caller, another endpoint, a missing session) gets one and the same "not found" tool error,
 * which names nothing.
 *
 * Source: docs/decisions.md D26 § 3; spec/platform-service.md § Tool-protocol endpoint.
 */
import type { EndpointCallCounter } from './endpoint-calls.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import type { SessionRecord } from '../session/model.ts';
import { sessionsOf } from '../session/session-store.ts';
import { takeDecision } from '../session/decisions.ts';
import type { AdmittedCaller } from './admission.ts';
import { type McpCallDeps, type McpToolResult, resultOf, type ServedTools, waitForTurn } from './mcp-calls.ts';
import type { McpTool } from './mcp-tools.ts';
import type { ConnectionRecord } from './model.ts';

/** The platform tool's name. A workflow of this slug is not served as a tool (./mcp-tools.ts). */
export const DECIDE_TOOL = 'decide';

/** The `decide` tool as tools/list shows it. */
export const decideToolDefinition = {
  name: DECIDE_TOOL,
  description: 'Takes the decision a session you started through this endpoint waits for (its status is ' +
    'awaiting_decision): `to` is one of the options its result listed, `fields` the values the decision carries.',
  inputSchema: {
    type: 'object' as const,
    properties: {
      sessionId: { type: 'string', description: 'The sessionId of the result that awaits a decision.' },
      to: { type: 'string', description: "The option's `to`." },
      comment: { type: 'string', description: 'Why (kept on the session trail).' },
      fields: { type: 'object', description: "Values of the decision's fields, by name." },
    },
    required: ['sessionId', 'to'],
    additionalProperties: false,
  },
};

const toolError = (text: string): McpToolResult => ({ isError: true, content: [{ type: 'text', text }] });
const notFound = () => toolError('No session that waits for your decision has this id on this endpoint.');

/**
 * Whether `caller` of `connection` started root session `session` (see the module comment). A public caller never.
 */
export function startedBy(session: SessionRecord, connection: ConnectionRecord, caller: AdmittedCaller): boolean {
  if (caller.kind === 'public' || session.depth !== 0) return false;
  const sameEndpoint = session.orgId === connection.orgId && session.agentId === connection.agentId &&
    session.environment === connection.environment;
  const trigger = session.variables.trigger as unknown as Record<string, unknown> | undefined;
  if (!sameEndpoint || trigger?.type !== 'mcp' || trigger.connection !== connection.identifier) return false;
  if (trigger.caller !== caller.kind) return false;
  return caller.kind === 'token' || (caller.subject !== undefined && trigger.subject === caller.subject);
}

/** The arguments of a `decide` call, or the tool error naming what is wrong. */
function decideArgs(args: Record<string, unknown>): DecideArgs | McpToolResult {
  const { sessionId, to, comment, fields } = args;
  const unknown = Object.keys(args).filter((k) => !(k in decideToolDefinition.inputSchema.properties));
  if (typeof sessionId !== 'string' || typeof to !== 'string' || unknown.length > 0) {
    return toolError(
      'decide takes sessionId and to (strings), and optional comment (a string) and fields (an object).',
    );
  }
  if (comment !== undefined && typeof comment !== 'string') return toolError('Argument "comment" must be a string.');
  if (fields !== undefined && (typeof fields !== 'object' || fields === null || Array.isArray(fields))) {
    return toolError('Argument "fields" must be an object.');
  }
  return { sessionId, to, ...(comment === undefined ? {} : { comment }), ...(fields ? { fields } : {}) } as DecideArgs;
}

interface DecideArgs {
  sessionId: string;
  to: string;
  comment?: string;
  fields?: Record<string, unknown>;
}

/** A `decide` call: who calls, what it sends, and the request's count of the endpoint's calls (before the turn). */
export interface DecideCall {
  caller: AdmittedCaller;
  args: Record<string, unknown>;
  /** Counted once the decision would be taken (./endpoint-calls.ts; its 429 is thrown). */
  calls?: EndpointCallCounter;
}

/**
 * Takes a decision through the `decide` tool, then waits for its turn like a workflow call.
 * @returns the tool result (`status`, `message`, `sessionId`, a new `decision` if it parks again…), or a tool error:
 *   not found (another caller's, another endpoint's or a missing session), not a choice, not awaiting a decision
 */
export async function decideMcp(
  deps: McpCallDeps,
  connection: ConnectionRecord,
  served: ServedTools,
  call: DecideCall,
): Promise<McpToolResult> {
  const args = decideArgs(call.args);
  if ('content' in args) return args;
  const session = args.sessionId.length <= 200 ? await sessionsOf(deps).findOne({ _id: args.sessionId }) : null;
  if (!session || !startedBy(session, connection, call.caller)) return notFound();
  await call.calls?.count();
  let turnId: string;
  try {
    const decision = { to: args.to, comment: args.comment, fields: args.fields, channel: 'mcp' as const };
    turnId = (await takeDecision(deps, session, decision, call.caller.subject ?? `${connection.identifier} token`))._id;
  } catch (error) {
    if (isPlatformError(error) && (error.status ?? 500) < 500) return toolError(error.message);
    throw error;
  }
  const tool = served.tools.find((t) => t.name === session.workflow) ?? plainTool(session.workflow);
  return resultOf(deps, tool, session._id, await waitForTurn(deps, session._id, turnId));
}

/** A tool of a workflow no longer served: no returns, no trace. */
const plainTool = (name: string): McpTool => ({
  name,
  description: '',
  inputSchema: { type: 'object', properties: {}, required: [], additionalProperties: false },
  trigger: { id: '', state: '' },
  returns: [],
  trace: false,
});
