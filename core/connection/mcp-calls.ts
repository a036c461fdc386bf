/**
 * Calls of an MCP endpoint's tools: the tools served on the environment's current published build, and a call
 * that opens a new session of the workflow at its mcp entry state with the arguments as locked variables, then
 * waits for the turn to settle (reading the turn once per change of the session's records:
 * core/session/change-watch.ts) and answers the session's status, the last assistant text,
 * the returns on success, and, with `trace: true`, the steps and the tool calls. A non-conforming argument, a
 * workflow out of service or a reached spend cap is a tool error and opens no session.
 *
 * Source: spec/platform-service.md § Tool-protocol endpoint, § Tool-call result status (mcp endpoint), § Errors;
 * docs/decisions.md D8 § Endpoints (MCP).
 */
import type { EndpointCallCounter } from './endpoint-calls.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import type { ConnectionRecord } from './model.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { openFiredSession } from '../session/session-opening.ts';
import type { PendingWork, SessionValue, TurnRecord } from '../session/model.ts';
import { readThread, sessionsOf, type SessionStoreDeps, turnsOf } from '../session/session-store.ts';
import { settledSession } from '../session/turn-settle.ts';
import { checkSpendCaps } from '../session/spend.ts';
import { argumentProblem, type McpTool, mcpToolsOf, type UnlistedTool } from './mcp-tools.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import { publishedEnvironment } from '../session/published-environment.ts';
import { type ChangeWatch, Wakeup } from '../session/change-watch.ts';

/** What the MCP calls need. */
export interface McpCallDeps extends SessionStoreDeps {
  enqueueTurn(turnId: string): Promise<void>;
  builds: ReturnType<typeof publishedWorkflows>;
  /** Resolves after `ms` milliseconds. */
  sleep(ms: number): Promise<void>;
  /** How long a call waits for its turn to settle before answering `running` (ms; default 60 000). */
  waitMs?: number;
  /** Wakes a call when its session's records change (absent: the turn is read every `pollMs`). */
  watch?: ChangeWatch;
  /** Without a `watch`, how often the turn record is read while waiting (ms; default 200). */
  pollMs?: number;
}

/** The tools served on the environment's published build (none when nothing is published). */
export interface ServedTools {
  tools: McpTool[];
  unlisted: UnlistedTool[];
  build?: { orgId: string; buildId: string; commitId: string; agent: PublishedAgent };
}

/** A tools/call result in the MCP shape (content, structured content, isError). */
export interface McpToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** Reads the tools connection `connection` serves now. */
export async function servedTools(deps: McpCallDeps, connection: ConnectionRecord): Promise<ServedTools> {
  const published = await publishedEnvironment(deps, connection.agentId, connection.environment);
  if (!published) return { tools: [], unlisted: [] };
  const { env, agent } = published;
  return {
    ...mcpToolsOf(agent, connection.identifier),
    build: { orgId: env.orgId, buildId: env.published.buildId, commitId: env.published.commitId, agent },
  };
}

const toolError = (text: string): McpToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/**
 * Calls tool `name` with `args` on the served build.
 * @param call - `callerKind`: who was admitted (member, token, oidc, public), and `subject` (a member's or an OIDC
 *   token's), kept in the session's `trigger` variable; `calls`: the request's counter of the endpoint's calls
 *   per minute (./endpoint-calls.ts), counted once the call would start a turn, just before the session opens
 *   (its refusal, 429 `rate_limited`, is thrown)
 * @returns a tool error (no session) for an unknown tool, a non-conforming argument, a workflow out of service
 *   or a reached spend cap; otherwise the result `{status, message, sessionId, returns?, steps?, toolCalls?}`
 */
export async function callMcpTool(
  deps: McpCallDeps,
  connection: ConnectionRecord,
  served: ServedTools,
  call: {
    name: string;
    args: Record<string, unknown>;
    callerKind: string;
    subject?: string;
    calls?: EndpointCallCounter;
  },
): Promise<McpToolResult> {
  const tool = served.tools.find((t) => t.name === call.name);
  if (!tool || !served.build) {
    return toolError(
      `This endpoint has no tool "${call.name.slice(0, 80)}"; call tools/list for the tools it serves (${
        served.tools.map((t) => t.name).join(', ') || 'none'
      }).`,
    );
  }
  const problem = argumentProblem(tool, call.args);
  if (problem) return toolError(problem);
  if (served.build.agent.workflows[tool.name].definition.disabled) {
    return toolError(
      `Workflow "${tool.name}" is out of service (disabled); no session was opened. Try again once a maintainer ` +
        `enables it.`,
    );
  }
  const scope = {
    orgId: served.build.orgId,
    agentId: connection.agentId,
    environment: connection.environment,
    workflow: tool.name,
  };
  try {
    await checkSpendCaps(deps, scope);
  } catch (error) {
    if (isPlatformError(error, 'spend_cap_reached')) return toolError(`${error.message} No session was opened.`);
    throw error;
  }
  await call.calls?.count();
  const { session, turnId } = await openFiredSession(deps, {
    ...scope,
    buildId: served.build.buildId,
    commitId: served.build.commitId,
    state: tool.trigger.state,
    trigger: { id: tool.trigger.id, type: 'mcp' },
  }, {
    // Who called: the MCP `decide` tool takes decisions only for this caller (./mcp-decisions.ts).
    payload: {
      connection: connection.identifier,
      caller: call.callerKind,
      ...(call.subject ? { subject: call.subject } : {}),
    },
    args: call.args as Record<string, SessionValue>,
    message: `The tool "${tool.name}" was called; its arguments are locked variables (${
      Object.keys(call.args).join(', ') || 'none'
    }).`,
  });
  const settled = await waitForTurn(deps, session._id, turnId);
  return resultOf(deps, tool, session._id, settled);
}

