/**
 * Checks of the agent's Markdown files and evaluation cases: AGENTS.md and SKILL.md front matter,
 * WORKFLOW.md (no front matter), and `*.test.yaml` cases against the workflow they test.
 *
 * Source: docs/agent-format.md (layout, § Tests); spec/platform-service.md § Limits (agent description).
 */
import type { TSchema } from '@sinclair/typebox';
import { AgentFrontMatter, SkillFrontMatter, TestCase } from './documents-model.ts';
import { schemaProblems } from './schema-problems.ts';
import type { WorkflowSummary } from './workflow-checks.ts';
import {
  type AgentProblem,
  isProblem,
  type KeyedProblem,
  parseYamlSource,
  pointer,
  splitFrontMatter,
  type YamlSource,
} from './yaml-source.ts';

/** A file of the repository: its path (relative, `/`-separated) and text. Source: docs/agent-format.md. */
export interface AgentFile {
  path: string;
  text: string;
}

const whole = (file: string, message: string): AgentProblem => ({ file, line: 1, column: 1, key: '/', message });

/** Parses a Markdown file's front matter and checks it against `schema`; `extra` adds cross-checks. */
function checkFrontMatter(
  file: AgentFile,
  schema: TSchema,
  example: string,
  extra: (data: Record<string, unknown>) => KeyedProblem[] = () => [],
): AgentProblem[] {
  const split = splitFrontMatter(file.text);
  if (!split) {
    return [whole(file.path, `no front matter; start the file with a block between two --- lines holding ${example}`)];
  }
  const source = parseYamlSource(file.path, split.yaml, 1);
  if (isProblem(source)) return [source];
  const data = source.data ?? {};
  const problems = schemaProblems(schema, data);
  const record = data !== null && typeof data === 'object' && !Array.isArray(data)
    ? (data as Record<string, unknown>)
    : undefined;
  return [...problems, ...(record && problems.length === 0 ? extra(record) : [])].map(source.place);
}

/**
 * Checks AGENTS.md: front matter with `description` (≤ 500 characters) and an optional `name`.
 * Source: docs/agent-format.md (AGENTS.md); spec/platform-service.md § Limits.
 */
export function checkAgentsFile(file: AgentFile): AgentProblem[] {
  return checkFrontMatter(file, AgentFrontMatter, 'description: <what the agent is for, at most 500 characters>');
}

/**
 * Checks skills/<folder>/SKILL.md: front matter `name` equal to the folder and a `description`.
 * Source: docs/agent-format.md (skills/<slug>/SKILL.md).
 */
export function checkSkillFile(file: AgentFile, folder: string): AgentProblem[] {
  return checkFrontMatter(
    file,
    SkillFrontMatter,
    `name: ${folder} and description: <when to use it>`,
    (data) =>
      data.name === folder ? [] : [{
        key: '/name',
        message: `name "${
          String(data.name)
        }" differs from the folder "${folder}"; set name: ${folder} or rename the folder`,
      }],
  );
}

/**
 * Checks WORKFLOW.md: prose for the model, with no front matter.
 * Source: docs/agent-format.md (workflows/<slug>/WORKFLOW.md).
 */
export function checkWorkflowProse(file: AgentFile): AgentProblem[] {
  return splitFrontMatter(file.text)
    ? [whole(file.path, 'WORKFLOW.md takes no front matter; move its keys into workflow.yaml and keep only prose here')]
    : [];
}

function caseReferences(data: Record<string, unknown>, workflow: WorkflowSummary): KeyedProblem[] {
  const problems: KeyedProblem[] = [];
  const states = new Set(workflow.states);
  const stateList = workflow.states.join(', ');
  if (typeof data.trigger === 'string' && !workflow.triggers.some((t) => t.id === data.trigger)) {
    const ids = workflow.triggers.map((t) => t.id).join(', ') || '(none)';
    problems.push({
      key: '/trigger',
      message: `trigger "${data.trigger}" is not declared in workflow "${workflow.slug}"; use one of: ${ids}`,
    });
  }
  (Array.isArray(data.steps) ? data.steps : []).forEach((step: Record<string, unknown> | null, i: number) => {
    const to = (step?.decide as { to?: unknown } | undefined)?.to;
    if (typeof to === 'string' && !states.has(to)) {
      problems.push({
        key: pointer('steps', i, 'decide', 'to'),
        message: `decision to "${to}", which is not a state of workflow "${workflow.slug}"; use one of: ${stateList}`,
      });
    }
    const reached = step?.reachedState;
    if (typeof reached === 'string' && !states.has(reached)) {
      problems.push({
        key: pointer('steps', i, 'reachedState'),
        message: `"${reached}" is not a state of workflow "${workflow.slug}"; use one of: ${stateList}`,
      });
    }
  });
  return problems;
}

/** A live mock answers nothing itself: it names neither `result` nor `error`. */
function liveMockProblems(data: Record<string, unknown>): KeyedProblem[] {
  return (Array.isArray(data.mocks) ? data.mocks : []).flatMap((mock: unknown, i: number) => {
    const m = isRecordValue(mock) ? mock : {};
    if (m.live !== true || (!('result' in m) && !('error' in m))) return [];
    const message = 'a mock with live: true sends the call to the service; drop its result and error, or drop live';
    return [{ key: pointer('mocks', i), message }];
  });
}

function stepShapeProblems(data: Record<string, unknown>): KeyedProblem[] {
  return (Array.isArray(data.steps) ? data.steps : []).flatMap((step: unknown, i: number) => {
    if (step === null || typeof step !== 'object' || Array.isArray(step)) return [];
    const keys = Object.keys(step);
    if (keys.length === 1) return [];
    return [{
      key: pointer('steps', i),
      message: `a step holds exactly one action or assertion; found ${
        keys.length === 0 ? 'none' : keys.join(', ')
      }: split it into one step per key`,
    }];
  });
}

/**
 * Checks one evaluation case against its schema and its workflow (trigger, decided and reached states).
 * @param workflow - the summary of the workflow the case lives in, or undefined when its workflow.yaml failed
 * Source: docs/agent-format.md § Tests.
 */
export function checkTestCase(file: AgentFile, workflow: WorkflowSummary | undefined): AgentProblem[] {
  const source: YamlSource | AgentProblem = parseYamlSource(file.path, file.text);
  if (isProblem(source)) return [source];
  const problems = [
    ...schemaProblems(TestCase, source.data),
    ...(isRecordValue(source.data) ? [...stepShapeProblems(source.data), ...liveMockProblems(source.data)] : []),
  ];
  if (problems.length === 0 && workflow && isRecordValue(source.data)) {
    problems.push(...caseReferences(source.data, workflow));
  }
  return problems.map(source.place);
}

const isRecordValue = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
