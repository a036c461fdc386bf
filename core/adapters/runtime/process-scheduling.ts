/**
 * How a process's CPU share is kept where it was put (Linux).
 *
 * Where the kernel groups processes by session (autogroup: `/proc/sys/kernel/sched_autogroup_enabled`, on by
 * default on desktop and many server kernels, for processes outside a CPU cgroup), niceness only ranks processes
 * within one session: every new session (setsid) is a new group weighing as much as all the others together. A
 * worker started in a session of its own at niceness 10 then takes as much CPU as the whole API, proxy and queue
 * store: 50 running workers, 50 times as much. So the dispatcher runs in a session of its own whose group is given
 * its niceness ({@link setAutogroupNiceness}), and a worker starts in a new session only where there is a
 * controlling terminal to cut it off from ({@link hasControllingTerminal}).
 *
 * Source: spec/platform-service.md § Limits (the front door's acknowledgements); docs/endpoints.md (the bench's
 * third round).
 */
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Whether this process has a controlling terminal: the tty_nr field of `/proc/self/stat` (`stat` given: that
 * text) is not 0. Unreadable or unparsable: true (the safe answer: the caller then cuts its children off).
 */
export function hasControllingTerminal(stat?: string): boolean {
  let text = stat;
  try {
    text ??= readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return true;
  }
  // pid (comm) state ppid pgrp session tty_nr …: comm may hold spaces and parentheses, so read after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const tty = Number(fields[4]);
  return !Number.isInteger(tty) || tty !== 0;
}

/** What {@link setAutogroupNiceness} did: set, or why not (`unsupported`: no autogroup on this kernel). */
export type AutogroupResult = { set: true } | { set: false; unsupported: boolean; reason: string };

/** How often {@link setAutogroupNiceness} tries again on EAGAIN (the kernel allows 10 changes a second). */
const AUTOGROUP_ATTEMPTS = 5;
const AUTOGROUP_RETRY_MS = 120;

/**
 * Gives the session group of process `pid` the niceness `niceness` (0–19; writing `/proc/<pid>/autogroup`). An
 * unprivileged process may raise it (never lower it below 0); the kernel refuses changes closer than 100 ms apart
 * (EAGAIN), so this tries up to 5 times, 120 ms apart.
 * @returns `{ set: true }`, or `{ set: false, unsupported, reason }` (never throws)
 */
export async function setAutogroupNiceness(pid: number, niceness: number): Promise<AutogroupResult> {
  const file = `/proc/${pid}/autogroup`;
  for (let attempt = 1;; attempt++) {
    try {
      writeFileSync(file, String(niceness));
      return { set: true };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EAGAIN' && attempt < AUTOGROUP_ATTEMPTS) {
        await new Promise((resolve) => setTimeout(resolve, AUTOGROUP_RETRY_MS));
        continue;
      }
      return { set: false, unsupported: code === 'ENOENT', reason: `${file}: ${code ?? String(error)}` };
    }
  }
}

/** The niceness of `pid`'s session group (`/proc/<pid>/autogroup`: "/autogroup-N nice K"), or undefined. */
export function autogroupOf(pid: number | 'self'): { group: string; niceness: number } | undefined {
  try {
    const match = /^(\/autogroup-\d+) nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return match ? { group: match[1]!, niceness: Number(match[2]) } : undefined;
  } catch {
    return undefined;
  }
}
