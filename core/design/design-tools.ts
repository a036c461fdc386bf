/**
 * The design agent's tools over one agent environment's draft plane, run in the trusted process (never in a worker):
 * `design_list_files`, `design_read_file`, `design_write_file`, `design_delete_file`, `design_validate`,
 * `design_run_evaluations` and `design_list_tools`. There is no tool to publish, restore or promote: a person does,
 * and sees the diff first. Writes are limited to the repository's layout (./layout.ts) and hold only over what the
 * chat last read (core/agent/draft-files.ts): a file changed meanwhile is refused and handed back as it is now, so the
 * agent redoes its change on it. Every answer is JSON the model reads; a refusal is an error answer saying what to do.
 *
 * Source: issue "The design agent" § Tools, § A conversation per agent environment's draft.
 */
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  type AgentCaller,
  type AgentDeps,
  changeDraftFile,
  DraftFileChangedError,
  formatAgentProblem,
  listDraftFiles,
  readDraft,
  readDraftFile,
} from '../agent/hosting.ts';
import { validateAgentRepository } from '../agent/validate.ts';
import type { ModelToolDefinition } from '../ports/model-provider.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { checkDesignPath, LAYOUT_TEXT } from './layout.ts';

/** What one design chat has read: per path, the digest it read (null: read as absent). Kept by the trusted process. */
export interface DesignReads {
  digestOf(path: string): Promise<string | null | undefined>;
  note(path: string, digest: string | null): Promise<void>;
}

/** What the deployment offers workflows: tool collections (with their tools) and skills. */
export interface DesignOffer {
  collections: { name: string; description: string; tools: { name: string; description: string }[] }[];
  skills: { name: string; description: string }[];
}

/** What the tools need: the hosting use cases, and the process's evaluations and offer (ports). */
export interface DesignToolDeps {
  hosting: AgentDeps;
  /** Runs the draft's evaluation cases and waits for the verdict; absent: not available in this process. */
  runEvaluations?(
    target: DesignTarget,
    selection: { workflow?: string; case?: string },
  ): Promise<{ runId: string; passed: boolean; summary: string }>;
  /** The tool collections and skills this deployment offers. */
  offer(): Promise<DesignOffer>;
}

/** The draft a design chat works on, and who asks (a Maintainer of the agent). */
export interface DesignTarget {
  caller: AgentCaller;
  agentId: string;
  envName: string;
}

/** A design chat's context: its draft and what it has read. */
export interface DesignContext extends DesignTarget {
  reads: DesignReads;
}

/** A tool's answer to the model. */
export interface DesignToolAnswer {
  output: unknown;
  isError: boolean;
}

const Path = Type.String({ minLength: 1, maxLength: 300, description: 'a path of the agent repository' });
const schemas = {
  design_list_files: Type.Object({}, { additionalProperties: false }),
  design_read_file: Type.Object({ path: Path }, { additionalProperties: false }),
  design_write_file: Type.Object({
    path: Path,
    text: Type.String({ maxLength: 200_000, description: 'the whole new text of the file' }),
  }, { additionalProperties: false }),
  design_delete_file: Type.Object({ path: Path }, { additionalProperties: false }),
  design_validate: Type.Object({}, { additionalProperties: false }),
  design_run_evaluations: Type.Object({
    workflow: Type.Optional(Type.String({ description: "only this workflow's cases" })),
    case: Type.Optional(Type.String({ description: 'only the case of this file stem' })),
  }, { additionalProperties: false }),
  design_list_tools: Type.Object({}, { additionalProperties: false }),
};

/** The design tools' names. */
export type DesignToolName = keyof typeof schemas;
/** Every design tool name. */
export const designToolNames = Object.keys(schemas) as DesignToolName[];

const descriptions: Record<DesignToolName, string> = {
  design_list_files: 'List the files of the draft (path and size).',
  design_read_file: 'Read one file of the draft. Read a file before you change it.',
  design_write_file: `Write a whole file of the draft (created or replaced). Only these paths: ${LAYOUT_TEXT}. ` +
    'Validate after every change.',
  design_delete_file: 'Delete one file of the draft (read it first).',
  design_validate: 'Validate the draft as publish does: every problem with file, line, column and key.',
  design_run_evaluations: "Run the draft's evaluation cases (workflows/<slug>/tests/*.test.yaml); answers the " +
    'verdict and the failing steps.',
  design_list_tools: 'List the tool collections and skills this deployment offers, to write tool rules that exist.',
};

