/**
 * Settings of the semantic-mcp process, parsed from a plain environment record.
 *
 * Source: ../shared/spec/semantic-query-service.md § Limits (MCP_RATE_LIMIT_MAX);
 * spec/platform-service.md § Deployment settings.
 */
import { parseTrustedProxies, type TrustedProxies } from '../../core/auth/client-address.ts';
import { optional, port, positiveInteger, type EnvRecord } from '../../core/config/env-values.ts';
import { parseStoreSettings, type StoreSettings } from '../../core/config/store-settings.ts';

/** Everything semantic-mcp reads at boot. */
export interface SemanticMcpSettings {
  host: string;
  port: number;
  version: string;
  stores: StoreSettings;
  /** Requests per client IP per 60-second window (MCP_RATE_LIMIT_MAX, default 120). */
  rateLimitMax: number;
  rateLimitWindowSeconds: number;
  /** Proxies whose X-Forwarded-For is believed; loopback (the local front proxy) always is. */
  trustedProxies: TrustedProxies;
  /** Directory for DuckDB data files built from project data. */
  cacheDir: string;
}

/**
 * Parses the environment. @throws PlatformError `invalid_config` naming the first bad variable
 * @param tmpDir - the OS temp directory (default cache location)
 */
export function parseSemanticMcpSettings(env: EnvRecord, tmpDir: string): SemanticMcpSettings {
  const stores = parseStoreSettings(env);
  const trusted = optional(env, 'PLATFORM_TRUSTED_PROXIES');
  return {
    host: optional(env, 'SEMANTIC_MCP_HOST') ?? '0.0.0.0',
    port: port(env, 'SEMANTIC_MCP_PORT', 3002),
    version: optional(env, 'APP_VERSION') ?? 'dev',
    stores,
    rateLimitMax: positiveInteger(env, 'MCP_RATE_LIMIT_MAX', 120),
    rateLimitWindowSeconds: 60,
    trustedProxies: [...parseTrustedProxies('127.0.0.1,::1'), ...parseTrustedProxies(trusted)],
    cacheDir: optional(env, 'SEMANTIC_CACHE_DIR') ?? `${tmpDir}/cairn-semantic-cache`,
  };
}
