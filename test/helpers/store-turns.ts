/**
 * Sessions over the memory stores whose turns run for real through the store host (the broker's checks included),
 * as a dispatcher runs them, with a model provider fake (a port): the set-up the session tests share. Organization
 * `o1`, agent `a1`, build `b1`; every role check passes; the turn queue is an array the test drains with
 * `runQueued` (claimed, fenced by its lease, run by the engine).
 */
import { expect } from 'vitest';
import type { Clock } from '../../core/ports/clock.ts';
import type { ModelProvider } from '../../core/ports/model-provider.ts';
import { runTurn } from '../../core/session/run-turn.ts';
import { claimTurn } from '../../core/session/session-store.ts';
import type { SessionDeps } from '../../core/session/session-access.ts';
import { createStoreHost } from '../../core/session/store-host.ts';
import type { StoreHostDeps } from '../../core/session/store-host-context.ts';
import type { WorkflowView } from '../../core/session/workflow-view.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';

/** What the sessions run on. */
export interface StoreTurnsOptions {
  /** The published workflows, by slug. */
  views: Record<string, WorkflowView>;
  models: ModelProvider;
  /** The clock of the stores and the engine (default: a fixed time the test moves with `later`). */
  clock?: Clock;
  /** More of the store host's deps (service tools, costs, prompt cache…). */
  host?: Partial<StoreHostDeps>;
}

/** The stores, the session use cases' deps, the turn queue and a way to run its turns. */
export function storeTurns({ views, models, clock: given, host = {} }: StoreTurnsOptions) {
  let n = 0;
  let now = new Date('2026-11-29T10:00:00.000Z');
  const clock = given ?? { now: () => now };
  const ids = {
    newId: () => `id${(n += 1)}`,
    randomBytes: (k: number) => new Uint8Array(k),
    sha256Hex: async () => '',
  };
  const store = { docs: createMemoryDocumentStore({ now: clock.now }), objects: createMemoryObjectStore(), clock, ids };
  const queue: string[] = [];
  const deps: SessionDeps = {
    ...store,
    requireRole: async () => undefined,
    seesEveryChat: async () => false,
    resolveWorkflow: async (_caller, ref) => ({
      orgId: 'o1',
      agentId: 'a1',
      environment: ref.environment,
      buildId: 'b1',
      commitId: 'c1',
      view: views[ref.workflow],
    }),
    resolveAgent: async () => ({ orgId: 'o1', agentId: 'a1' }),
    enqueueTurn: async (id) => void queue.push(id),
  };
  /** The store host of turn `turnId` (fenced by `lease` when given). */
  const hostFor = (turnId: string, lease?: string) =>
    createStoreHost({
      ...store,
      enqueueTurn: deps.enqueueTurn,
      ...(lease ? { fence: { runner: 'test', lease } } : {}),
      models,
      workflowOf: async (_build, slug) => views[slug],
      costOf: () => 0,
      serviceTools: async () => [],
      callServiceTool: async () => ({ output: null, isError: true }),
      promptCache: { enabled: false, ttl: '5m' },
      callSignal: () => undefined,
      ...host,
    }, turnId);
  /** Claims the next queued turn. @returns its id and its (fenced) host */
  const claimQueued = async () => {
    const turnId = queue.shift()!;
    const claimed = await claimTurn(store, turnId, 'test');
    expect(claimed).not.toBeNull();
    return { turnId, host: hostFor(turnId, claimed!.lease) };
  };
  /** Runs the next queued turn as a dispatcher would. @returns the engine's outcome */
  const runQueued = async () => {
    const { turnId, host: claimedHost } = await claimQueued();
    return runTurn({ host: claimedHost, now: () => clock.now().getTime() }, turnId);
  };
  const later = (ms: number) => (now = new Date(now.getTime() + ms));
  return { store, deps, queue, hostFor, claimQueued, runQueued, later };
}
