/**
 * Keyed firings of callback (and polling) triggers: claimed once, opened or delivered to the open session of their
 * key; a busy session releases the claim and queues the firing again with the doubling delay, then drops it with a
 * line that names the key and never the payload.
 */
import { describe, expect, it } from 'vitest';
import { systemClock } from '../adapters/runtime/system-clock.ts';
import { cryptoIds } from '../adapters/runtime/system.ts';
import { sessionsOf, turnsOf } from '../session/session-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { type KeyedFiringJob, runKeyedFiring } from './keyed-firings.ts';
import { WEBHOOK_BUSY_ATTEMPTS } from './webhook-firings.ts';

function world() {
  let n = 0;
  const added: { name: string; data: KeyedFiringJob; options?: { jobId?: string; delayMs?: number } }[] = [];
  const lines: string[] = [];
  const deps = {
    docs: createMemoryDocumentStore(),
    objects: createMemoryObjectStore(),
    clock: systemClock,
    ids: {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k: number) => new Uint8Array(k),
      sha256Hex: cryptoIds.sha256Hex,
    },
    enqueueTurn: async () => undefined,
    queue: {
      add: async (_queue: string, name: string, data: unknown, options?: { jobId?: string; delayMs?: number }) => {
        added.push({ name, data: data as KeyedFiringJob, options });
        return `job${added.length}`;
      },
    },
    log: (line: string) => {
      lines.push(line);
    },
  };
  return { deps, added, lines };
}

const target = {
  orgId: 'o1',
  agentId: 'a1',
  environment: 'main',
  buildId: 'b1',
  commitId: 'c1',
  workflow: 'issues',
  state: 'triage',
  trigger: { id: 'on-issue', type: 'callback' },
};
const job = (firingId: string, issue: string): KeyedFiringJob => ({
  scope: 'callback:addr1',
  firingId,
  target,
  firing: {
    payload: { secret: 'do-not-log', issue },
    message: `Issue ${issue} changed.`,
    sessionKey: `issue-${issue}`,
  },
});

describe('keyed firings', () => {
  it('open a session per key, take a firing once, and deliver to the open session of its key', async () => {
    const w = world();
    const first = await runKeyedFiring(w.deps, job('f1', '7'));
    expect(first).toMatchObject({ outcome: 'opened' });
    expect(await runKeyedFiring(w.deps, job('f1', '7'))).toEqual({ outcome: 'duplicate' });
    const sessionId = (first as { sessionId: string }).sessionId;
    await sessionsOf(w.deps).updateOne({ _id: sessionId }, { $set: { status: 'awaiting_input' } });
    expect(await runKeyedFiring(w.deps, job('f2', '7'))).toEqual({ outcome: 'delivered', sessionId });
    expect(await turnsOf(w.deps).countDocuments({ sessionId })).toBe(2);
    expect(await runKeyedFiring(w.deps, job('f3', '8'))).toMatchObject({ outcome: 'opened' });
  });

  it(
    'queue a firing whose session is busy again with a doubling delay, its claim released, then drop it naming ' +
      'the key only',
    async () => {
      const w = world();
      await runKeyedFiring(w.deps, job('f1', '7'));
      const busy = await runKeyedFiring(w.deps, job('f2', '7'));
      expect(busy).toEqual({ outcome: 'retrying', attempt: 2, delayMs: 5_000 });
      expect(w.added).toHaveLength(1);
      expect(w.added[0]).toMatchObject({
        name: 'keyed-firing',
        data: { firingId: 'f2', attempt: 2 },
        options: { delayMs: 5_000, jobId: expect.stringMatching(/^keyed-firing-[0-9a-f]{64}-try-2$/) },
      });
      expect(await runKeyedFiring(w.deps, w.added[0].data)).toEqual({
        outcome: 'retrying',
        attempt: 3,
        delayMs: 10_000,
      });
      expect(await runKeyedFiring(w.deps, { ...job('f2', '7'), attempt: WEBHOOK_BUSY_ATTEMPTS })).toEqual({
        outcome: 'dropped',
      });
      expect(w.lines).toEqual([
        expect.stringMatching(
          new RegExp(
            String.raw`^dropped firing f2 of trigger "on-issue" \(workflow "issues", environment ` +
              String.raw`"main"\): the session of key "issue-7" stayed busy through 10 tries$`,
          ),
        ),
      ]);
      expect(w.lines.join('\n')).not.toContain('do-not-log');
      expect(await sessionsOf(w.deps).countDocuments({})).toBe(1);
    },
  );
});
