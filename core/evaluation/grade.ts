/**
 * The `grade` assertion of an evaluation case: a judge model scores the case's conversation from 0 to 1 against
 * the rubric, with its reason; a score below the threshold (default 0.7, as for rubric hooks) fails the step. The
 * judge is the environment's model unless the rubric names its own; a rubric's own model is reached through
 * `PLATFORM_API_BASE_URL`, `PLATFORM_API_KEY` and `PLATFORM_MODEL`, which a worker never receives, so there it
 * fails with a message naming them. The judge's usage is reported apart from the agent's.
 *
 * Source: spec/platform-service.md § Deployment settings (PLATFORM_API_BASE_URL, PLATFORM_API_KEY,
 * PLATFORM_MODEL), § Errors (a rubric naming its own model without the SDK variables); docs/agent-format.md
 * § Tests (`grade`).
 */
import type { Step } from '../agent/documents-model.ts';
import type { ModelMessage, ModelUsage } from '../ports/model-provider.ts';
import { DEFAULT_RUBRIC_THRESHOLD, judgeMessages, readJudgement } from '../session/rubric-judge.ts';
import type { AssertionResult } from './assertions.ts';

/** The variables a rubric naming its own model needs, all three together. */
export const RUBRIC_MODEL_VARIABLES = ['PLATFORM_API_BASE_URL', 'PLATFORM_API_KEY', 'PLATFORM_MODEL'] as const;

/** The grade of a case's `grade` step, as a step's rubric says it. */
export type GradeStep = NonNullable<Step['grade']>;

/** What grading needs: the judge call, and which of {@link RUBRIC_MODEL_VARIABLES} this process has. */
export interface GradeDeps {
  /**
   * One judge call: `model` undefined means the environment's model, else the rubric's own (through the
   * `PLATFORM_*` variables). Resolves with the answer's text, its usage and its cost in USD (0 without prices).
   */
  judge(request: { model?: string; messages: ModelMessage[] }): Promise<JudgeAnswer>;
  /** The names of {@link RUBRIC_MODEL_VARIABLES} set in this process (a worker: none). */
  presentVariables: readonly string[];
}

/** A judge's answer: its text, usage and cost in USD (absent: 0). */
export interface JudgeAnswer {
  text: string;
  usage: ModelUsage;
  costUsd?: number;
}

/** A grade's outcome: the assertion result, and the judge's score, reason and usage when it answered. */
export interface GradeResult extends AssertionResult {
  score?: number;
  reason?: string;
  /** The judge's usage, apart from the agent's; absent when no judge was called. */
  judgeUsage?: ModelUsage;
  /** The judge's cost in USD; absent when no judge was called. */
  judgeCostUsd?: number;
}

/** The longest transcript a judge is sent (characters; the start is cut, so the latest turns stay). */
export const TRANSCRIPT_CHARS = 60_000;

/** The conversation as a judge reads it: each message as `User:`, `Assistant:`, a tool call or a tool result. */
export function transcript(messages: ModelMessage[]): string {
  const lines = messages.flatMap((m): string[] => {
    if (m.role === 'system') return [];
    if (m.role === 'user') return [`User: ${m.content}`];
    if (m.role === 'tool') return m.results.map((r) => `Tool result (${r.name}): ${JSON.stringify(r.output)}`);
    const calls = (m.toolCalls ?? []).map((c) => `Assistant called ${c.name} with ${JSON.stringify(c.input)}`);
    return [...(m.content ? [`Assistant: ${m.content}`] : []), ...calls];
  });
  const text = lines.join('\n\n');
  return text.length > TRANSCRIPT_CHARS ? `…${text.slice(text.length - TRANSCRIPT_CHARS)}` : text;
}

/**
 * Grades `messages` against `grade`. Never throws for the judge's sake: a judge that fails or answers no score
 * fails the step with that said.
 */
export async function gradeConversation(
  deps: GradeDeps,
  grade: GradeStep,
  messages: ModelMessage[],
): Promise<GradeResult> {
  const threshold = grade.threshold ?? DEFAULT_RUBRIC_THRESHOLD;
  const expected = `a score of at least ${threshold} against the rubric`;
  const failed = (actual: string, extra: Partial<GradeResult> = {}): GradeResult => ({
    assertion: 'grade',
    passed: false,
    expected,
    actual,
    ...extra,
  });
  if (grade.model !== undefined) {
    const missing = RUBRIC_MODEL_VARIABLES.filter((name) => !deps.presentVariables.includes(name));
    if (missing.length > 0) {
      return failed(
        `the rubric names its own model (${grade.model}), which needs ${missing.join(', ')}, not set here ` +
          `(a worker receives none of them); remove model: to grade with the environment's model`,
      );
    }
  }
  let answer: JudgeAnswer;
  try {
    answer = await deps.judge({ model: grade.model, messages: judgeMessages(grade.rubric, transcript(messages)) });
  } catch (error) {
    return failed(`the judge model failed: ${(error as Error).message}`);
  }
  const judgement = readJudgement(answer.text);
  if (judgement === undefined) {
    return failed('the judge model answered no score', { judgeUsage: answer.usage, judgeCostUsd: answer.costUsd ?? 0 });
  }
  const { score, reason } = judgement;
  return {
    assertion: 'grade',
    passed: score >= threshold,
    expected,
    actual: `scored ${score}${reason ? `: ${reason}` : ''}`,
    score,
    reason,
    judgeUsage: answer.usage,
    judgeCostUsd: answer.costUsd ?? 0,
  };
}
