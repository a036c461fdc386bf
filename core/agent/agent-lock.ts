/**
 * The per-agent lock around git work: a lease named `agent:<agentId>` in the Lease port (the queue store
 * or the document store), so two processes never commit to one agent's repository at once.
 *
 * Source: docs/decisions.md D7 § Agents and environments (worked on in the scratch directory under a per-agent lock);
 * spec/platform-service.md § Single-dispatcher lease (the Lease port).
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { AgentDeps } from './hosting-model.ts';

/** Lapse time of the lock, ms: longer than any git operation on an agent (a crashed holder frees it then). */
export const agentLockTtlMs = 120_000;
/** How long a caller waits for the lock before giving up, ms (polled every {@link agentLockPollMs}). */
export const agentLockWaitMs = 10_000;
const agentLockPollMs = 50;

/**
 * Runs `work` holding agent `agentId`'s lock, and releases it after (also on failure).
 * @throws PlatformError `agent_busy` (409) when another change held the lock for {@link agentLockWaitMs}
 */
export async function withAgentLock<R>(
  deps: Pick<AgentDeps, 'lease' | 'ids' | 'wait'>,
  agentId: string,
  work: () => Promise<R>,
): Promise<R> {
  const name = `agent:${agentId}`;
  const owner = deps.ids.newId();
  for (let waited = 0; !(await deps.lease.acquire(name, owner, agentLockTtlMs)); waited += agentLockPollMs) {
    if (waited >= agentLockWaitMs) {
      throw new PlatformError(
        'agent_busy',
        `Another change to agent "${agentId}" has been running for over ${
          agentLockWaitMs / 1000
        } s; retry when it has finished.`,
        { status: 409 },
      );
    }
    await deps.wait(agentLockPollMs);
  }
  try {
    return await work();
  } finally {
    await deps.lease.release(name, owner);
  }
}
