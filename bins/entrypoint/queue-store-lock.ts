/**
 * Who may keep the embedded queue store's files in `<data>/redis`: one entrypoint at a time. Two containers
 * sharing one /data volume (platform-service.md § Rules 3: the second waits for the single-dispatcher lease)
 * must not write one append-only file from two redis-servers, so the first takes `<data>/redis/owner.json`
 * (created exclusively) and touches it every 10 s; a later entrypoint finding it fresh runs its own store in
 * memory only. The owner file is stale when untouched for 30 s, or when it names this host and a process that
 * is gone (or this very process: a container restarted as PID 1 again).
 *
 * Source: spec/platform-service.md § Rules 3 and 9 (/data/redis); docs/architecture.md § Queue store.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readFileSync, rmSync, statSync, utimesSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/** How often the holder touches the owner file (ms). */
export const QUEUE_STORE_LOCK_TOUCH_MS = 10_000;
/** An owner file untouched this long belongs to nobody (ms): the single-dispatcher lease's lapse. */
export const QUEUE_STORE_LOCK_STALE_MS = 30_000;

/** What an owner file records. */
interface Owner { host: string; pid: number; token: string }

/** A taken lock: `release` stops touching it and removes it (only while it is still this holder's). */
export interface QueueStoreLock {
  release(): void;
}

/** The holder named by a fresh owner file, for the log line of a later entrypoint. */
export interface LockHolder { host: string; pid: number }

/**
 * Takes `<dir>/owner.json`, or names who holds it.
 * @param self - this host and process (tests give others)
 */
export function takeQueueStoreLock(
  dir: string,
  self: { host: string; pid: number; alive(pid: number): boolean } = { host: hostname(), pid: process.pid, alive },
): { lock: QueueStoreLock } | { heldBy: LockHolder } {
  const path = join(dir, 'owner.json');
  const owner: Owner = { host: self.host, pid: self.pid, token: randomBytes(8).toString('hex') };
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, JSON.stringify(owner));
      closeSync(fd);
      return { lock: heldLock(path, owner.token) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = readOwner(path);
    if (current && !isStale(path, current, self)) return { heldBy: { host: current.host, pid: current.pid } };
    rmSync(path, { force: true });
  }
  const current = readOwner(path);
  return { heldBy: { host: current?.host ?? 'another entrypoint', pid: current?.pid ?? 0 } };
}

function heldLock(path: string, token: string): QueueStoreLock {
  const timer = setInterval(() => {
    try {
      const now = new Date();
      if (readOwner(path)?.token === token) utimesSync(path, now, now);
    } catch { /* the next touch tries again */ }
  }, QUEUE_STORE_LOCK_TOUCH_MS);
  timer.unref();
  return {
    release() {
      clearInterval(timer);
      if (readOwner(path)?.token === token) rmSync(path, { force: true });
    },
  };
}

function readOwner(path: string): Owner | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<Owner>;
    return typeof parsed.host === 'string' && typeof parsed.pid === 'number' && typeof parsed.token === 'string'
      ? parsed as Owner : undefined;
  } catch {
    return undefined;
  }
}

type Self = { host: string; pid: number; alive(pid: number): boolean };

function isStale(path: string, owner: Owner, self: Self): boolean {
  if (owner.host === self.host && (owner.pid === self.pid || !self.alive(owner.pid))) return true;
  try {
    return Date.now() - statSync(path).mtimeMs > QUEUE_STORE_LOCK_STALE_MS;
  } catch {
    return true;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
