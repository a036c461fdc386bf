/**
 * A capped workflow needs a model with prices: which models count as priced, and the publish problems of an
 * environment whose capped workflows run (by default or in a state) on a model without.
 */
import { describe, expect, it } from 'vitest';
import type { ModelsConfig } from '../config/config-model.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { writeSpendCap } from '../session/spend.ts';
import { modelHasPrices, unpricedCapProblems } from './spend-cap-models.ts';

const models: ModelsConfig = {
  providers: [{ id: 'p', type: 'openai-compatible', apiBaseUrl: 'http://127.0.0.1:9/v1' }],
  offered: [
    { id: 'paid', provider: 'p', prices: { input: 3, output: 15 } },
    { id: 'free', provider: 'p', prices: { input: 0, output: 0 } },
  ],
};
const workflow = (settings: string, stateModel = '') => ({
  path: 'workflows/desk/workflow.yaml',
  text: `${settings}states:\n  ask:\n    triggers:\n      manual: {}\n${stateModel}` +
    '    transitions:\n      - to: done\n        description: Done.\n  done:\n    title: Done\n',
});
const agentFile = { path: 'AGENTS.md', text: '---\nname: Desk\ndescription: A desk.\n---\nYou help.\n' };

describe('spend caps and model prices', () => {
  it('counts a model as priced when it is offered with an input or output price', () => {
    expect(modelHasPrices(models, 'paid')).toBe(true);
    expect(modelHasPrices(models, 'free')).toBe(false);
    expect(modelHasPrices(models, 'gone')).toBe(false);
    expect(modelHasPrices(models, undefined)).toBe(true);
    expect(modelHasPrices({ ...models, default: 'free' }, undefined)).toBe(false);
    expect(modelHasPrices(undefined, 'paid')).toBe(false);
  });

  it('finds a capped workflow on a model without prices, by its settings or one of its states', async () => {
    const docs = createMemoryDocumentStore();
    const check = unpricedCapProblems({ docs, models });
    const scope = { orgId: 'o1', agentId: 'a1', environment: 'main', workflow: 'desk' };
    const files = (settings: string, stateModel = '') => [agentFile, workflow(settings, stateModel)];
    // Without a cap anything goes.
    expect(await check('a1', 'main', files('settings:\n  model: free\n'))).toEqual([]);
    await writeSpendCap({ docs, clock: { now: () => new Date(0) } }, scope, {
      period: 'day',
      limitUsd: 1,
      by: 'sub-ada',
    });
    expect(await check('a1', 'main', files(''))).toEqual([]);
    expect(await check('a1', 'main', files('settings:\n  model: free\n'))).toEqual([
      {
        file: 'workflows/desk/workflow.yaml',
        line: 1,
        column: 1,
        key: 'settings.model',
        message: expect.stringContaining('in environment "main", but its model "free" has no prices'),
      },
    ]);
    expect(await check('a1', 'main', files('', '    model: free\n'))).toHaveLength(1);
    // Another environment's cap does not bind this one.
    expect(await check('a1', 'staging', files('settings:\n  model: free\n'))).toEqual([]);
  });
});
