/**
 * Design chats (./design-chats.ts) on the in-memory stores and the real git repository: a chat opens a design session
 * whose ids carry the design prefix (its turns take the design queue); a stop between the chat's record and its
 * session is completed by the next run on the thread, under the same id; a chat is personal (another member's thread
 * id opens a chat of the caller's own); a Reader and a User get 404; no design agent configured is 503 naming what
 * to set; a message while the agent answers is 409.
 * Source: issue "The design agent" § A conversation per agent environment's draft, § Done when.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createObjectStoreGitRepo } from '../adapters/git/index.ts';
import { orgAgentAuthority } from '../boot/agent-authority.ts';
import { type AgentDeps, builtinTemplate, createAgent, ensureAgentIndexes } from '../agent/hosting.ts';
import { addMember, createGroup, createOrganization, ensureOrgIndexes, type OrgCaller } from '../org/index.ts';
import { agentNotFound } from '../agent/agent-access.ts';
import { isPlatformError } from '../ports/platform-error.ts';
import { sessionsOf } from '../session/session-store.ts';
import { turnQueueOf } from '../session/turn-jobs.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryLease } from '../testing/memory-lease.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import { type DesignRunDeps, startDesignRun } from './design-chats.ts';
import { type DesignChatRecord, designChatsCollection } from './design-runtime.ts';

const owner: OrgCaller = { subject: 'sub-owner', email: 'owner@example.com' };
const maintainer: OrgCaller = {
  subject: 'sub-maint',
  email: 'maint@example.com',
};
const reader: OrgCaller = {
  subject: 'sub-reader',
  email: 'reader@example.com',
};
const user: OrgCaller = { subject: 'sub-user', email: 'user@example.com' };
/** The owner of another organization, no member of Acme. */
const outsider: OrgCaller = { subject: 'sub-outsider', email: 'outsider@example.com' };

const input = (text: string, threadId = '') => ({
  threadId,
  runId: 'r1',
  tools: [],
  context: [],
  messages: [{ id: 'u1', role: 'user', content: text }],
});

describe('design chats', () => {
  let dir: string;
  let deps: DesignRunDeps;
  const queued: string[] = [];
  let agentId = '';

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-design-chats-'));
    const docs = createMemoryDocumentStore();
    const objects = createMemoryObjectStore();
    let n = 0;
    const ids = {
      newId: () => `id${(n += 1)}`,
      randomBytes: (k: number) => new Uint8Array(k),
      sha256Hex: async (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex'),
    };
    const clock = { now: () => new Date(Date.UTC(2026, 10, 27, 10)) };
    const hosting: AgentDeps = {
      docs,
      objects,
      clock,
      ids,
      lease: createMemoryLease(),
      git: createObjectStoreGitRepo({
        objectStore: objects,
        scratchDir: join(dir, 'scratch'),
      }),
      authority: orgAgentAuthority({ docs }),
      template: async () => builtinTemplate(),
      wait: async () => undefined,
    };
    queued.length = 0;
    deps = {
      docs,
      objects,
      clock,
      ids,
      hosting,
      designModel: 'design-model',
      enqueueTurn: async (turnId) => void queued.push(turnId),
    };
    await ensureOrgIndexes(docs);
    await ensureAgentIndexes(docs);
    const orgId = (await createOrganization(hosting, owner, 'Acme'))._id;
    const group = (role: 'reader' | 'user' | 'maintainer') =>
      createGroup(hosting, orgId, {
        name: role,
        agentRoles: [{ agent: '*', role }],
      });
    await addMember(hosting, orgId, reader, [(await group('reader'))._id]);
    await addMember(hosting, orgId, user, [(await group('user'))._id]);
    await addMember(hosting, orgId, maintainer, [
      (await group('maintainer'))._id,
    ]);
    agentId = (await createAgent(hosting, owner, { orgId, slug: 'desk' }))._id;
    await createOrganization(hosting, outsider, 'Elsewhere');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = (caller: OrgCaller, text: string, threadId = '', agent = 'desk') =>
    startDesignRun(deps, {
      caller,
      agent,
      envName: 'main',
      input: input(text, threadId),
    });

  it('opens a design session whose session and turn ids take the design queue', async () => {
    const started = await run(owner, 'A desk for expenses');
    expect(started.threadId).toBe(started.session._id);
    expect(started.session).toMatchObject({
      workflow: '@design',
      state: 'design',
      startedBy: owner.subject,
    });
    expect(queued).toEqual([started.turnId]);
    expect(turnQueueOf(started.turnId)).toBe('design-agent-turns');
  });

  const stopped = 'completes a chat whose process stopped after its record: the next run opens its session, same id';
  it(stopped, async () => {
    const first = await run(owner, 'A desk for expenses');
    // The stop between the two writes: the chat's record stands, its session (and turn) never came.
    await sessionsOf(deps).deleteOne({ _id: first.session._id });
    const again = await run(owner, 'Are you there?', first.threadId);
    expect(again.threadId).toBe(first.threadId);
    expect(again.session._id).toBe(first.threadId);
    expect(await sessionsOf(deps).findOne({ _id: first.threadId }))
      .toMatchObject({ status: 'running' });
    expect(turnQueueOf(again.turnId)).toBe('design-agent-turns');
    const chats = await deps.docs.collection<DesignChatRecord>(
      designChatsCollection,
    ).find({});
    expect(chats).toHaveLength(1);
  });

  it("is personal: another member's thread id opens a chat of the caller's own", async () => {
    const mine = await run(owner, 'A desk for expenses');
    const theirs = await run(maintainer, 'Show me', mine.threadId);
    expect(theirs.threadId).not.toBe(mine.threadId);
    expect(theirs.session.startedBy).toBe(maintainer.subject);
  });

  const refusals = 'is 404 to a Reader and a User, naming nothing; 503 without a design agent; 409 while it answers';
  it(refusals, async () => {
    for (const caller of [reader, user]) {
      const error = await run(caller, 'hello').catch((e: unknown) => e);
      expect(isPlatformError(error, 'agent_not_found') && error.status).toBe(
        404,
      );
    }
    const started = await run(owner, 'A desk for expenses');
    const busy = await run(owner, 'And?', started.threadId).catch((
      e: unknown,
    ) => e);
    expect(isPlatformError(busy, 'turn_running') && busy.status).toBe(409);
    deps = { ...deps, designModel: undefined };
    const unset = await run(owner, 'hello').catch((e: unknown) => e);
    expect(
      isPlatformError(unset, 'design_agent_not_configured') && unset.status,
    ).toBe(503);
    expect((unset as Error).message).toContain('CAIRN_MODEL_BASE_URL');
  });

  const generic = "answers a lower role and another organization's member the one generic 404, naming nothing";
  it(generic, async () => {
    const bodies = new Set<string>();
    for (const caller of [reader, user, outsider]) {
      for (const ref of ['desk', agentId]) {
        const error = await run(caller, 'hello', '', ref).catch((e: unknown) => e);
        expect(isPlatformError(error, 'agent_not_found') && error.status, `${caller.subject} ${ref}`).toBe(404);
        const message = (error as Error).message;
        expect(message).not.toContain('desk');
        expect(message).not.toContain(agentId);
        bodies.add(message);
      }
    }
    expect([...bodies]).toEqual([agentNotFound().message]);
    const own = await run(maintainer, 'A desk for expenses', '', agentId);
    expect(own.session).toMatchObject({ workflow: '@design', startedBy: maintainer.subject });
  });
});
