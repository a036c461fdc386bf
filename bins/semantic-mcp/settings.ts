/**
 * Settings of the semantic-mcp process beyond the platform's deployment settings: its own listening
 * address and DuckDB cache, parsed from a plain environment record.
 *
 * Source: ../shared/spec/semantic-query-service.md § Limits (MCP_RATE_LIMIT_MAX);
 * spec/platform-service.md § Deployment settings (PLATFORM_TRUSTED_PROXIES).
 */
import { parseTrustedProxies, type TrustedProxies } from '../../core/auth/client-address.ts';
import { optional, port, type EnvRecord } from '../../core/config/env-values.ts';
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
}

/**
 * Parses SEMANTIC_MCP_HOST (default every interface), SEMANTIC_MCP_PORT (3002), SEMANTIC_CACHE_DIR.
 * @throws PlatformError `invalid_config` naming the first bad variable
 */
export function parseSemanticMcpSettings(env: EnvRecord, base: ServiceEnv, tmpDir: string): SemanticMcpSettings {
  return {
    host: optional(env, 'SEMANTIC_MCP_HOST') ?? '0.0.0.0',
    port: port(env, 'SEMANTIC_MCP_PORT', 3002),
    rateLimitMax: base.mcpRateLimitMax,
    rateLimitWindowSeconds: 60,
    trustedProxies: [...parseTrustedProxies('127.0.0.1,::1'), ...parseTrustedProxies(base.trustedProxies.join(','))],
    cacheDir: optional(env, 'SEMANTIC_CACHE_DIR') ?? `${tmpDir}/cairn-semantic-cache`,
  };
}
