/**
 * The grade of an evaluation case and the rubric judge it shares with rubric hooks: the transcript a judge reads,
 * the threshold, a judge answering no score or failing, and a rubric naming its own model without the PLATFORM_*
 * variables. Source: docs/agent-format.md § Tests (`grade`); spec/platform-service.md § Errors.
 */
import { describe, expect, it } from 'vitest';
import type { ModelMessage } from '../ports/model-provider.ts';
import { judgeMessages, readJudgement } from '../session/rubric-judge.ts';
import { gradeConversation, type GradeDeps, RUBRIC_MODEL_VARIABLES, transcript, TRANSCRIPT_CHARS } from './grade.ts';

const usage = { inputTokens: 120, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0 };
const messages: ModelMessage[] = [
  { role: 'system', content: 'You are the flights analyst.' },
  { role: 'user', content: 'Which airline cancelled most?' },
  { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'semantic__execute_query', input: { q: 1 } }] },
  { role: 'tool', results: [{ callId: 'c1', name: 'semantic__execute_query', output: { rows: [['DL', 1204]] } }] },
  { role: 'assistant', content: 'Delta cancelled 1,204 flights.' },
];

/** A judge answering `text` (or failing with `error`), recording each request. */
function judge(text: string, error?: string): GradeDeps & { requests: { model?: string; messages: ModelMessage[] }[] } {
  const requests: { model?: string; messages: ModelMessage[] }[] = [];
  return {
    requests,
    presentVariables: [],
    judge: async (request) => {
      requests.push(request);
      if (error) throw new Error(error);
      return { text, usage, costUsd: 0.0021 };
    },
  };
}

describe('transcript', () => {
  it('shows the user, the assistant, its tool calls and their results, without the system prompt', () => {
    expect(transcript(messages)).toBe([
      'User: Which airline cancelled most?',
      'Assistant called semantic__execute_query with {"q":1}',
      'Tool result (semantic__execute_query): {"rows":[["DL",1204]]}',
      'Assistant: Delta cancelled 1,204 flights.',
    ].join('\n\n'));
  });

  it('keeps the latest part of a long conversation', () => {
    const long = transcript([{ role: 'user', content: 'a'.repeat(TRANSCRIPT_CHARS) }, messages[4]!]);
    expect(long.length).toBe(TRANSCRIPT_CHARS + 1);
    expect(long.startsWith('…')).toBe(true);
    expect(long.endsWith('Assistant: Delta cancelled 1,204 flights.')).toBe(true);
  });
});

describe('gradeConversation', () => {
  it("passes at or above the threshold (default 0.7), with the reason and the judge's usage and cost", async () => {
    const deps = judge('Here you go: {"score": 0.8, "reason": "Names the airline and the count."}');
    const result = await gradeConversation(deps, { rubric: 'Names the airline.' }, messages);
    expect(result).toEqual({
      assertion: 'grade',
      passed: true,
      expected: 'a score of at least 0.7 against the rubric',
      actual: 'scored 0.8: Names the airline and the count.',
      score: 0.8,
      reason: 'Names the airline and the count.',
      judgeUsage: usage,
      judgeCostUsd: 0.0021,
    });
    expect(deps.requests[0]!.model).toBeUndefined();
    expect(deps.requests[0]!.messages[1]!).toMatchObject({ content: expect.stringContaining('Rubric:\nNames the') });
    expect(deps.requests[0]!.messages[1]!).toMatchObject({ content: expect.stringContaining('User: Which airline') });
  });

  it('fails below its threshold, and when the judge answers no score or fails', async () => {
    const low = await gradeConversation(judge('{"score": 0.8}'), { rubric: 'r', threshold: 0.9 }, messages);
    expect(low).toMatchObject({ passed: false, expected: 'a score of at least 0.9 against the rubric' });
    const none = await gradeConversation(judge('I think it is good.'), { rubric: 'r' }, messages);
    expect(none).toMatchObject({ passed: false, actual: 'the judge model answered no score', judgeUsage: usage });
    const down = await gradeConversation(judge('', 'model_unavailable: 503'), { rubric: 'r' }, messages);
    expect(down).toMatchObject({ passed: false, actual: 'the judge model failed: model_unavailable: 503' });
    expect(down.judgeUsage).toBeUndefined();
  });

  it('a rubric naming its own model without the PLATFORM_* variables fails naming them, calling no judge', async () => {
    const deps = judge('{"score": 1}');
    const result = await gradeConversation(deps, { rubric: 'r', model: 'judge-large' }, messages);
    expect(result.passed).toBe(false);
    expect(result.actual).toBe(
      'the rubric names its own model (judge-large), which needs PLATFORM_API_BASE_URL, PLATFORM_API_KEY, ' +
        'PLATFORM_MODEL, not set here (a worker receives none of them); remove model: to grade with the ' +
        "environment's model",
    );
    expect(deps.requests).toEqual([]);
    const partly = await gradeConversation(
      { ...deps, presentVariables: ['PLATFORM_API_KEY'] },
      { rubric: 'r', model: 'judge-large' },
      messages,
    );
    expect(partly.actual).toContain('needs PLATFORM_API_BASE_URL, PLATFORM_MODEL, not set here');
    const all = await gradeConversation(
      { ...deps, presentVariables: RUBRIC_MODEL_VARIABLES },
      { rubric: 'r', model: 'judge-large' },
      messages,
    );
    expect(all.passed).toBe(true);
    expect(deps.requests.map((r) => r.model)).toEqual(['judge-large']);
  });
});

describe('the rubric judge (shared with rubric hooks)', () => {
  it('reads the first JSON object of the answer, clamping the score to 0–1', () => {
    expect(readJudgement('```json\n{"score": 0.5, "reason": "ok"}\n```')).toEqual({ score: 0.5, reason: 'ok' });
    expect(readJudgement('{"score": 3}')).toEqual({ score: 1, reason: '' });
    expect(readJudgement('{"score": -1, "reason": 2}')).toEqual({ score: 0, reason: '' });
    expect(readJudgement('{"score": "high"}')).toBeUndefined();
    expect(readJudgement('{not json}')).toBeUndefined();
    expect(readJudgement('no object')).toBeUndefined();
  });

  it('asks for JSON only, with the rubric and the work', () => {
    const [system, user] = judgeMessages('Be brief.', 'The answer.');
    expect(system).toMatchObject({ role: 'system', content: expect.stringContaining('Answer with JSON only') });
    expect(user).toEqual({ role: 'user', content: 'Rubric:\nBe brief.\n\nWork:\nThe answer.' });
  });
});
