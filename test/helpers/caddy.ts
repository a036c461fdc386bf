/**
 * Runs the product's Caddyfile (proxy/Caddyfile) with real Caddy on a random loopback port, in front of
 * upstream ports the test chooses, with the repository's web/ as the web root.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.ts';
import { repoRoot } from './product.ts';

/** A running Caddy. */
export interface RunningCaddy {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts Caddy; resolves once it accepts connections. `hosts`: CAIRN_PROXY_HOSTS (default the Caddyfile's loopback
 * names); `env`: more placeholders (e.g. CAIRN_PROXY_READ_HEADER_TIMEOUT).
 */
export async function startCaddy(options: {
  apiPort: number; semanticMcpPort: number; webRoot?: string; trustedProxies?: string; hosts?: string;
  env?: Record<string, string>;
}): Promise<RunningCaddy> {
  const port = await freePort();
  const home = mkdtempSync(join(tmpdir(), 'cairn-caddy-'));
  const child = spawn('caddy', ['run', '--config', join(repoRoot, 'proxy/Caddyfile'), '--adapter', 'caddyfile'], {
    env: {
      PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: home, XDG_CONFIG_HOME: home, PORT: String(port),
      CAIRN_PROXY_BIND: '127.0.0.1', API_PORT: String(options.apiPort),
      SEMANTIC_MCP_PORT: String(options.semanticMcpPort), WEB_ROOT: options.webRoot ?? join(repoRoot, 'dist', 'web'),
      ...(options.trustedProxies ? { CAIRN_TRUSTED_PROXIES: options.trustedProxies } : {}),
      ...(options.hosts ? { CAIRN_PROXY_HOSTS: options.hosts } : {}), ...options.env,
    },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i += 1) {
    try { await fetch(`${url}/`); break; } catch { await new Promise((r) => setTimeout(r, 100)); }
  }
  return {
    url,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(home, { recursive: true, force: true });
    },
  };
}
