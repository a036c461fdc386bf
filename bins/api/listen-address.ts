/**
 * Where the API listens. In the all-in-one mode (started by the entrypoint, or by the systemd units that
 * put the same processes behind the same front proxy, either of which sets PLATFORM_ALL_IN_ONE=on) the
 * API is on API_HOST:API_PORT (the entrypoint sets API_HOST=127.0.0.1; API_PORT defaults to 3001) and
 * PORT is the front proxy's public port. Run as a command (no front proxy), PORT is the API's own port
 * (default 3001) on API_HOST (default every interface).
 *
 * Source: spec/platform-service.md § Processes of the all-in-one container, § Rules 2,
 * § Deployment settings (PORT, API_HOST, API_PORT).
 */
import { flag, type EnvRecord } from '../../core/config/env-values.ts';

/** The validated settings the address is taken from (as parsed by core/config). */
export interface ApiPortSettings {
  apiHost: string;
  /** PORT (default 3001). */
  port: number;
  /** API_PORT (default 3001). */
  apiPort: number;
}

/** The API's listening address, and whether it runs in the all-in-one mode. */
export interface ApiListenAddress { host: string; port: number; allInOne: boolean }

/**
 * The address the API listens on.
 * @param env - the process environment (PLATFORM_ALL_IN_ONE, set by the entrypoint)
 * @throws PlatformError `invalid_config` naming PLATFORM_ALL_IN_ONE when it is not an on/off value
 */
export function apiListenAddress(settings: ApiPortSettings, env: EnvRecord): ApiListenAddress {
  const allInOne = flag(env, 'PLATFORM_ALL_IN_ONE', false);
  return { host: settings.apiHost, port: allInOne ? settings.apiPort : settings.port, allInOne };
}
