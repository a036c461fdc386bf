/**
 * Session use cases on the in-memory store: a member's chat (`startedBy`) is personal — another member of the
 * organization gets 404 for read, reply, decide, cancel and attributes, and does not list it, unless they hold
 * sessions:personal; its child sessions are as personal as the chat; a child session is decided, replied to and
 * cancelled only through its parent (409, nothing queued).
 *
 * Source: spec/platform-service.md § Session facts named; docs/decisions.md D17 § 2.
 */
import { describe, expect, it } from 'vitest';
import { PlatformError } from '../ports/platform-error.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { insertSession, sessionsOf, turnsOf } from './session-store.ts';
import {
  cancelSession,
  decideSession,
  listSessions,
  replySession,
  setSessionAttributes,
  showSession,
} from './sessions.ts';
import type { SessionDeps } from './session-access.ts';

const ada = { subject: 'sub-ada', email: 'ada@example.com' };
const cy = { subject: 'sub-cy', email: 'cy@example.com' };
const decision = { kind: 'decision', id: 'p1', state: 'review', options: [{ to: 'approved', description: 'ok' }] };

async function world(personal: Set<string>) {
  let n = 0;
  const queued: string[] = [];
  const deps: SessionDeps = {
    docs: createMemoryDocumentStore(),
    objects: createMemoryObjectStore(),
    clock: { now: () => new Date('2026-11-26T10:00:00Z') },
    ids: { newId: () => `s${(n += 1)}`, randomBytes: (k: number) => new Uint8Array(k), sha256Hex: async () => '' },
    requireRole: async (caller) => {
      if (![ada.subject, cy.subject].includes(caller.subject)) {
        throw new PlatformError('not_found', 'No such agent.', { status: 404 });
      }
    },
    seesEveryChat: async (caller) => personal.has(caller.subject),
    resolveAgent: async () => ({ orgId: 'o1', agentId: 'a1' }),
    resolveWorkflow: async () => {
      throw new Error('not used');
    },
    enqueueTurn: async (id) => {
      queued.push(id);
    },
  };
  const base = {
    orgId: 'o1',
    agentId: 'a1',
    environment: 'main',
    workflow: 'concierge',
    buildId: 'b',
    commitId: 'c',
    state: 'review',
    variables: {},
    lockedVariables: [],
    trigger: 'chat',
    inheritedForbid: [],
  };
  const chat = await insertSession(deps, { ...base, depth: 0, startedBy: ada.subject });
  const child = await insertSession(deps, {
    ...base,
    workflow: 'helper',
    depth: 1,
    parentId: chat._id,
    rootId: chat._id,
    dispatchId: '1',
  });
  for (const s of [chat, child]) {
    await sessionsOf(deps).updateOne({ _id: s._id }, {
      $set: {
        status: 'awaiting_decision',
        pending: { ...decision, ...(s === chat ? { childSessionId: child._id } : {}) },
      },
    });
  }
  const firing = await insertSession(deps, { ...base, trigger: 'hook', depth: 0 });
  return { deps, chat, child, firing, queued };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'no refusal',
    (error: { code?: string; status?: number; message: string }) => `${error.status} ${error.code}: ${error.message}`,
  );
}

describe('personal chats', () => {
  it('are not found by another member: read, reply, decide, cancel, attributes, list', async () => {
    const { deps, chat, child, firing, queued } = await world(new Set());
    for (const id of [chat._id, child._id]) {
      const answers = [
        await refusal(showSession(deps, cy, id)),
        await refusal(replySession(deps, cy, id, 'hi')),
        await refusal(decideSession(deps, cy, id, { to: 'approved' })),
        await refusal(cancelSession(deps, cy, id)),
        await refusal(setSessionAttributes(deps, cy, id, { note: 'mine' })),
      ];
      for (const answer of answers) {
        expect(answer).toMatch(/^404 not_found: /);
        expect(answer).not.toContain(id);
      }
    }
    expect((await listSessions(deps, cy, { agent: 'a1' })).map((s) => s._id)).toEqual([firing._id]);
    expect((await sessionsOf(deps).findOne({ _id: chat._id }))?.status).toBe('awaiting_decision');
    expect(queued).toEqual([]);
    expect((await showSession(deps, ada, chat._id)).children.map((c) => c._id)).toEqual([child._id]);
    expect((await listSessions(deps, ada, { agent: 'a1' })).map((s) => s._id).sort())
      .toEqual([chat._id, firing._id].sort());
  });

  it('are seen by a member holding sessions:personal', async () => {
    const { deps, chat, child } = await world(new Set([cy.subject]));
    expect((await showSession(deps, cy, chat._id)).session._id).toBe(chat._id);
    expect((await showSession(deps, cy, child._id)).session._id).toBe(child._id);
    expect((await listSessions(deps, cy, { agent: 'a1' })).map((s) => s._id)).toContain(chat._id);
  });
});

describe('a child session', () => {
  it('is decided, replied to and cancelled only through its parent (409, nothing queued)', async () => {
    const { deps, chat, child, queued } = await world(new Set());
    expect(await refusal(decideSession(deps, ada, child._id, { to: 'approved' }))).toBe(
      '409 decide_through_parent: This is a child session of a workflow call: ' +
        `decide through its parent session ${chat._id}.`,
    );
    expect(await refusal(replySession(deps, ada, child._id, 'hi'))).toMatch(/^409 reply_through_parent: /);
    expect(await refusal(cancelSession(deps, ada, child._id)))
      .toMatch(/^409 cancel_through_parent: .*cancel its root session/);
    expect((await sessionsOf(deps).findOne({ _id: child._id }))?.status).toBe('awaiting_decision');
    expect(await turnsOf(deps).find({ sessionId: child._id })).toEqual([]);
    expect(queued).toEqual([]);
    const turn = await decideSession(deps, ada, chat._id, { to: 'approved' });
    expect(turn.sessionId).toBe(chat._id);
    expect(queued).toEqual([turn._id]);
  });
});

describe("an evaluation case's session", () => {
  it('takes decisions and replies from its steps, not a member (409, nothing queued); a cancel goes', async () => {
    const { deps, firing, queued } = await world(new Set());
    const evaluation = { runId: 'ev-1', caseId: 'answer/a' };
    await sessionsOf(deps).updateOne({ _id: firing._id }, {
      $set: { evaluation, status: 'awaiting_decision', pending: decision },
    });
    expect(await refusal(decideSession(deps, ada, firing._id, { to: 'approved' }))).toBe(
      `409 evaluation_session: Session ${firing._id} is case answer/a of evaluation run ev-1: its steps take its ` +
        'decisions, not a member (cancel it to stop the case).',
    );
    expect(await refusal(replySession(deps, ada, firing._id, 'hi'))).toMatch(
      /^409 evaluation_session: .*its steps reply/,
    );
    expect(queued).toEqual([]);
    await cancelSession(deps, ada, firing._id);
    expect((await sessionsOf(deps).findOne({ _id: firing._id }))?.status).toBe('cancelled');
  });
});