/**
 * Reads turn `turnId` of root session `rootId` until it leaves queued/running or the bound (`waitMs`) passes: once
 * now and once per change with a `watch`, else every `pollMs`. The settled turn, or null.
 */
export async function waitForTurn(deps: McpCallDeps, rootId: string, turnId: string): Promise<TurnRecord | null> {
  const settled = (turn: TurnRecord | null) => turn !== null && turn.status !== 'queued' && turn.status !== 'running';
  if (deps.watch) {
    const wake = new Wakeup();
    const stop = await deps.watch.follow({ rootId, turnId }, wake.notify);
    let over = false;
    const bound = setTimeout(() => {
      over = true;
      wake.notify();
    }, deps.waitMs ?? 60_000);
    try {
      for (;;) {
        const turn = await turnsOf(deps).findOne({ _id: turnId });
        if (settled(turn)) return turn;
        if (over) return null;
        await wake.wait();
      }
    } finally {
      clearTimeout(bound);
      stop();
    }
  }
  const pollMs = deps.pollMs ?? 200;
  const attempts = Math.max(1, Math.ceil((deps.waitMs ?? 60_000) / pollMs));
  for (let i = 0; i < attempts; i += 1) {
    const turn = await turnsOf(deps).findOne({ _id: turnId });
    if (turn && turn.status !== 'queued' && turn.status !== 'running') return turn;
    await deps.sleep(pollMs);
  }
  return null;
}

/**
 * The structured result of a call whose turn settled (or not, null: `running`): `{status, message, sessionId}`, the
 * returns on success, the error on failure, the pending decision (`decision`: id, state, options, fields?,
 * expiresAt?) while it awaits one, and with `trace` the steps and tool calls.
 */
export async function resultOf(
  deps: McpCallDeps,
  tool: McpTool,
  sessionId: string,
  settledTurn: TurnRecord | null,
): Promise<McpToolResult> {
  const stored = await sessionsOf(deps).findOne({ _id: sessionId });
  const session = stored && settledSession(stored, settledTurn);
  const settled = settledTurn !== null;
  const thread = stored ? await readThread(deps, stored) : [];
  const assistant = thread.map((m) => m.message).filter((m) => m.role === 'assistant');
  const lastText = [...assistant].reverse().find((m) => m.content.trim().length > 0)?.content;
  const status = settled && session ? session.status : 'running';
  const message = lastText ??
    (status === 'running'
      ? 'The session is still running; the platform stopped waiting for it.'
      : session?.error?.message ?? '');
  const structured: Record<string, unknown> = { status, message, sessionId };
  if (status === 'succeeded' && session) {
    structured.returns = Object.fromEntries(
      tool.returns.filter((r) => r in session.variables).map((r) => [r, session.variables[r]]),
    );
  }
  if (status === 'failed' && session?.error) structured.error = session.error;
  if (status === 'awaiting_decision' && session?.pending?.kind === 'decision') {
    structured.decision = pendingDecisionView(session.pending);
  }
  if (tool.trace && session) {
    structured.steps = session.trail.map((t) => ({
      state: t.state,
      via: t.via,
      at: t.at instanceof Date ? t.at.toISOString() : t.at,
      ...(t.note ? { note: t.note } : {}),
    }));
    structured.toolCalls = assistant.flatMap((m) => (m.role === 'assistant' ? m.toolCalls ?? [] : [])).map((c) => ({
      name: c.name,
      arguments: c.input,
    }));
  }
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** A pending decision as a tool result shows it: id, state, options, and fields and expiresAt when declared. */
export function pendingDecisionView(pending: Extract<PendingWork, { kind: 'decision' }>): Record<string, unknown> {
  return {
    id: pending.id,
    state: pending.state,
    options: pending.options.map((o) => ({ to: o.to, description: o.description })),
    ...(pending.fields ? { fields: pending.fields } : {}),
    ...(pending.expiresAt ? { expiresAt: pending.expiresAt } : {}),
  };
}
