/**
 * `cairn semantic …` commands: import, publish, token create|list|revoke, log, improvements.
 */
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import { importProject } from './semantic-import.ts';
import { terminalSafe } from './terminal-text.ts';

/** Parsed options the commands read (strings as given on the command line). */
export interface CommandOptions {
  project?: string;
  /** `--org <id>`: the organization a new project goes to (default: the caller's only one). */
  org?: string;
  publish?: boolean;
  models?: string;
  expires?: string;
  name?: string;
  tool?: string;
  status?: string;
  token?: string;
  from?: string;
  to?: string;
  limit?: string;
  'page-size'?: string;
}

/** What a command prints: `human` text, or `data` as JSON with --json. */
export interface CommandOutput {
  data: unknown;
  human: string;
}

/** Runs `cairn semantic <args>`. @throws CliError with a one-line reason */
export async function runSemantic(target: ApiTarget, args: string[], options: CommandOptions, progress: (line: string) => void): Promise<CommandOutput> {
  const [command, ...rest] = args;
  switch (command) {
    case 'import': return importCommand(target, rest, options, progress);
    case 'publish': {
      const slug = need(rest[0], 'cairn semantic publish <slug>');
      const build = await callApi<{ buildId: string; revision: number; models: string[] }>(target, 'POST', `/api/semantic/projects/${slug}/publish`);
      return { data: build, human: `Published ${slug} revision ${build.revision} (build ${build.buildId}): ${build.models.join(', ')}` };
    }
    case 'token': return tokenCommand(target, rest, options);
    case 'log': return logCommand(target, rest, options);
    case 'improvements': {
      const slug = need(rest[0], 'cairn semantic improvements <slug>');
      const { improvements } = await callApi<{ improvements: { createdAt: string; modelName: string; title: string; description: string }[] }>(target, 'GET', `/api/semantic/projects/${slug}/improvements`);
      const human = improvements.length === 0 ? 'No improvement requests.' : improvements.map((i) => `${oneLine(i.createdAt)}  ${oneLine(i.modelName)}  ${oneLine(i.title)}\n    ${terminalSafe(i.description).replace(/\n/g, '\n    ')}`).join('\n');
      return { data: improvements, human };
    }
    default:
      throw new CliError(`unknown command "semantic ${command ?? ''}". Commands: import, publish, token create|list|revoke, log, improvements (see cairn --help).`, 2);
  }
}

async function importCommand(target: ApiTarget, rest: string[], options: CommandOptions, progress: (line: string) => void): Promise<CommandOutput> {
  const dir = need(rest[0], 'cairn semantic import <dir> --project <slug> [--org <id>] [--publish]');
  const slug = need(options.project, 'cairn semantic import <dir> --project <slug> [--org <id>] [--publish]');
  const pageSize = options['page-size'] === undefined ? undefined : Number(options['page-size']);
  if (pageSize !== undefined && !Number.isInteger(pageSize)) throw new CliError('--page-size must be a whole number from 1 to 200', 2);
  const publish = Boolean(options.publish);
  const result = await importProject(target, { dir, slug, orgId: options.org, publish, pageSize, progress });
  const human = [
    `${result.created ? 'Created' : 'Updated'} project ${slug}: revision ${result.revision} (commit ${result.commitId.slice(0, 10)})`,
    `  models: ${result.models.join(', ')}`,
    `  data:   ${result.data.join(', ') || 'none'}`,
    result.published ? `  published build ${result.published.buildId}` : `  not published: run cairn semantic publish ${slug}`,
  ].join('\n');
  return { data: result, human };
}

