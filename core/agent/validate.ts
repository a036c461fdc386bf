/**
 * The strict validator of an agent repository, used at publish and by `cairn agent validate <dir>`:
 * every file the format names is checked against its schema (unknown keys are errors), then across files:
 * trigger ids are unique across the agent's workflows, a completion trigger names another existing
 * workflow, every workflow folder has workflow.yaml and every skill folder SKILL.md, folder names are
 * slugs, and a workflow folder holds only the files the format names. Every problem names file, line,
 * column and key, and says what to do.
 *
 * Source: docs/agent-format.md; spec/platform-service.md § Trigger declarations, § Limits, § Errors.
 */
import { type AgentFile, checkAgentsFile, checkSkillFile, checkTestCase, checkWorkflowProse } from './documents.ts';
import { slugRegExp } from './model.ts';
import { checkWorkflow, type WorkflowSummary } from './workflow-checks.ts';
import { type AgentProblem, isProblem, parseYamlSource, pointer, type YamlSource } from './yaml-source.ts';

/**
 * The outcome of {@link validateAgentRepository}: `ok` when `problems` is empty; problems sorted by file,
 * line and column; `counts` of what the repository declares (workflows, states, triggers, skills, test cases).
 * Source: docs/agent-format.md.
 */
export interface AgentValidation {
  ok: boolean;
  problems: AgentProblem[];
  counts: { workflows: number; states: number; triggers: number; skills: number; tests: number };
}

interface Checked {
  problems: AgentProblem[];
  workflows: Map<string, { summary: WorkflowSummary; source: YamlSource }>;
}

const whole = (file: string, message: string, key = '/'): AgentProblem => ({ file, line: 1, column: 1, key, message });
const normalize = (path: string): string => path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');

/** Which files of a workflow folder the format names, and the problem of any other. */
function workflowFileProblem(slug: string, rest: string): string | undefined {
  if (rest === 'workflow.yaml' || rest === 'WORKFLOW.md') return undefined;
  if (rest === 'workflow.yml') return 'the machine file is named workflow.yaml; rename this file';
  if (rest.startsWith('hooks/')) {
    return /^hooks\/[^/]+\.js$/.test(rest)
      ? undefined
      : `hooks/ holds only .js scripts directly inside it; move or remove ${rest}`;
  }
  if (rest.startsWith('tests/')) {
    return /^tests\/[^/]+\.test\.yaml$/.test(rest)
      ? undefined
      : `tests/ holds only <name>.test.yaml cases directly inside it; rename or remove ${rest}`;
  }
  return `workflows/${slug}/ holds only workflow.yaml, WORKFLOW.md, hooks/*.js and tests/*.test.yaml; move or ` +
    `remove ${rest}`;
}

function folderProblems(files: AgentFile[], paths: ReadonlySet<string>): AgentProblem[] {
  const problems: AgentProblem[] = [];
  const folders = new Map<string, string>();
  for (const { path } of files) {
    const [top, folder, ...rest] = path.split('/');
    if (top !== 'workflows' && top !== 'skills') continue;
    if (rest.length === 0) {
      problems.push(
        whole(
          path,
          `${top}/ holds only folders (one per ${top === 'workflows' ? 'workflow' : 'skill'}); move this file into one`,
        ),
      );
    } else folders.set(`${top}/${folder}`, top);
    if (top === 'workflows' && rest.length > 0) {
      const why = workflowFileProblem(folder, rest.join('/'));
      if (why) problems.push(whole(path, `unknown file: ${why}`));
    }
  }
  for (const [folder, top] of folders) {
    const name = folder.slice(top.length + 1);
    if (!slugRegExp.test(name)) {
      problems.push(
        whole(
          `${folder}/`,
          `folder name "${name}" is not a slug; rename it with lowercase letters and digits joined by single hyphens`,
        ),
      );
    }
    const required = top === 'workflows' ? 'workflow.yaml' : 'SKILL.md';
    if (!paths.has(`${folder}/${required}`)) {
      problems.push(whole(`${folder}/`, `${folder}/ has no ${required}; add it or remove the folder`));
    }
  }
  return problems;
}

function checkWorkflows(files: AgentFile[], paths: ReadonlySet<string>): Checked {
  const checked: Checked = { problems: [], workflows: new Map() };
  for (const file of files) {
    const match = /^workflows\/([^/]+)\/workflow\.yaml$/.exec(file.path);
    if (!match) continue;
    const source = parseYamlSource(file.path, file.text);
    if (isProblem(source)) {
      checked.problems.push(source);
      continue;
    }
    const { problems, summary } = checkWorkflow(match[1], source.data, paths);
    checked.problems.push(...problems.map(source.place));
    checked.workflows.set(match[1], { summary, source });
  }
  return checked;
}