/** The tools as the design agent's model is offered them. */
export const designToolDefinitions: ModelToolDefinition[] = designToolNames.map((name) => ({
  name,
  description: descriptions[name],
  inputSchema: schemas[name] as unknown as Record<string, unknown>,
}));

const refused = (code: string, message: string, extra: Record<string, unknown> = {}): DesignToolAnswer => ({
  output: { error: { code, message }, ...extra },
  isError: true,
});

/**
 * Runs design tool `name` with `input` for the chat `context`. Never throws for the model's sake: a refusal (a bad
 * input, a path outside the layout, a changed file, a role the caller lacks) is an error answer; an unexpected
 * failure is thrown for the turn to fail.
 */
export async function runDesignTool(
  deps: DesignToolDeps,
  context: DesignContext,
  call: { name: string; input: unknown },
): Promise<DesignToolAnswer> {
  if (!(call.name in schemas)) {
    return refused('unknown_tool', `There is no design tool ${call.name}; use one of ${designToolNames.join(', ')}.`);
  }
  const name = call.name as DesignToolName;
  const input = call.input ?? {};
  if (!Value.Check(schemas[name], input)) {
    const first = [...Value.Errors(schemas[name], input)][0];
    const where = first ? `${first.path || '/'}: ${first.message}` : 'it does not match';
    return refused('invalid_input', `The input of ${name} is not valid (${where}).`);
  }
  try {
    return { output: await perform(deps, context, name, input as Record<string, unknown>), isError: false };
  } catch (error) {
    if (error instanceof DraftFileChangedError) {
      await context.reads.note(
        error.current?.path ?? String((input as { path?: string }).path),
        error.current?.digest ?? null,
      );
      return refused(error.code, error.message, { current: error.current ? { text: error.current.text } : null });
    }
    if (isPlatformError(error)) return refused(error.code, error.message);
    throw error;
  }
}

async function perform(
  deps: DesignToolDeps,
  context: DesignContext,
  name: DesignToolName,
  input: Record<string, unknown>,
): Promise<unknown> {
  const ref = { agentId: context.agentId, envName: context.envName };
  const { hosting } = deps;
  if (name === 'design_list_files') return { files: await listDraftFiles(hosting, context.caller, ref) };
  if (name === 'design_read_file') {
    const path = checkDesignPath(input.path);
    const file = await readDraftFile(hosting, context.caller, { ...ref, path });
    await context.reads.note(path, file?.digest ?? null);
    return file ? { path, text: file.text } : { path, exists: false };
  }
  if (name === 'design_write_file' || name === 'design_delete_file') {
    const path = checkDesignPath(input.path);
    const text = name === 'design_write_file' ? String(input.text) : null;
    const { file, commitId } = await changeDraftFile(hosting, context.caller, {
      ...ref,
      path,
      text,
      readDigest: await context.reads.digestOf(path),
      message: `Design agent: ${text === null ? 'delete' : 'write'} ${path}`,
    });
    await context.reads.note(path, file?.digest ?? null);
    return {
      path,
      [text === null ? 'deleted' : 'saved']: true,
      commitId,
      next: 'validate the draft (design_validate)',
    };
  }
  if (name === 'design_validate') return validateDraft(hosting, context);
  if (name === 'design_list_tools') return deps.offer();
  if (!deps.runEvaluations) {
    return { available: false, message: 'Evaluations cannot run here; ask a person to run `cairn eval run --draft`.' };
  }
  const selection = {
    ...(typeof input.workflow === 'string' ? { workflow: input.workflow } : {}),
    ...(typeof input.case === 'string' ? { case: input.case } : {}),
  };
  return deps.runEvaluations(context, selection);
}

/** The validator's answer on the draft: ok, every problem located, the counts. */
async function validateDraft(hosting: AgentDeps, context: DesignContext) {
  const result = validateAgentRepository(await readDraft(hosting, context.caller, context));
  return { ok: result.ok, problems: result.problems.map(formatAgentProblem), counts: result.counts };
}
