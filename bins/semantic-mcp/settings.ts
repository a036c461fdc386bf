/**
 * Settings of the semantic-mcp process beyond the platform's deployment settings: its own listening
 * address and DuckDB cache, parsed from a plain environment record.
 *
 * Source: spec/semantic-query-service.md § Limits (MCP_RATE_LIMIT_MAX);
 * spec/platform-service.md § Deployment settings (PLATFORM_TRUSTED_PROXIES).
 */
import { parseTrustedProxies, type TrustedProxies } from '../../core/auth/client-address.ts';
import { optional, port, positiveInteger, type EnvRecord } from '../../core/config/env-values.ts';
import { defaultShareLimits, type ShareLimits } from '../../core/adapters/duckdb/pool-shares.ts';
import type { ServiceEnv } from '../../core/config/platform-env-model.ts';

/** What semantic-mcp reads besides {@link ServiceEnv}. */
export interface SemanticMcpSettings {
  host: string;
  port: number;
  /** Requests per client IP per 60-second window (MCP_RATE_LIMIT_MAX, default 120). */
  rateLimitMax: number;
  rateLimitWindowSeconds: number;
  /** Proxies whose X-Forwarded-For is believed; loopback (the local front proxy) always is. */
  trustedProxies: TrustedProxies;
  /** Directory for DuckDB data files built from project data. */
  cacheDir: string;
  /** Bytes the cache directory may hold (SEMANTIC_CACHE_MAX_MB × 2^20, default 10,240 MiB). */
  cacheMaxBytes: number;
  /** Query processes alive at most (SEMANTIC_QUERY_PROCESSES, default 4). */
  queryProcesses: number;
  /** Fair shares of the query processes per project and token, and the longest wait for one (docs/decisions.md D18 §
   * 2). */
  shareLimits: ShareLimits;
}

/** Mebibytes the semantic cache may hold when SEMANTIC_CACHE_MAX_MB is unset (10 GiB). */
export const defaultCacheMaxMb = 10_240;

/**
 * Parses SEMANTIC_MCP_HOST (default every interface), SEMANTIC_MCP_PORT (3002), SEMANTIC_CACHE_DIR,
 * SEMANTIC_CACHE_MAX_MB (mebibytes, positive whole number, default {@link defaultCacheMaxMb}), and the
 * query processes' shares (positive whole numbers; docs/decisions.md D18 § 2): SEMANTIC_QUERY_PROCESSES (4),
 * SEMANTIC_QUERIES_PER_PROJECT (running at once; processes − 1, at least 1), SEMANTIC_QUERIES_PER_TOKEN (2),
 * SEMANTIC_QUERIES_WAITING_PER_PROJECT (8), SEMANTIC_QUERIES_WAITING_PER_TOKEN (4), SEMANTIC_QUERY_WAIT_SECONDS (15).
 * @throws PlatformError `invalid_config` naming the first bad variable
 */
export function parseSemanticMcpSettings(env: EnvRecord, base: ServiceEnv, tmpDir: string): SemanticMcpSettings {
  const queryProcesses = positiveInteger(env, 'SEMANTIC_QUERY_PROCESSES', 4);
  const defaults = defaultShareLimits(queryProcesses);
  const shareLimits: ShareLimits = {
    runningPerProject: positiveInteger(env, 'SEMANTIC_QUERIES_PER_PROJECT', defaults.runningPerProject),
    runningPerToken: positiveInteger(env, 'SEMANTIC_QUERIES_PER_TOKEN', defaults.runningPerToken),
    waitingPerProject: positiveInteger(env, 'SEMANTIC_QUERIES_WAITING_PER_PROJECT', defaults.waitingPerProject),
    waitingPerToken: positiveInteger(env, 'SEMANTIC_QUERIES_WAITING_PER_TOKEN', defaults.waitingPerToken),
    maxWaitMs: positiveInteger(env, 'SEMANTIC_QUERY_WAIT_SECONDS', defaults.maxWaitMs / 1000) * 1000,
  };
  return {
    queryProcesses,
    shareLimits,
    host: optional(env, 'SEMANTIC_MCP_HOST') ?? '0.0.0.0',
    port: port(env, 'SEMANTIC_MCP_PORT', 3002),
    rateLimitMax: base.mcpRateLimitMax,
    rateLimitWindowSeconds: 60,
    trustedProxies: [...parseTrustedProxies('127.0.0.1,::1'), ...parseTrustedProxies(base.trustedProxies.join(','))],
    cacheDir: optional(env, 'SEMANTIC_CACHE_DIR') ?? `${tmpDir}/cairn-semantic-cache`,
    cacheMaxBytes: positiveInteger(env, 'SEMANTIC_CACHE_MAX_MB', defaultCacheMaxMb) * 2 ** 20,
  };
}
