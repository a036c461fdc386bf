/**
 * What `cairn session …` prints: the shapes the session JSON routes answer, and their human text. Every
 * text that comes from the API (messages, notes, reasons, tool output) is made inert for the terminal
 * (see terminal-text.ts); one-line fields are kept on one line.
 *
 * Source: docs/decisions.md D7 § Operators; the session routes of bins/api (SessionView and the show answer).
 */
import { table } from './semantic-commands.ts';
import { terminalSafe } from './terminal-text.ts';

/** Token counts, model calls and cost (USD) of a session or a turn. */
export interface SessionUsage { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number; modelCalls: number; costUsd: number }

/** What a session is waiting for: a decision between options, or input from a person (`until`: ISO time). */
export type SessionPending = null
  | { kind: 'decision'; state: string; options: { to: string; description?: string }[] }
  | { kind: 'input'; reason: string; until?: string };

/** A session as the API shows it (`GET /api/sessions/:id`'s `session`, a list's items). Times are ISO strings. */
export interface SessionView {
  id: string; orgId: string; agentId: string; environment: string; workflow: string; buildId: string; commitId: string;
  status: string; state: string;
  trail: { state: string; via: string; at: string; note?: string; by?: string }[];
  variables: Record<string, unknown>; attributes: Record<string, unknown>;
  pending: SessionPending; usage: SessionUsage; error: null | { code: string; message: string };
  parentId?: string; dispatchId?: string; trigger: string | null; createdAt: string; updatedAt: string;
}

/** A message of a session's thread: `content` for user and assistant, `toolCalls` of an assistant, `results` of a tool message. */
export interface SessionMessage {
  seq: number; state: string; turnId: string; at: string;
  message: { role: string; content?: unknown; toolCalls?: { id?: string; name: string; input?: unknown }[]; results?: { callId?: string; name?: string; output?: unknown; isError?: boolean }[] };
}

/** A turn of a session (`kind`: start, decision, reply, …; `status`: queued, running, …). */
export interface SessionTurn {
  id: string; kind: string; status: string; usage: SessionUsage | null; error: null | { code: string; message: string };
  queuedAt: string; startedAt?: string | null; endedAt?: string | null;
}

/** `GET /api/sessions/:id`. */
export interface SessionDetail { session: SessionView; messages: SessionMessage[]; turns: SessionTurn[]; children: SessionView[] }

/** Longest tool-call arguments shown in `session show`, in characters. */
export const argumentsShown = 80;
/** Longest tool result shown in `session show`, in characters. */
export const resultShown = 200;

const one = (text: unknown): string => terminalSafe(String(text ?? ''), { newlines: false });

/** `text` on one line (line breaks and the blanks around them become one space), cut to `max` characters with `…` and the full length when it was longer. */
export function shorten(text: string, max: number): string {
  const line = text.replace(/[ \t]*(\r\n|\r|\n)[ \t]*/g, ' ');
  return line.length <= max ? line : `${line.slice(0, max)}… (${text.length} chars)`;
}

/** `value` as text: a string as it is, anything else as JSON. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((p) => typeof p?.text === 'string')) return value.map((p) => p.text).join('');
  return value === undefined ? '' : JSON.stringify(value);
}

/** Dollars with 4 decimals, e.g. `0.0123`. */
export function cost(usd: number | undefined): string {
  return (usd ?? 0).toFixed(4);
}

/** Human text of a started session: its status, then the id as the last word (for `awk '{print $NF}'`). */
export function formatStarted(answer: { session: SessionView; turnId: string }): string {
  const s = answer.session;
  return [
    `started ${one(s.workflow)} on ${one(s.environment)}: status ${one(s.status)}, state ${one(s.state)} (turn ${one(answer.turnId)})`,
    `session ${one(s.id)}`,
  ].join('\n');
}

/** One line per session: id, workflow, env, status, state, cost (USD), created. */
export function formatList(sessions: SessionView[]): string {
  if (sessions.length === 0) return 'No sessions.';
  const rows = sessions.map((s) => [s.id, s.workflow, s.environment, s.status, s.state, cost(s.usage?.costUsd), s.createdAt]);
  return table(['ID', 'WORKFLOW', 'ENV', 'STATUS', 'STATE', 'COST (USD)', 'CREATED'], rows);
}

/** The pending line(s) of session `id`: a decision's options, or the reason (and deadline) of a wait. */
export function formatPending(pending: SessionPending, id: string): string[] {
  if (!pending) return ['pending: nothing'];
  if (pending.kind === 'decision') {
    const options = pending.options.map((o) => `  --to ${one(o.to)}${o.description ? `  ${one(o.description)}` : ''}`);
    return [`pending: a decision in ${one(pending.state)} (cairn session decide ${one(id)} --to <state>):`, ...options];
  }
  return [`pending: input (cairn session reply ${one(id)} TEXT): ${one(pending.reason)}${pending.until ? ` (until ${one(pending.until)})` : ''}`];
}

/** One line per trail entry: `at  state ← via, note (by …)`. */
export function formatTrail(trail: SessionView['trail']): string[] {
  return trail.map((t) => `  ${one(t.at)}  ${one(t.state)} ← ${one(t.via)}${t.note ? `, ${one(t.note)}` : ''}${t.by ? ` (by ${one(t.by)})` : ''}`);
}

/** The lines of one message: `role: text`, tool calls by name with shortened arguments, shortened results. */
export function formatMessage(entry: SessionMessage): string[] {
  const { role, content, toolCalls = [], results = [] } = entry.message;
  const lines: string[] = [];
  const text = asText(content);
  if (text || (toolCalls.length === 0 && results.length === 0)) {
    lines.push(`  ${one(role)}: ${terminalSafe(text).replace(/\n/g, '\n    ')}`);
  }
  for (const call of toolCalls) lines.push(`  ${one(role)} → ${one(call.name)}(${one(shorten(asText(call.input ?? {}), argumentsShown))})`);
  for (const result of results) {
    lines.push(`  ${one(role)} ← ${one(result.name ?? result.callId)}${result.isError ? ' (error)' : ''}: ${one(shorten(asText(result.output), resultShown))}`);
  }
  return lines;
}

/** Usage and cost in one line. */
export function formatUsage(usage: SessionUsage): string {
  return `usage: ${usage.inputTokens} input, ${usage.outputTokens} output, ${usage.cacheReadTokens} cache-read, ${usage.cacheWriteTokens} cache-write tokens; ${usage.modelCalls} model call(s); cost $${cost(usage.costUsd)}`;
}

/** Human text of `session show`: status, state, pending, trail, messages, usage and cost, children. */
export function formatShow(detail: SessionDetail): string {
  const s = detail.session;
  const lines = [
    `session ${one(s.id)}: workflow ${one(s.workflow)} on ${one(s.environment)} (agent ${one(s.agentId)}, build ${one(s.buildId)})`,
    `status: ${one(s.status)}  state: ${one(s.state)}${s.parentId ? `  parent: ${one(s.parentId)} (dispatch ${one(s.dispatchId)})` : ''}`,
    ...(s.error ? [`error: ${one(s.error.message)} (${one(s.error.code)})`] : []),
    ...formatPending(s.pending, s.id),
    'trail:', ...formatTrail(s.trail),
    `messages (${detail.messages.length}):`, ...detail.messages.flatMap(formatMessage),
    formatUsage(s.usage),
  ];
  if (detail.children.length === 0) lines.push('children: none');
  else lines.push('children:', ...detail.children.map((c) => `  ${one(c.dispatchId ?? '-')}  ${one(c.workflow)}  ${one(c.status)}  ${one(c.id)}`));
  return lines.join('\n');
}
