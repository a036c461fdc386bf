/**
 * The embedded queue store of the all-in-one mode: redis-server on 127.0.0.1 with a password made at
 * each start, given only to the API and the dispatcher. Its configuration (with the password) is a
 * file readable only by this user, so the password never appears in a process's arguments.
 * It keeps its data in `<data>/redis` as an append-only file (appendfsync everysec), so a restart of the
 * store (kill -9 included: written data sits in the page cache) loses no acknowledged job; a machine crash
 * may lose the last second. The password is not part of the data, so each start's new one works with it.
 * Only one entrypoint keeps files there (queue-store-lock.ts). An owner file of another host is waited for until it
 * lapses (at most 40 s: a replaced container that crashed stops touching it within 30 s), so a replacement takes
 * the store over with its jobs; an owner that stays alive (a second container on the same /data) leaves this store
 * in memory only, as the replacement table expects of a store that is replaced.
 *
 * Source: spec/platform-service.md § Processes (embedded queue store), § Rules 8 and 9 (/data/redis),
 * § Deployment settings (PLATFORM_EMBEDDED_QUEUE_MAXMEMORY); docs/architecture.md § Queue store.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import {
  QUEUE_STORE_LOCK_STALE_MS, QUEUE_STORE_LOCK_TOUCH_MS, takeQueueStoreLock, type LockHolder, type QueueStoreLock,
} from './queue-store-lock.ts';
import type { ChildSpec } from './supervisor.ts';

/** Where and how the embedded store runs. */
export interface EmbeddedQueue {
  spec: ChildSpec;
  /** redis:// URL with the password, for the API and the dispatcher only. */
  url: string;
  port: number;
  /** The directory holding its append-only file, or undefined when another entrypoint holds `<data>/redis`. */
  persistentDir?: string;
  /** Who holds `<data>/redis` when this store keeps nothing on disk. */
  heldBy?: LockHolder;
  /** After the store stopped: gives `<data>/redis` up and removes `runDir` (its configuration holds the password). */
  release(): void;
}

/** How often the append-only file is flushed to disk: `everysec` (default) or `always` (each write). */
export type AppendFsync = 'everysec' | 'always';

/**
 * Prepares redis-server: password, config file (mode 0600) under `runDir`, data under `<dataDir>/redis`.
 * @param maxMemory - e.g. `256mb`; the store never evicts, so a full store refuses new jobs
 * @param appendFsync - default `everysec`
 * @param lockWaitMs - how long an owner file of another host is waited for (default 40 000 ms)
 * @param log - one line when it waits
 */
export async function embeddedQueue(options: {
  dataDir: string; runDir: string; port: number; maxMemory: string; path?: string; command?: string;
  appendFsync?: AppendFsync; lockWaitMs?: number; log?: (line: string) => void;
}): Promise<EmbeddedQueue> {
  const password = randomBytes(32).toString('hex');
  const dataDir = join(options.dataDir, 'redis');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  mkdirSync(options.runDir, { recursive: true, mode: 0o700 });
  let taken = takeQueueStoreLock(dataDir);
  const waitMs = options.lockWaitMs ?? QUEUE_STORE_LOCK_STALE_MS + QUEUE_STORE_LOCK_TOUCH_MS;
  const until = Date.now() + waitMs;
  if ('heldBy' in taken && taken.heldBy.host !== hostname() && waitMs > 0) {
    options.log?.(`${dataDir} is held by host ${taken.heldBy.host}: waiting up to ${waitMs / 1000} s for it to lapse`);
  }
  while ('heldBy' in taken && taken.heldBy.host !== hostname() && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    taken = takeQueueStoreLock(dataDir);
  }
  const lock: QueueStoreLock | undefined = 'lock' in taken ? taken.lock : undefined;
  const dir = lock ? dataDir : join(options.runDir, 'redis');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const persistence = lock
    ? [`appendonly yes`, `appendfsync ${options.appendFsync ?? 'everysec'}`, `aof-use-rdb-preamble yes`]
    : [`appendonly no`];
  const configPath = join(options.runDir, 'redis.conf');
  const config = [
    `bind 127.0.0.1`, `port ${options.port}`, `protected-mode yes`, `requirepass ${password}`,
    `dir ${dir}`, ...persistence, `save ""`, `maxmemory ${options.maxMemory}`, `maxmemory-policy noeviction`,
    `daemonize no`, `logfile ""`,
  ].join('\n');
  writeFileSync(configPath, `${config}\n`, { mode: 0o600 });
  return {
    spec: {
      tag: 'redis-like store', command: options.command ?? 'redis-server', args: [configPath],
      env: { PATH: options.path }, cwd: dir,
    },
    url: `redis://:${password}@127.0.0.1:${options.port}`,
    port: options.port,
    ...(lock ? { persistentDir: dataDir } : { heldBy: (taken as { heldBy: LockHolder }).heldBy }),
    release: () => {
      lock?.release();
      rmSync(options.runDir, { recursive: true, force: true });
    },
  };
}
