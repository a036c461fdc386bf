/**
 * The cases an evaluation run takes from an agent's files (a draft's or a published build's): every
 * `workflows/<slug>/tests/<stem>.test.yaml`, or those of one workflow, or one case. Files are read by the agent
 * format's own reader (`parseYamlSource`: duplicate keys refused, aliases bounded).
 *
 * Source: docs/agent-format.md § Tests; issue "Evaluations" § Runs, § CLI (`--workflow`, `--case`).
 */
import type { TestCase } from '../agent/documents-model.ts';
import type { AgentFile } from '../agent/documents.ts';
import { formatAgentProblem } from '../agent/hosting.ts';
import { isProblem, parseYamlSource } from '../agent/yaml-source.ts';
import { PlatformError } from '../ports/platform-error.ts';

/** One case of a run: where it lives and what it says. */
export interface EvaluationCase {
  /** `<workflow>/<stem>`: the case's id within a run, e.g. `flights-analyst/cancelled-flights`. */
  id: string;
  workflow: string;
  /** The file name without `.test.yaml`. */
  stem: string;
  path: string;
  case: TestCase;
}

/** Which cases a run takes: all (neither key), one workflow's, or one case (`stem`, with or without `workflow`). */
export interface CaseSelection {
  workflow?: string;
  stem?: string;
}

const CASE_PATH = /^workflows\/([^/]+)\/tests\/([^/]+)\.test\.yaml$/;

/**
 * The selected cases of `files`, ordered by workflow then stem. The files are expected to have passed the agent
 * validator (a draft is validated before it runs; a build was validated when published).
 * @throws PlatformError `not_found` (404) when the selection names a workflow without cases or a case that does not
 *   exist (the message lists what exists), `invalid_request` (400) when the files hold no case at all or a case's
 *   YAML does not parse (naming its file, line and column)
 */
export function selectCases(files: AgentFile[], selection: CaseSelection = {}): EvaluationCase[] {
  const all = files.flatMap((file): EvaluationCase[] => {
    const match = CASE_PATH.exec(file.path);
    if (!match) return [];
    const [, workflow, stem] = match as unknown as [string, string, string];
    const source = parseYamlSource(file.path, file.text);
    if (isProblem(source)) throw new PlatformError('invalid_request', formatAgentProblem(source), { status: 400 });
    return [{ id: `${workflow}/${stem}`, workflow, stem, path: file.path, case: source.data as TestCase }];
  }).sort((a, b) => a.id.localeCompare(b.id));
  if (all.length === 0) {
    throw new PlatformError(
      'invalid_request',
      'this agent has no evaluation cases: add workflows/<workflow>/tests/<name>.test.yaml (docs/agent-format.md ' +
        '§ Tests)',
      { status: 400 },
    );
  }
  const chosen = all.filter((c) =>
    (selection.workflow === undefined || c.workflow === selection.workflow) &&
    (selection.stem === undefined || c.stem === selection.stem)
  );
  if (chosen.length === 0) {
    const named = [
      selection.workflow !== undefined ? `workflow ${selection.workflow}` : '',
      selection.stem !== undefined ? `case ${selection.stem}` : '',
    ].filter(Boolean).join(', ');
    const shown = all.slice(0, 20).map((c) => c.id).join(', ');
    throw new PlatformError('not_found', `no evaluation case matches ${named}; the cases are ${shown}`, {
      status: 404,
    });
  }
  return chosen;
}
