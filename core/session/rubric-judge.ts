/**
 * The judge of a rubric, shared by rubric hooks (./hooks.ts) and evaluation grades (core/evaluation/grade.ts): the
 * messages that ask a model to score a piece of work from 0 to 1 against a rubric, and the reading of its answer.
 *
 * Source: docs/agent-format.md § workflow.yaml (rubric hooks), § Tests (`grade`).
 */
import type { ModelMessage } from '../ports/model-provider.ts';

/** The threshold of a rubric that names none: a score below it refuses (a hook) or fails (a case). */
export const DEFAULT_RUBRIC_THRESHOLD = 0.7;

/** A judge's answer: a score from 0 to 1 and its one-sentence reason. */
export interface Judgement {
  score: number;
  reason: string;
}

/** The messages asking a judge to score `work` (text: a reply, or a conversation's transcript) against `rubric`. */
export function judgeMessages(rubric: string, work: string): ModelMessage[] {
  return [
    {
      role: 'system',
      content: 'You grade a piece of work against a rubric. Answer with JSON only: {"score": <0..1>, "reason": "<one ' +
        'sentence>"}.',
    },
    { role: 'user', content: `Rubric:\n${rubric}\n\nWork:\n${work}` },
  ];
}

/**
 * The judgement in a judge's answer text: the first `{…}` span parsed as JSON, with a numeric `score` (clamped to
 * 0–1) and an optional `reason`; undefined when there is none.
 */
export function readJudgement(text: string): Judgement | undefined {
  const match = /\{[\s\S]*\}/.exec(text);
  let parsed: unknown;
  try {
    parsed = match ? JSON.parse(match[0]) : undefined;
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { score, reason } = parsed as { score?: unknown; reason?: unknown };
  if (typeof score !== 'number' || !Number.isFinite(score)) return undefined;
  return { score: Math.min(1, Math.max(0, score)), reason: typeof reason === 'string' ? reason : '' };
}
