/**
 * The ToolCatalog over the config's services list: each service is one collection whose tools are discovered
 * over the tool protocol (MCP, Streamable HTTP) while warming, or lazily on the first `tools()`. A service that
 * fails discovery is logged once, not offered, and tried again on a later `tools()` once `retryAfterMs` passed.
 *
 * Source: spec/platform-service.md § Rules 15; docs/decisions.md D7 § The semantic service as a tool collection.
 */
import type { ServiceConfig } from '../../config/config-model.ts';
import type { Clock } from '../../ports/clock.ts';
import { PlatformError } from '../../ports/platform-error.ts';
import {
  type CatalogTool,
  platformCallerValue,
  type ToolCallOptions,
  type ToolCallResult,
  type ToolCatalog,
} from '../../ports/tool-catalog.ts';
import { callServiceTool, unreachable } from './service-call.ts';
import { failureReason } from './failure-reason.ts';
import { openServiceConnection, type ServiceConnection } from './service-connection.ts';

/** Options of {@link createServiceCatalog}. */
export interface ServiceCatalogOptions {
  /** The config's resolved services list (entries a placeholder left out are already gone). */
  services: ServiceConfig[];
  /** Writes one operator line (`[services] …`); never given a token. */
  log(line: string): void;
  /** Time source for the retry delay; default the system clock. */
  clock?: Clock;
  /** How long after a failed discovery the next `tools()` tries again, in ms. Default 60 000. */
  retryAfterMs?: number;
  /** Longest wait for a service's discovery requests, in ms. Default 10 000. */
  discoveryTimeoutMs?: number;
  /** Longest wait for one tool call, in ms. Default 120 000. */
  callTimeoutMs?: number;
  /** The fetch the connections use; default the global fetch. */
  fetch?: typeof fetch;
}

/** A {@link ToolCatalog} a process warms at start and closes at stop. */
export interface ServiceCatalog extends ToolCatalog {
  /**
   * Starts discovery of every service not yet offered; resolves when each attempt ended (it never rejects).
   * A process calls it at start without awaiting it, so boot does not wait for the services.
   */
  warm(): Promise<void>;
  /** Closes every kept connection. */
  close(): Promise<void>;
}

/** What the catalog knows of one service. */
interface ServiceState {
  config: ServiceConfig;
  collection: string;
  connection: ServiceConnection;
  /** Its tools once discovery succeeded; undefined while it is not offered. */
  tools?: CatalogTool[];
  /** The discovery in flight. */
  discovering?: Promise<void>;
  /** When the last discovery failed (ms since the epoch). */
  failedAtMs?: number;
  /** Why the last discovery failed (short, secret-free). */
  failure?: string;
}

const systemClock: Clock = { now: () => new Date() };

/**
 * A catalog of the configured services' tools. Two services naming the same collection: the first is used, the
 * other is logged and left out.
 *
 * Source: spec/platform-service.md § Rules 15
 */
export function createServiceCatalog(options: ServiceCatalogOptions): ServiceCatalog {
  const clock = options.clock ?? systemClock;
  const retryAfterMs = options.retryAfterMs ?? 60_000;
  const discoveryTimeoutMs = options.discoveryTimeoutMs ?? 10_000;
  const callTimeoutMs = options.callTimeoutMs ?? 120_000;
  const states = serviceStates(options, discoveryTimeoutMs);
  const credentialConnections = connectionsByCredential(
    (config) => openServiceConnection(config, { discoveryTimeoutMs, fetch: options.fetch }),
  );
  const discover = (state: ServiceState): Promise<void> => {
    state.discovering ??= runDiscovery(state, options.log, clock).finally(() => {
      state.discovering = undefined;
    });
    return state.discovering;
  };
  const due = (state: ServiceState) =>
    state.tools === undefined &&
    (state.failedAtMs === undefined || clock.now().getTime() - state.failedAtMs >= retryAfterMs);
  const settle = async (state: ServiceState) => {
    if (state.discovering) await state.discovering;
    else if (due(state)) await discover(state);
  };
  return {
    warm: async () => {
      await Promise.all([...states.values()].filter((s) => s.tools === undefined).map(settle));
    },
    tools: async () => {
      await Promise.all([...states.values()].map(settle));
      return [...states.values()].flatMap((state) => state.tools ?? []);
    },
    call: async (collection, name, input, callOptions: ToolCallOptions = {}): Promise<ToolCallResult> => {
      const state = states.get(collection);
      if (state === undefined) {
        throw toolNotFound(collection, name, `no configured service offers the collection "${collection}"`);
      }
      await settle(state);
      if (state.tools === undefined) return unreachable(collection, state.failure ?? 'discovery has not succeeded yet');
      if (!state.tools.some((tool) => tool.name === name)) {
        throw toolNotFound(
          collection,
          name,
          `the ${collection} service offers ${state.tools.map((t) => t.name).join(', ') || 'no tools'}`,
        );
      }
      const caller = platformCallerValue(callOptions.orgId, callOptions.agentId);
      const serviceCall = { signal: callOptions.signal, timeoutMs: callTimeoutMs, ...(caller ? { caller } : {}) };
      const credential = callOptions.credential;
      if (credential === undefined || credential === state.config.token) {
        return callServiceTool(state, name, input, serviceCall);
      }
      const connection = credentialConnections.of(state, credential);
      return callServiceTool({ ...state, config: { token: credential }, connection }, name, input, serviceCall);
    },
    close: async () => {
      await Promise.all([...states.values()].map((state) => state.connection.close()));
      await credentialConnections.close();
    },
  };
}

