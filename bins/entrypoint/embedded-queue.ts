/**
 * The embedded queue store of the all-in-one mode: redis-server on 127.0.0.1 with a password made at
 * each start, given only to the API and the dispatcher. Its configuration (with the password) is a
 * file readable only by this user, so the password never appears in a process's arguments.
 * It keeps nothing on disk: what it holds is settled by the replacement table when a container (and
 * its store) is replaced, and containers sharing one /data volume must not share store files.
 *
 * Source: ../shared/spec/platform-service.md § Processes (embedded queue store), § Rules 8,
 * § Deployment settings (PLATFORM_EMBEDDED_QUEUE_MAXMEMORY).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildSpec } from './supervisor.ts';

/** Where and how the embedded store runs. */
export interface EmbeddedQueue {
  spec: ChildSpec;
  /** redis:// URL with the password, for the API and the dispatcher only. */
  url: string;
  port: number;
}

/**
 * Prepares redis-server: password, config file (mode 0600) under `runDir`, data under `<dataDir>/redis`.
 * @param maxMemory - e.g. `256mb`; the store never evicts, so a full store refuses new jobs
 */
export function embeddedQueue(options: { dataDir: string; runDir: string; port: number; maxMemory: string; path?: string; command?: string }): EmbeddedQueue {
  const password = randomBytes(32).toString('hex');
  const dir = join(options.dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  mkdirSync(options.runDir, { recursive: true, mode: 0o700 });
  const configPath = join(options.runDir, 'redis.conf');
  const config = [
    `bind 127.0.0.1`, `port ${options.port}`, `protected-mode yes`, `requirepass ${password}`,
    `dir ${dir}`, `appendonly no`, `save ""`, `maxmemory ${options.maxMemory}`, `maxmemory-policy noeviction`,
    `daemonize no`, `logfile ""`,
  ].join('\n');
  writeFileSync(configPath, `${config}\n`, { mode: 0o600 });
  return {
    spec: { tag: 'redis-like store', command: options.command ?? 'redis-server', args: [configPath], env: { PATH: options.path }, cwd: dir },
    url: `redis://:${password}@127.0.0.1:${options.port}`,
    port: options.port,
  };
}
