/**
 * `cairn agent validate <dir>`: checks an agent repository on disk with the platform's strict validator
 * (the one publish uses) and prints each problem as `file:line:col key: message`, or a one-line summary
 * when it is valid. Works offline: it talks to no instance.
 *
 * Source: docs/decisions.md D7 § Operators; docs/agent-format.md.
 */
import { lstat, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { validateAgentRepository, type AgentFile, type AgentValidation } from '../../core/agent/index.ts';
import { callApi, CliError, type ApiTarget } from './api-client.ts';
import { importAgentCommand, type AgentImportOptions } from './agent-import.ts';
import type { CommandOutput } from './semantic-commands.ts';
import { terminalSafe } from './terminal-text.ts';
import { listFiles } from '../../core/adapters/runtime/list-files.ts';

/** A command's output and its exit code (0 by default; 1 when the repository has problems). */
export interface AgentCommandOutput extends CommandOutput {
  exitCode?: number;
}

/** Files the validator reads the text of; other files count by their path only. */
const parsed = /(^AGENTS\.md$|\.(md|ya?ml)$)/;
/** Files larger than this are listed by path but not read (an asset, not a format file). */
const maxTextBytes = 1024 * 1024;


/**
 * Reads the agent files of a directory: AGENTS.md, workflows/** and skills/** (other top-level entries,
 * `.git` and symbolic links are skipped).
 * @throws CliError when `dir` is not a directory
 */
export async function readAgentDirectory(dir: string): Promise<AgentFile[]> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info?.isDirectory()) throw new CliError(`${dir} is not a directory: give the folder holding AGENTS.md, workflows/ and skills/`);
  const tops = await Promise.all(['workflows', 'skills'].map(async (name) => {
    const path = join(dir, name);
    return (await lstat(path).catch(() => undefined))?.isDirectory() ? listFiles(path) : [];
  }));
  const agents = (await lstat(join(dir, 'AGENTS.md')).catch(() => undefined))?.isFile() ? [join(dir, 'AGENTS.md')] : [];
  return Promise.all([...agents, ...tops.flat()].map(async (path) => {
    const rel = relative(dir, path).split(sep).join('/');
    const size = (await lstat(path)).size;
    const text = parsed.test(rel) && size <= maxTextBytes ? await readFile(path, 'utf8') : '';
    return { path: rel, text };
  }));
}

/** One problem as one terminal-safe line: `file:line:col key: message`. */
export function problemLine(problem: AgentValidation['problems'][number]): string {
  return terminalSafe(`${problem.file}:${problem.line}:${problem.column} ${problem.key}: ${problem.message}`, { newlines: false });
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

const validateUsage = 'usage: cairn agent validate <dir>, or cairn agent validate --agent <slug> --env <name> (the draft)';

async function validateCommand(args: string[], target?: ApiTarget, options: AgentImportOptions = {}): Promise<AgentCommandOutput> {
  const draft = args.length === 0 && options.agent !== undefined;
  if (draft && (!options.env || !target)) throw new CliError(validateUsage, 2);
  if (!draft && (!args[0] || args.length > 1)) throw new CliError(validateUsage, 2);
  // --agent/--env: the environment's draft as the server holds it (GET …/files, Maintainer), checked here.
  const dir = draft ? `${options.agent} (${options.env} draft)` : args[0]!;
  const files = draft
    ? (await callApi<{ files: AgentFile[] }>(target!, 'GET', `/api/agents/${encodeURIComponent(options.agent!)}/environments/${encodeURIComponent(options.env!)}/files`)).files
    : await readAgentDirectory(dir);
  const result = validateAgentRepository(files);
  if (!result.ok) {
    const lines = [...result.problems.map(problemLine), `${terminalSafe(dir, { newlines: false })}: ${plural(result.problems.length, 'problem')}; fix them and run cairn agent validate again`];
    return { data: result, human: lines.join('\n'), exitCode: 1 };
  }
  const { workflows, states, triggers, skills, tests } = result.counts;
  const summary = `${terminalSafe(dir, { newlines: false })}: valid (${plural(workflows, 'workflow')}, ${plural(states, 'state')}, ${plural(triggers, 'trigger')}, ${plural(skills, 'skill')}, ${plural(tests, 'test case')})`;
  return { data: result, human: summary, exitCode: 0 };
}

/**
 * Runs `cairn agent <args>`: `validate <dir>` (offline), `import <dir> --agent <slug> …` (against `target`).
 * @returns the output (`data` is `{ ok, problems, counts }` for --json) and the exit code: 0 valid, 1 problems
 * @throws CliError with a one-line reason (exit 2 on a usage error)
 */
export async function runAgent(args: string[], target?: ApiTarget, options: AgentImportOptions = {}): Promise<AgentCommandOutput> {
  const [command, ...rest] = args;
  if (command === 'validate') return validateCommand(rest, target, options);
  if (command === 'import' && target) return importAgentCommand(target, rest, options);
  throw new CliError(`unknown agent command "${command ?? ''}" (see cairn --help)`, 2);
}
