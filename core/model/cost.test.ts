import { describe, expect, it } from 'vitest';
import { addUsage, costOf, NO_USAGE } from './cost.ts';

describe('costOf', () => {
  const prices = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 };

  it('prices each disjoint count per million tokens', () => {
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, prices)).toBe(
      3,
    );
    expect(costOf({ inputTokens: 2000, outputTokens: 500, cacheReadTokens: 10_000, cacheWriteTokens: 4000 }, prices))
      .toBeCloseTo(0.006 + 0.0075 + 0.003 + 0.015, 12);
    expect(costOf(NO_USAGE, prices)).toBe(0);
  });

  it('cache prices default to the input price when absent', () => {
    expect(
      costOf({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 1_000_000, cacheWriteTokens: 1_000_000 }, {
        input: 2,
        output: 8,
      }),
    ).toBe(4);
  });
});

describe('addUsage', () => {
  it('adds each count', () => {
    expect(
      addUsage({ inputTokens: 1, outputTokens: 2, cacheReadTokens: 3, cacheWriteTokens: 4 }, {
        inputTokens: 10,
        outputTokens: 20,
        cacheReadTokens: 30,
        cacheWriteTokens: 40,
      }),
    )
      .toEqual({ inputTokens: 11, outputTokens: 22, cacheReadTokens: 33, cacheWriteTokens: 44 });
  });
});