/**
 * Problems across workflows: trigger ids unique in the agent; a completion trigger names another workflow.
 * @param declared - slugs of every `workflows/<slug>/workflow.yaml` file, also those that did not parse (their own
 *   problem is reported there; a completion trigger naming one is not a second problem)
 */
function agentWideProblems(workflows: Checked['workflows'], declared: ReadonlySet<string>): AgentProblem[] {
  const problems: AgentProblem[] = [];
  const firstById = new Map<string, string>();
  for (const { summary, source } of workflows.values()) {
    for (const trigger of summary.triggers) {
      const key = pointer('states', trigger.state, 'triggers', trigger.id);
      const first = firstById.get(trigger.id);
      if (first) {
        problems.push(
          source.place({
            key,
            atKey: true,
            message: `trigger id "${trigger.id}" is already declared in ${first}; trigger ids are unique across the ` +
              `agent's workflows: rename one`,
          }),
        );
      } else firstById.set(trigger.id, `workflows/${summary.slug}/workflow.yaml (state ${trigger.state})`);
      const target = trigger.fields.workflow;
      if (trigger.type !== 'completion' || typeof target !== 'string') continue;
      if (target === summary.slug) {
        problems.push(
          source.place({
            key: `${key}/workflow`,
            message: `a completion trigger fires after another workflow's turn; "${target}" is this workflow: name ` +
              `another one`,
          }),
        );
      } else if (!workflows.has(target) && !declared.has(target)) {
        problems.push(
          source.place({
            key: `${key}/workflow`,
            message: `workflow "${target}" does not exist in this agent; use one of: ${
              [...workflows.keys()].filter((w) => w !== summary.slug).join(', ') || '(no other workflow)'
            }`,
          }),
        );
      }
    }
  }
  return problems;
}

/** Slugs of the workflow files present (`workflows/<slug>/workflow.yaml`). */
const declaredWorkflows = (files: AgentFile[]): Set<string> =>
  new Set(files.flatMap((f) => /^workflows\/([^/]+)\/workflow\.yaml$/.exec(f.path)?.[1] ?? []));

function otherFileProblems(files: AgentFile[], workflows: Checked['workflows']): AgentProblem[] {
  return files.flatMap((file) => {
    if (file.path === 'AGENTS.md') return checkAgentsFile(file);
    const skill = /^skills\/([^/]+)\/SKILL\.md$/.exec(file.path);
    if (skill) return checkSkillFile(file, skill[1]);
    if (/^workflows\/[^/]+\/WORKFLOW\.md$/.test(file.path)) return checkWorkflowProse(file);
    const test = /^workflows\/([^/]+)\/tests\/[^/]+\.test\.yaml$/.exec(file.path);
    return test ? checkTestCase(file, workflows.get(test[1])?.summary) : [];
  });
}

const byPosition = (a: AgentProblem, b: AgentProblem): number =>
  a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.key.localeCompare(b.key);

/**
 * Validates an agent repository.
 * @param input - the repository's files with paths relative to its root (`AGENTS.md`,
 *   `workflows/<slug>/…`, `skills/<slug>/…`); other paths are ignored
 * @returns `{ ok, problems, counts }`; never throws for bad content
 * Source: docs/agent-format.md; spec/platform-service.md § Trigger declarations, § Limits, § Errors.
 */
export function validateAgentRepository(input: AgentFile[]): AgentValidation {
  const files = input.map((f) => ({ path: normalize(f.path), text: f.text }));
  const paths = new Set(files.map((f) => f.path));
  const problems: AgentProblem[] = paths.has('AGENTS.md') ? [] : [
    whole(
      'AGENTS.md',
      'AGENTS.md is missing; add it with front matter holding description (at most 500 characters) and the system ' +
        'prompt below',
    ),
  ];
  const checked = checkWorkflows(files, paths);
  problems.push(
    ...folderProblems(files, paths),
    ...checked.problems,
    ...agentWideProblems(checked.workflows, declaredWorkflows(files)),
    ...otherFileProblems(files, checked.workflows),
  );
  const summaries = [...checked.workflows.values()].map((w) => w.summary);
  const counts = {
    workflows: summaries.length,
    states: summaries.reduce((n, s) => n + s.states.length, 0),
    triggers: summaries.reduce((n, s) => n + s.triggers.length, 0),
    skills: files.filter((f) => /^skills\/[^/]+\/SKILL\.md$/.test(f.path)).length,
    tests: files.filter((f) => /^workflows\/[^/]+\/tests\/[^/]+\.test\.yaml$/.test(f.path)).length,
  };
  return { ok: problems.length === 0, problems: problems.sort(byPosition), counts };
}
