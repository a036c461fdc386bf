/**
 * `cairn design <agent> --env <name> --message TEXT [--thread ID]`: one message to the design agent on an
 * environment's draft, over the design endpoint's AG-UI stream (`POST /api/agents/:agent/environments/:env/design`,
 * Maintainer). The agent's reply is printed as it streams, each tool it calls on stderr as `[tool] <name>`, and the
 * thread to continue the chat with as the last stderr line (`thread <id>`; pass it as --thread). Exit 0 when the
 * run finished, 1 on a run error. `--json` prints {threadId, text, tools, outcome} instead.
 *
 * Source: issue "The design agent" § Front doors (CLI).
 */
import { CliError, type ApiTarget } from './api-client.ts';
import type { CommandOutput } from './semantic-commands.ts';

/** Options of `cairn design`, as given on the command line. */
export interface DesignOptions {
  env?: string;
  message?: string;
  thread?: string;
  json?: boolean;
  /** Where progress lines go (stderr). */
  note(line: string): void;
  /** Where the reply's text goes as it streams (stdout; not with --json). */
  write(text: string): void;
}

const usage = 'cairn design <agent> --env <name> --message TEXT [--thread ID]';

interface DesignRun {
  threadId: string;
  text: string;
  tools: string[];
  outcome: 'finished' | 'error';
  error?: string;
}

/** Runs `cairn design <args>`. @throws CliError with a one-line reason (exit 2 on a usage error) */
export async function runDesign(target: ApiTarget, args: string[], options: DesignOptions): Promise<CommandOutput & { exitCode: number }> {
  const [agent, ...rest] = args;
  if (!agent || rest.length > 0 || !options.env || !options.message?.trim()) throw new CliError(`usage: ${usage}`, 2);
  const path = `/api/agents/${encodeURIComponent(agent)}/environments/${encodeURIComponent(options.env)}/design`;
  const headers: Record<string, string> = { accept: 'text/event-stream', 'content-type': 'application/json' };
  if (target.token) headers.authorization = `Bearer ${target.token}`;
  const body = {
    threadId: options.thread ?? '', runId: `cli-${Date.now()}`, tools: [], context: [],
    messages: [{ id: 'u1', role: 'user', content: options.message }],
  };
  let response: Response;
  try {
    response = await fetch(new URL(path, target.url), { method: 'POST', headers, body: JSON.stringify(body) });
  } catch (error) {
    throw new CliError(`cannot reach ${target.url}: ${(error as Error).message}. Is cairn running (scripts/start)? Use --url or CAIRN_URL.`);
  }
  if (!response.ok) {
    const text = await response.text();
    const error = (() => { try { return (JSON.parse(text) as { error?: { code?: string; message?: string } }).error; } catch { return undefined; } })();
    throw new CliError(`${error?.message ?? `${response.status} ${response.statusText}`}${error?.code ? ` (${error.code})` : ''}`);
  }
  const run = await readRun(response, options);
  if (run.threadId) options.note(`thread ${run.threadId}`);
  if (run.outcome === 'error') options.note(`the design agent's run failed: ${run.error ?? 'no message'}`);
  // The reply was printed as it streamed: nothing more to print.
  return { data: run, human: '', exitCode: run.outcome === 'finished' ? 0 : 1 };
}

/** Reads the server-sent events of one run. */
async function readRun(response: Response, options: DesignOptions): Promise<DesignRun> {
  const run: DesignRun = { threadId: '', text: '', tools: [], outcome: 'error', error: 'the stream ended early' };
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trimStart()).join('\n');
      if (data) onEvent(JSON.parse(data) as Record<string, unknown>, run, options);
    }
  }
  return run;
}

function onEvent(event: Record<string, unknown>, run: DesignRun, options: DesignOptions): void {
  const type = event.type;
  if (type === 'RUN_STARTED' && typeof event.threadId === 'string') run.threadId = event.threadId;
  if (type === 'TEXT_MESSAGE_CONTENT' && typeof event.delta === 'string') {
    run.text += event.delta;
    if (!options.json) options.write(event.delta);
  }
  if (type === 'TEXT_MESSAGE_END' && !options.json) options.write('\n');
  if (type === 'TOOL_CALL_START' && typeof event.toolCallName === 'string') {
    run.tools.push(event.toolCallName);
    options.note(`[tool] ${event.toolCallName}`);
  }
  if (type === 'RUN_FINISHED') { run.outcome = 'finished'; delete run.error; }
  if (type === 'RUN_ERROR') { run.outcome = 'error'; run.error = typeof event.message === 'string' ? event.message : undefined; }
}
