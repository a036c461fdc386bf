/**
 * semantic-mcp's settings of the query processes' fair shares (docs/decisions.md D18 § 2): defaults, overrides, and a
 * refusal naming the variable for a value that is not a positive whole number.
 */
import { describe, expect, it } from 'vitest';
import type { ServiceEnv } from '../../core/config/platform-env-model.ts';
import { parseSemanticMcpSettings } from './settings.ts';

const base = { mcpRateLimitMax: 120, trustedProxies: [] } as unknown as ServiceEnv;
const parse = (env: Record<string, string>) => parseSemanticMcpSettings(env, base, '/tmp');

describe('query process shares', () => {
  it('default to 4 processes, 3 running per project, 2 per token, 8 and 4 waiting, 15 s of wait', () => {
    expect(parse({})).toMatchObject({
      queryProcesses: 4,
      shareLimits: {
        runningPerProject: 3, runningPerToken: 2, waitingPerProject: 8, waitingPerToken: 4, maxWaitMs: 15_000,
      },
    });
  });

  it('follow SEMANTIC_QUERY_PROCESSES for the project share and take each override', () => {
    expect(parse({ SEMANTIC_QUERY_PROCESSES: '8' }).shareLimits.runningPerProject).toBe(7);
    expect(parse({ SEMANTIC_QUERY_PROCESSES: '1' }).shareLimits.runningPerProject).toBe(1);
    const set = parse({
      SEMANTIC_QUERIES_PER_PROJECT: '2', SEMANTIC_QUERIES_PER_TOKEN: '1', SEMANTIC_QUERIES_WAITING_PER_PROJECT: '20',
      SEMANTIC_QUERIES_WAITING_PER_TOKEN: '5', SEMANTIC_QUERY_WAIT_SECONDS: '30',
    });
    expect(set.shareLimits).toEqual({
      runningPerProject: 2, runningPerToken: 1, waitingPerProject: 20, waitingPerToken: 5, maxWaitMs: 30_000,
    });
  });

  it.each(['0', '-1', 'many', '1.5'])('refuses %s, naming the variable', (value) => {
    expect(() => parse({ SEMANTIC_QUERY_WAIT_SECONDS: value })).toThrow(/SEMANTIC_QUERY_WAIT_SECONDS/);
  });
});

describe('the semantic cache cap', () => {
  it('defaults to 10,240 MiB and takes SEMANTIC_CACHE_MAX_MB in mebibytes', () => {
    expect(parse({}).cacheMaxBytes).toBe(10_240 * 2 ** 20);
    expect(parse({ SEMANTIC_CACHE_MAX_MB: '512' }).cacheMaxBytes).toBe(512 * 2 ** 20);
  });

  it.each(['0', '-5', '1.5', '10GB'])('refuses %s, naming the variable', (value) => {
    expect(() => parse({ SEMANTIC_CACHE_MAX_MB: value })).toThrow(/SEMANTIC_CACHE_MAX_MB/);
  });
});
