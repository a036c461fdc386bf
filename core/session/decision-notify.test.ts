/**
 * Sending out a parked decision (memory stores; the tool catalog is the port faked): a human state with `notify:
 * {tool}` gets one call per pending decision with the decision and one working link, for the session's
 * organization and agent; a state without notify, an evaluation session and a second look send nothing; a failed
 * call is a log line without the link.
 *
 * Source: docs/decisions.md D26 § 3.
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../adapters/runtime/system.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import type { ToolCatalog } from '../ports/tool-catalog.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { decideThroughLink, readDecisionLink } from './decision-links.ts';
import { notifyParkedDecision } from './decision-notify.ts';
import { insertSession, insertTurn, sessionsOf } from './session-store.ts';

const options = [{ to: 'approved', description: 'Ship it' }, { to: 'rejected', description: 'Send it back' }];
const agentWith = (notify: unknown): PublishedAgent => ({
  agentPrompt: '',
  skills: {},
  workflows: {
    review: {
      slug: 'review',
      definition: { states: { review: { type: 'human', ...(notify ? { notify } : {}) } } } as never,
      hooks: {},
      triggers: [],
    },
  },
});

async function world(
  notify: unknown,
  answer: 'ok' | 'error' = 'ok',
  extra: Record<string, unknown> = {},
  terms: Record<string, unknown> = {},
) {
  const calls: { collection: string; name: string; input: Record<string, unknown>; options: unknown }[] = [];
  const lines: string[] = [];
  const queued: string[] = [];
  const catalog: ToolCatalog = {
    tools: async () => [],
    call: async (collection, name, input, opts) => {
      calls.push({ collection, name, input: input as Record<string, unknown>, options: opts });
      return { isError: answer === 'error', output: answer };
    },
  };
  const store = {
    docs: createMemoryDocumentStore(),
    objects: createMemoryObjectStore(),
    clock: { now: () => new Date('2026-11-29T10:00:00Z') },
    ids: cryptoIds,
  };
  const deps = {
    ...store,
    catalog,
    agentOf: async () => agentWith(notify),
    appBaseUrl: 'https://cairn.example.com/',
    log: (l: string) => lines.push(l),
  };
  const session = await insertSession(store, {
    orgId: 'o1',
    agentId: 'a1',
    environment: 'main',
    workflow: 'review',
    buildId: 'b',
    commitId: 'c',
    state: 'review',
    variables: {},
    lockedVariables: [],
    trigger: 'hook',
    inheritedForbid: [],
    depth: 0,
    ...extra,
  });
  const pending = { kind: 'decision', id: 'p1', state: 'review', options, ...terms };
  await sessionsOf(store).updateOne({ _id: session._id }, { $set: { status: 'awaiting_decision', pending } });
  const turn = await insertTurn(store, session, { kind: 'delivery', input: { message: 'go' } });
  const links = {
    ...store,
    enqueueTurn: async (id: string) => {
      queued.push(id);
    },
  };
  return { deps, links, session, turnId: turn._id, calls, lines, queued };
}

describe('sending out a parked decision', () => {
  it("calls the state's notify tool once with the decision and a link that decides it", async () => {
    const w = await world({ tool: 'mail/send_decision' });
    expect(await notifyParkedDecision(w.deps, w.turnId)).toBe('mail/send_decision');
    expect(await notifyParkedDecision(w.deps, w.turnId)).toBeUndefined();
    expect(w.calls).toHaveLength(1);
    const [call] = w.calls;
    expect(call).toMatchObject({ collection: 'mail', name: 'send_decision', options: { orgId: 'o1', agentId: 'a1' } });
    expect(call.input).toMatchObject({
      session: w.session._id,
      state: 'review',
      options,
      expiresAt: '2026-12-06T10:00:00.000Z',
    });
    const [link] = call.input.links as string[];
    expect(call.input.links).toHaveLength(1);
    expect(link).toMatch(/^https:\/\/cairn\.example\.com\/decide\/cairn_dl_[A-Za-z0-9_-]{43}$/);
    const token = link.split('/').at(-1)!;
    expect(call.input.api).toBe(`https://cairn.example.com/api/decisions/${token}`);
    const shown = await readDecisionLink(w.links, token);
    expect(shown).toEqual({ state: 'review', options, expiresAt: '2026-12-06T10:00:00.000Z' });
    await decideThroughLink(w.links, token, { to: 'approved' });
    expect(w.queued).toHaveLength(1);
    expect(w.lines).toEqual([]);
  });

  it("sends an expiring decision's own expiry, and its link's page says where the session goes then", async () => {
    const w = await world({ tool: 'mail/send' }, 'ok', {}, {
      expiresAt: '2026-11-29T12:00:00.000Z',
      expiresTo: 'lapsed',
      fields: [{ name: 'amount', type: 'number', required: true }],
    });
    await notifyParkedDecision(w.deps, w.turnId);
    expect(w.calls[0].input).toMatchObject({
      expiresAt: '2026-11-29T12:00:00.000Z',
      fields: [{ name: 'amount', type: 'number', required: true }],
    });
    const token = String((w.calls[0].input.links as string[])[0]).split('/').at(-1)!;
    expect(await readDecisionLink(w.links, token)).toEqual({
      state: 'review',
      options,
      fields: [{ name: 'amount', type: 'number', required: true }],
      expiresAt: '2026-11-29T12:00:00.000Z',
      expiresTo: 'lapsed',
    });
  });

  it('sends nothing for a state without notify or for an evaluation session', async () => {
    const plain = await world(undefined);
    expect(await notifyParkedDecision(plain.deps, plain.turnId)).toBeUndefined();
    expect(plain.calls).toEqual([]);
    const evaluation = await world({ tool: 'mail/send' }, 'ok', { evaluation: { runId: 'r', caseId: 'c' } });
    expect(await notifyParkedDecision(evaluation.deps, evaluation.turnId)).toBeUndefined();
    expect(evaluation.calls).toEqual([]);
  });

  it('logs a failed call naming the session and the tool, never the link', async () => {
    const w = await world({ tool: 'mail/send' }, 'error');
    await notifyParkedDecision(w.deps, w.turnId);
    const token = String((w.calls[0].input.links as string[])[0]).split('/').at(-1)!;
    expect(w.lines).toEqual([
      `[decisions] notify mail/send of session ${w.session._id} failed: the tool answered an error`,
    ]);
    expect(w.lines.join('\n')).not.toContain(token);
  });
});
