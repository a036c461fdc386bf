import { describe, expect, it } from 'vitest';
import { configuredCost } from './turn-cost.ts';

describe('the cost of a model call', () => {
  it("prices a call with the offered model's prices (the default when none is named), 0 without prices", () => {
    const models = {
      providers: [],
      offered: [{ id: 'a', provider: 'p', prices: { input: 3, output: 15 } }, {
        id: 'b',
        provider: 'p',
        prices: { input: 1, output: 1 },
      }],
      default: 'b',
    };
    const usage = { inputTokens: 1_000_000, outputTokens: 1_000_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
    expect(configuredCost(models, 'a', usage)).toBe(18);
    expect(configuredCost(models, undefined, usage)).toBe(2);
    expect(configuredCost(undefined, 'a', usage)).toBe(0);
    // A default left out by a placeholder: the call runs on the first offered model, and is priced as it.
    expect(configuredCost({ ...models, default: 'gone' }, undefined, usage)).toBe(18);
  });
});