/** The most connections kept for organizations' credentials; the least recently used is closed beyond it. */
const MAX_CREDENTIAL_CONNECTIONS = 256;

/**
 * One kept connection per service and credential (an organization's token for the collection): a service may bind
 * its protocol session to the token it was opened with, so calls carrying another credential never share it.
 */
function connectionsByCredential(open: (config: ServiceConfig) => ServiceConnection) {
  const kept = new Map<string, ServiceConnection>();
  return {
    of(state: ServiceState, credential: string): ServiceConnection {
      const key = `${state.collection}\n${credential}`;
      let connection = kept.get(key);
      if (connection) kept.delete(key);
      else connection = open({ ...state.config, token: credential });
      kept.set(key, connection);
      if (kept.size > MAX_CREDENTIAL_CONNECTIONS) {
        const [oldestKey, oldest] = kept.entries().next().value!;
        kept.delete(oldestKey);
        void oldest.close();
      }
      return connection;
    },
    close: async () => {
      await Promise.all([...kept.values()].map((connection) => connection.close()));
      kept.clear();
    },
  };
}

function serviceStates(options: ServiceCatalogOptions, discoveryTimeoutMs: number): Map<string, ServiceState> {
  const states = new Map<string, ServiceState>();
  for (const config of options.services) {
    const collection = config.collection ?? config.id;
    const taken = states.get(collection);
    if (taken) {
      options.log(
        `[services] ${config.id} is not offered: its collection "${collection}" is already served by ` +
          `${taken.config.id}; give it another collection`,
      );
      continue;
    }
    const connection = openServiceConnection(config, { discoveryTimeoutMs, fetch: options.fetch });
    states.set(collection, { config, collection, connection });
  }
  return states;
}

/** One discovery attempt: offers the service's tools, or records (and logs once per outage) the failure. */
async function runDiscovery(state: ServiceState, log: (line: string) => void, clock: Clock): Promise<void> {
  try {
    const listed = await state.connection.listTools();
    state.tools = listed.map((tool) => ({
      collection: state.collection,
      name: tool.name,
      description: tool.description ?? '',
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.annotations?.readOnlyHint === true ? { readOnly: true } : {}),
    }));
    state.failedAtMs = undefined;
    state.failure = undefined;
    log(`[services] ${state.config.id} offered: ${state.tools.length} tools`);
  } catch (error) {
    const firstFailure = state.failure === undefined;
    state.failure = failureReason(error, state.config.token);
    state.failedAtMs = clock.now().getTime();
    await state.connection.close();
    if (firstFailure) {
      log(
        `[services] ${state.config.id} is not offered: discovery at ${
          hostOf(state.config.endpoint)
        } failed (${state.failure}); retrying later`,
      );
    }
  }
}

/** The endpoint's host and port only (never its path, query or credentials). */
function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return 'an unreadable address';
  }
}

function toolNotFound(collection: string, name: string, detail: string): PlatformError {
  return new PlatformError(
    'tool_not_found',
    `There is no tool "${name}" in the collection "${collection}": ${detail}.`,
    { status: 404 },
  );
}
