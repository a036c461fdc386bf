import { describe, expect, it } from 'vitest';
import { systemClock } from '../../core/adapters/runtime/system-clock.ts';
import { agentCollections, agentSchemaVersion, type OperationRecord } from '../../core/agent/hosting.ts';
import { claimTurn, insertSession, insertTurn, sessionsOf, turnsOf } from '../../core/session/session-store.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { queueStoreStart, settleLostJobs } from './settle-lost-jobs.ts';

describe('settling turns lost with the queue store (the replacement table)', () => {
  it('ends a running turn failed (interrupted by a platform restart) and enqueues a queued one again', async () => {
    let n = 0;
    const deps = { docs: createMemoryDocumentStore(), objects: createMemoryObjectStore(), clock: systemClock, ids: { newId: () => `id${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' } };
    const fields = { orgId: 'o', agentId: 'a', environment: 'main', workflow: 'w', buildId: 'b', commitId: 'c', state: 's', variables: {}, lockedVariables: [], trigger: 'manual', depth: 0, inheritedForbid: [] };
    const running = await insertSession(deps, fields);
    const runningTurn = await insertTurn(deps, running, { kind: 'prompt', input: {} });
    await claimTurn(deps, runningTurn._id, 'dispatcher-gone');
    // A child turn runs inside its root's worker: it ends with the root and is not counted apart.
    const child = await insertSession(deps, { ...fields, depth: 1, parentId: running._id, rootId: running._id });
    const childTurn = await insertTurn(deps, child, { kind: 'prompt', input: {}, status: 'running' });
    const queued = await insertSession(deps, fields);
    const queuedTurn = await insertTurn(deps, queued, { kind: 'prompt', input: {} });
    const requeued: string[] = [];
    const lines = await settleLostJobs({ ...deps, requeue: async (turnId) => { requeued.push(turnId); } });
    expect(lines).toEqual(['settled 1 record(s): running turn → ended failed, interrupted by a platform restart', 'settled 1 record(s): queued turn → enqueued again']);
    expect(await turnsOf(deps).findOne({ _id: runningTurn._id })).toMatchObject({ status: 'failed', error: { code: 'interrupted', message: 'The turn was interrupted by a platform restart.' } });
    expect(await sessionsOf(deps).findOne({ _id: running._id })).toMatchObject({ status: 'failed' });
    expect(await turnsOf(deps).findOne({ _id: childTurn._id })).toMatchObject({ status: 'failed', error: { code: 'interrupted' } });
    expect(requeued).toEqual([queuedTurn._id]);
    expect(await turnsOf(deps).findOne({ _id: queuedTurn._id })).toMatchObject({ status: 'queued' });
    expect(await settleLostJobs({ ...deps, requeue: async () => undefined })).toEqual(['settled 1 record(s): queued turn → enqueued again']);
  });

  it('ends queued and running environment operations failed (interrupted by a platform restart; run it again), but not one queued since the dispatcher started', async () => {
    const docs = createMemoryDocumentStore();
    const ops = docs.collection<OperationRecord>(agentCollections.operations);
    const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 9, 0, s));
    const op = (id: string, status: OperationRecord['status'], queuedAt: Date): OperationRecord => ({
      _id: id, schemaVersion: agentSchemaVersion, orgId: 'o', agentId: 'a', environment: 'main', kind: 'publish', input: {}, status,
      requestedBy: { subject: 's', email: 'm@example.com' }, error: null, result: null, queuedAt, startedAt: status === 'queued' ? null : queuedAt, endedAt: null,
    });
    for (const record of [op('lost-queued', 'queued', at(1)), op('lost-running', 'running', at(2)), op('new-queued', 'queued', at(9))]) await ops.insertOne(record);
    const lines = await settleLostJobs({ docs, clock: systemClock, requeue: async () => undefined, startedAt: at(5) });
    expect(lines).toEqual(['settled 2 record(s): queued or running environment operation → ended failed, interrupted by a platform restart (run it again)']);
    const failed = { status: 'failed', error: { code: 'interrupted', message: 'The operation was interrupted by a platform restart; run it again.' } };
    expect(await ops.findOne({ _id: 'lost-queued' })).toMatchObject(failed);
    expect(await ops.findOne({ _id: 'lost-running' })).toMatchObject(failed);
    expect(await ops.findOne({ _id: 'new-queued' })).toMatchObject({ status: 'queued', error: null });
  });
});

describe('the queue store\'s start (which queued operations are lost)', () => {
  it('is at or before the real start: uptime is whole seconds rounded down', () => {
    const now = new Date('2026-11-26T12:00:01.900Z');
    // Started at 12:00:00.000: 1.9 s of uptime reads 1; an operation queued at 12:00:00.800 is in this store.
    const start = queueStoreStart('# Server\r\nredis_version:7.0.15\r\nuptime_in_seconds:1\r\n', now);
    expect(start!.getTime()).toBeLessThanOrEqual(new Date('2026-11-26T12:00:00.000Z').getTime());
    expect(queueStoreStart('no uptime here', now)).toBeUndefined();
  });
});