async function tokenCommand(target: ApiTarget, rest: string[], options: CommandOptions): Promise<CommandOutput> {
  const [sub, slugArg, id] = rest;
  const slug = need(slugArg, `cairn semantic token ${sub ?? 'create|list|revoke'} <slug>`);
  if (sub === 'create') {
    const models = need(options.models, 'cairn semantic token create <slug> --models a,b [--expires YYYY-MM-DD]').split(',').map((m) => m.trim()).filter(Boolean);
    const created = await callApi<{ token: string }>(target, 'POST', `/api/semantic/projects/${slug}/tokens`, { models, name: options.name, expiresAt: options.expires });
    return { data: created, human: created.token };
  }
  if (sub === 'list') {
    const { tokens } = await callApi<{ tokens: { id: string; name: string; displayPrefix: string; models: string[]; state: string; lastUsedAt?: string; events30d: number; expiresAt?: string }[] }>(target, 'GET', `/api/semantic/projects/${slug}/tokens`);
    const rows = tokens.map((t) => [t.id, t.name, `${t.displayPrefix}…`, t.models.join(','), t.state, t.expiresAt ?? '-', t.lastUsedAt ? relativeTime(t.lastUsedAt) : 'never', String(t.events30d)]);
    return { data: tokens, human: table(['ID', 'NAME', 'TOKEN', 'MODELS', 'STATE', 'EXPIRES', 'LAST USED', 'EVENTS (30D)'], rows) };
  }
  if (sub === 'revoke') {
    const tokenId = need(id, 'cairn semantic token revoke <slug> <token-id>');
    const result = await callApi(target, 'DELETE', `/api/semantic/projects/${slug}/tokens/${encodeURIComponent(tokenId)}`);
    return { data: result, human: `Revoked token ${tokenId}.` };
  }
  throw new CliError('usage: cairn semantic token create|list|revoke <slug> …', 2);
}

async function logCommand(target: ApiTarget, rest: string[], options: CommandOptions): Promise<CommandOutput> {
  const slug = need(rest[0], 'cairn semantic log <slug> [--tool T] [--status success|error] [--token-id ID] [--from DATE] [--to DATE] [--limit N]');
  const query = new URLSearchParams();
  for (const key of ['tool', 'status', 'token', 'from', 'to', 'limit'] as const) if (options[key]) query.set(key, String(options[key]));
  const { calls } = await callApi<{ calls: { at: string; tool: string; status: string; tokenId: string; plane: string; durationMs: number; input: unknown }[] }>(target, 'GET', `/api/semantic/projects/${slug}/calls?${query}`);
  const rows = calls.map((c) => [c.at, c.tool, c.status, c.tokenId, c.plane, `${c.durationMs} ms`, JSON.stringify(c.input).slice(0, 80)]);
  return { data: calls, human: calls.length === 0 ? 'No calls match.' : table(['TIME', 'TOOL', 'STATUS', 'TOKEN', 'ENDPOINT', 'DURATION', 'INPUT'], rows) };
}

function need(value: string | undefined, usage: string): string {
  if (!value) throw new CliError(`usage: ${usage}`, 2);
  return value;
}

/** Plain aligned columns; cells are shown on one line with unsafe characters escaped. */
export function table(header: string[], rows: string[][]): string {
  const safeRows = rows.map((r) => r.map((c) => oneLine(c ?? '')));
  const widths = header.map((h, i) => Math.max(h.length, ...safeRows.map((r) => (r[i] ?? '').length)));
  return [header, ...safeRows].map((r) => r.map((c, i) => (c ?? '').padEnd(widths[i])).join('  ').trimEnd()).join('\n');
}

/** "3 min ago (2026-11-22T09:00:00.000Z)": relative time of an instant, with the absolute one. */
export function relativeTime(iso: string, now = new Date()): string {
  const seconds = Math.max(0, Math.round((now.getTime() - new Date(iso).getTime()) / 1000));
  const units: [number, string][] = [[86_400, 'd'], [3_600, 'h'], [60, 'min'], [1, 's']];
  const [size, unit] = units.find(([s]) => seconds >= s) ?? [1, 's'];
  return `${Math.floor(seconds / size)} ${unit} ago (${iso})`;
}

/** `text` for one line of a terminal: controls, newlines and bidirectional characters escaped. */
function oneLine(text: string): string {
  return terminalSafe(text, { newlines: false });
}
