/**
 * Settings of the all-in-one entrypoint: public port, internal ports, embedded data directory.
 *
 * Source: spec/platform-service.md § Deployment settings (PORT, API_PORT), § Processes.
 */
import { resolve } from 'node:path';
import { parseEmbeddedQueueMaxMemory } from '../../core/config/embedded-queue-settings.ts';
import { invalid, oneOf, optional, port, type EnvRecord } from '../../core/config/env-values.ts';
import { bindAddress } from '../../core/config/net-values.ts';
import { parseHttpSettings } from '../../core/config/service-settings.ts';
import { LOOPBACK_HOST_NAMES, ownHostNames } from '../../core/auth/own-hosts.ts';
import { parseSignInMode } from '../../core/config/sign-in-settings.ts';

/** What the entrypoint wires. */
export interface EntrypointSettings {
  publicPort: number;
  /** CAIRN_PROXY_BIND (default 0.0.0.0, every interface; scripts/start sets 127.0.0.1 unless HOST says otherwise). */
  proxyBind: string;
  /** Sign-in is the dev user (every request is the owner) and the front proxy listens beyond loopback. */
  exposedDevUser: boolean;
  apiPort: number;
  semanticMcpPort: number;
  dataDir: string;
  /** Environment every child receives: the caller's, with embedded store defaults filled in. */
  childEnv: Record<string, string | undefined>;
  /** Which store settings were embedded defaults (for the [entrypoint] line). */
  embedded: string[];
  /** Set when QUEUE_URL is unset: the entrypoint runs its own queue store. */
  /**
   * Set when QUEUE_URL is unset: the entrypoint runs its own queue store. `appendFsync`: CAIRN_EMBEDDED_QUEUE_FSYNC,
   * `everysec` (default: a killed store loses nothing, a machine crash the last second) or `always` (each write).
   */
  embeddedQueue?: { port: number; maxMemory: string; appendFsync: 'everysec' | 'always' };
  /**
   * What one child's environment adds to `childEnv`, by child (`api`, `dispatcher`, `semantic-mcp`): each its own
   * Prometheus scrape port, OTEL_EXPORTER_PROMETHEUS_PORT (default 9464) for the API, the next for the dispatcher
   * and the one after for semantic-mcp (docs/decisions.md D25 § 2).
   */
  processEnv: Record<string, Record<string, string>>;
  /** This container's id: the single-dispatcher lease owner. */
  instanceId: string;
  /** PLATFORM_TRUSTED_PROXIES entries (validated by each service at boot), for the front proxy. */
  trustedProxies: string[];
  /**
   * Host names the front proxy answers (CAIRN_PROXY_HOSTS; IP literals are answered too): the loopback names and
   * the hosts of APP_BASE_URL and CORS_ALLOWED_ORIGINS (docs/decisions.md D17 § 7, DNS rebinding).
   */
  proxyHosts: string[];
}

