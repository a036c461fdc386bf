import { describe, expect, it } from 'vitest';
import { modelsOfState, trustedModel, trustedPromptCache } from './call-choice.ts';
import type { StateView, WorkflowView } from './workflow-view.ts';

const state = (slug: string, more: Partial<StateView> = {}): StateView =>
  ({ slug, model: undefined, before: [], after: [], ...more }) as StateView;
const workflow = {
  model: 'base',
  promptCache: true,
  states: {
    plain: state('plain'),
    own: state('own', { model: 'big' }),
    judged: state('judged', {
      after: [{ name: 'r', rubric: 'Is it kind?', threshold: 0.7, model: 'judge' }, { name: 's.js', threshold: 0.7 }],
    }),
  },
} as unknown as WorkflowView;

describe('the model and prompt cache of a call, from the trusted records', () => {
  it("uses the state's model (else the workflow's); a rubric hook of the state may name its own", () => {
    expect(modelsOfState(workflow, 'judged')).toEqual(['base', 'judge']);
    expect(trustedModel(workflow, 'own', 'unpriced')).toBe('big');
    expect(trustedModel(workflow, 'plain', undefined)).toBe('base');
    expect(trustedModel(workflow, 'judged', 'judge')).toBe('judge');
    expect(trustedModel(workflow, 'plain', 'judge')).toBe('base');
    expect(trustedModel(workflow, 'gone', 'anything')).toBe('base');
  });

  it("turns the cache on only where the operator and the workflow both allow it, at the operator's ttl", () => {
    expect(trustedPromptCache({ enabled: true, ttl: '1h' }, workflow)).toEqual({ enabled: true, ttl: '1h' });
    expect(trustedPromptCache({ enabled: false, ttl: '5m' }, workflow)).toEqual({ enabled: false, ttl: '5m' });
    const off = { ...workflow, promptCache: false };
    expect(trustedPromptCache({ enabled: true, ttl: '5m' }, off)).toEqual({ enabled: false, ttl: '5m' });
  });
});