/** Parses the environment; embedded defaults fill DOCDB_URI and OBJSTORE_* when unset. */
export function parseEntrypointSettings(env: EnvRecord, cwd: string, instanceId: string): EntrypointSettings {
  const dataDir = resolve(cwd, optional(env, 'CAIRN_DATA_DIR') ?? 'data');
  const publicPort = port(env, 'PORT', 8080);
  const apiPort = port(env, 'API_PORT', 3001);
  const semanticMcpPort = port(env, 'SEMANTIC_MCP_PORT', 3002);
  const embedded: string[] = [];
  const fill = (name: string, value: string) => {
    if (optional(env, name) === undefined) { embedded.push(name); return value; }
    return env[name];
  };
  const { PLATFORM_EMBEDDED_QUEUE: _never, ...callerEnv } = env;
  const childEnv: Record<string, string | undefined> = {
    ...callerEnv,
    DOCDB_URI: fill('DOCDB_URI', `sqlite:${dataDir}/docdb.sqlite`),
    OBJSTORE_ENDPOINT: optional(env, 'OBJSTORE_BUCKET') === undefined ? fill('OBJSTORE_ENDPOINT', `file://${dataDir}/objects`) : env.OBJSTORE_ENDPOINT,
    OBJSTORE_BUCKET: fill('OBJSTORE_BUCKET', 'cairn'),
    PLATFORM_SCRATCH_DIR: env.PLATFORM_SCRATCH_DIR ?? `${dataDir}/scratch`,
    SEMANTIC_CACHE_DIR: env.SEMANTIC_CACHE_DIR ?? `${dataDir}/cache/semantic`,
    // Skill registries' clones live with the data (the image sets /data/skill-registries itself).
    PLATFORM_SKILL_REGISTRIES_DIR: env.PLATFORM_SKILL_REGISTRIES_DIR ?? `${dataDir}/skill-registries`,
    // The API listens on API_PORT in this mode; PORT stays the front proxy's public port.
    PLATFORM_ALL_IN_ONE: 'on',
    API_HOST: '127.0.0.1',
    SEMANTIC_MCP_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    SEMANTIC_MCP_PORT: String(semanticMcpPort),
  };
  const embeddedQueue = optional(env, 'QUEUE_URL') === undefined
    ? {
      port: port(env, 'CAIRN_EMBEDDED_QUEUE_PORT', 6379), maxMemory: parseEmbeddedQueueMaxMemory(env),
      appendFsync: oneOf(env, 'CAIRN_EMBEDDED_QUEUE_FSYNC', ['everysec', 'always'] as const, 'everysec'),
    }
    : undefined;
  const proxyBind = bindAddress(env, 'CAIRN_PROXY_BIND', '0.0.0.0');
  return {
    publicPort, proxyBind, exposedDevUser: !isLoopback(proxyBind) && isDevUser(env), apiPort, semanticMcpPort, dataDir,
    childEnv, processEnv: metricPorts(env), embedded, embeddedQueue, instanceId,
    trustedProxies: (optional(env, 'PLATFORM_TRUSTED_PROXIES') ?? '').split(',').map((e) => e.trim()).filter(Boolean),
    proxyHosts: proxyHosts(env),
  };
}

/** The processes serving metrics, in the order of their ports from OTEL_EXPORTER_PROMETHEUS_PORT. */
export const METRIC_PORT_ORDER = ['api', 'dispatcher', 'semantic-mcp'] as const;

/**
 * Each child's OTEL_EXPORTER_PROMETHEUS_PORT: the variable's port (default 9464) and the next ones, in
 * {@link METRIC_PORT_ORDER}. @throws PlatformError `invalid_config` naming it when the last would pass 65535
 */
function metricPorts(env: EnvRecord): Record<string, Record<string, string>> {
  const base = port(env, 'OTEL_EXPORTER_PROMETHEUS_PORT', 9464);
  if (base + METRIC_PORT_ORDER.length - 1 > 65_535) {
    throw invalid('OTEL_EXPORTER_PROMETHEUS_PORT', `must leave ${METRIC_PORT_ORDER.length} ports up to 65535`);
  }
  return Object.fromEntries(
    METRIC_PORT_ORDER.map((name, i) => [name, { OTEL_EXPORTER_PROMETHEUS_PORT: String(base + i) }]),
  );
}

/**
 * Loopback names plus the hosts of APP_BASE_URL and CORS_ALLOWED_ORIGINS (only loopback when they are invalid: the
 * API then refuses to start, naming them).
 */
function proxyHosts(env: EnvRecord): string[] {
  let origins: string[] = [];
  try {
    const http = parseHttpSettings(env, []);
    origins = [...(http.appBaseUrl ? [http.appBaseUrl] : []), ...http.corsAllowedOrigins];
  } catch {
    // reported by the API's own first line
  }
  return [...new Set([...LOOPBACK_HOST_NAMES, ...ownHostNames(origins)])];
}

/** True for 127.0.0.0/8, ::1 and localhost. */
export function isLoopback(address: string): boolean {
  return /^127\.\d+\.\d+\.\d+$/.test(address) || address === '::1' || address === 'localhost';
}

function isDevUser(env: EnvRecord): boolean {
  try {
    return parseSignInMode(env, optional(env, 'NODE_ENV') === 'production') === 'dev-user';
  } catch {
    return false; // an invalid PLATFORM_SIGN_IN stops every service with its own first line
  }
}
