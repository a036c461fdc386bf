/**
 * The improvement-request routes over memory stores: the list by status, mark done and reopen (with who
 * and when), 404 naming an unknown id, 400 for a bad query or body, and 401 without a signed-in caller.
 */
import { describe, expect, it } from 'vitest';
import { cryptoIds } from '../../core/adapters/runtime/system.ts';
import type { GitRepo } from '../../core/ports/git-repo.ts';
import type { Logger } from '../../core/ports/logger.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';
import type { ImprovementList, ImprovementView } from '../../core/semantic/api/access.ts';
import { submitImprovement } from '../../core/semantic/improvements.ts';
import { orgSemanticAuthority } from '../../core/boot/semantic-authority.ts';
import { addMember, builtinGroupId, createOrganization } from '../../core/org/index.ts';
import { createProject } from '../../core/semantic/projects.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { semanticAccessRoutes } from './semantic-access-routes.ts';
import { tokenView } from './semantic-access-views.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const base = 'https://cairn.example.com';

async function routes() {
  let now = new Date('2026-11-23T10:00:00Z');
  const clock = { now: () => now };
  const docs = createMemoryDocumentStore({ now: clock.now });
  /** The git port is not used by these routes. */
  const git = {} as GitRepo;
  const deps = {
    docs, objects: createMemoryObjectStore(), clock, ids: cryptoIds, git, authority: orgSemanticAuthority({ docs }),
  };
  // Ana owns the organization of both projects; Bo is one of its Maintainers.
  const org = await createOrganization(
    deps, { subject: 'sub-ana@example.com', email: 'ana@example.com' }, 'Flights team',
  );
  await addMember(
    deps, org._id, { subject: 'sub-bo@example.com', email: 'bo@example.com' }, [builtinGroupId(org._id, 'maintainer')],
  );
  const callerOf = (request: Request) => {
    const email = request.headers.get('x-test-member');
    if (!email) throw new PlatformError('unauthorized', 'Sign in first.', { status: 401 });
    return { subject: `sub-${email}`, email };
  };
  const app = semanticAccessRoutes({
    deps, logger, callerOf, prepare: async () => undefined,
    authorOf: (request) => ({ name: 'x', email: callerOf(request).email }),
  });
  const project = await createProject(deps, { orgId: org._id, slug: 'flights' });
  const other = await createProject(deps, { orgId: org._id, slug: 'other' });
  const submit = async (projectId: string, title: string) => {
    const record = await submitImprovement(deps, { projectId, modelName: 'flights', title, description: `about ${title}`, tokenId: 't1' });
    now = new Date(now.getTime() + 1000);
    return record._id;
  };
  const send = (method: string, path: string, init: { body?: string; member?: string | null } = {}) => app.handle(new Request(`${base}/api/semantic/projects/${path}`, {
    method,
    headers: { ...(init.member === null ? {} : { 'x-test-member': init.member ?? 'ana@example.com' }), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: init.body,
  }));
  return { project, other, submit, send };
}

describe('improvement request routes', () => {
  it('lists open, done or all requests and marks one done, then reopens it', async () => {
    const { project, submit, send } = await routes();
    const first = await submit(project._id, 'first');
    const second = await submit(project._id, 'second');

    const marked = await send('POST', `flights/improvements/${first}/done`);
    expect(marked.status).toBe(200);
    expect(await marked.json() as ImprovementView).toEqual({
      id: first, modelName: 'flights', title: 'first', description: 'about first', tokenId: 't1',
      createdAt: '2026-11-23T10:00:00.000Z', status: 'done', doneAt: '2026-11-23T10:00:02.000Z', doneBy: 'ana@example.com',
    });
    const again = await send('POST', `flights/improvements/${first}/done`, { body: '{}', member: 'bo@example.com' });
    expect(await again.json()).toMatchObject({ status: 'done', doneBy: 'ana@example.com' });

    const ids = async (query: string) => ((await (await send('GET', `flights/improvements/list${query}`)).json()) as ImprovementList).improvements.map((i) => i.id);
    expect(await ids('')).toEqual([second, first]);
    expect(await ids('?status=all')).toEqual([second, first]);
    expect(await ids('?status=open')).toEqual([second]);
    expect(await ids('?status=done')).toEqual([first]);
    expect(await ids('?status=open&limit=1')).toEqual([second]);

    const reopened = await send('DELETE', `flights/improvements/${first}/done`);
    expect(await reopened.json()).toMatchObject({ id: first, status: 'open', doneAt: null, doneBy: null });
    expect(await ids('?status=done')).toEqual([]);
  });

  it('answers 404 naming an unknown id or one of another project, and for an unknown project', async () => {
    const { other, submit, send } = await routes();
    const elsewhere = await submit(other._id, 'elsewhere');
    for (const id of ['nope', elsewhere]) {
      const response = await send('POST', `flights/improvements/${id}/done`);
      expect(response.status).toBe(404);
      const body = await response.json() as { error: { code: string; message: string } };
      expect(body.error.code).toBe('not_found');
      expect(body.error.message).toContain(`"${id}"`);
    }
    expect((await send('DELETE', `nothing/improvements/${elsewhere}/done`)).status).toBe(404);
    expect((await send('GET', 'nothing/improvements/list')).status).toBe(404);
  });

  it('refuses a bad status, an unknown parameter and a body other than {} with 400, and no caller with 401', async () => {
    const { project, submit, send } = await routes();
    const id = await submit(project._id, 'first');
    const badStatus = await send('GET', 'flights/improvements/list?status=closed');
    expect(badStatus.status).toBe(400);
    expect((await badStatus.json() as { error: { message: string } }).error.message).toContain('"status"');
    expect((await send('GET', 'flights/improvements/list?page=2')).status).toBe(400);
    expect((await send('POST', `flights/improvements/${id}/done`, { body: '{"doneBy":"eve"}' })).status).toBe(400);
    expect((await send('POST', `flights/improvements/${id}/done`, { body: 'not json' })).status).toBe(400);
    expect((await send('POST', `flights/improvements/${id}/done`, { member: null })).status).toBe(401);
    expect(await (await send('GET', 'flights/improvements/list?status=done')).json()).toEqual({ improvements: [] });
  });
});

describe('tokenView', () => {
  it('answers a token summary as JSON with ISO-8601 times, leaving out the absent ones', () => {
    const createdAt = new Date('2026-11-01T00:00:00Z');
    const base = { id: 't1', name: 'agent', displayPrefix: 'cairn_mcp_abcdef', models: ['flights'], createdAt, events30d: 4, state: 'active' as const };
    expect(tokenView(base)).toEqual({ ...base, createdAt: '2026-11-01T00:00:00.000Z' });
    const full = tokenView({ ...base, expiresAt: new Date('2027-01-01T23:59:59.999Z'), revokedAt: new Date('2026-11-02T00:00:00Z'), lastUsedAt: new Date('2026-11-01T12:00:00Z'), state: 'revoked' });
    expect(full).toMatchObject({ expiresAt: '2027-01-01T23:59:59.999Z', revokedAt: '2026-11-02T00:00:00.000Z', lastUsedAt: '2026-11-01T12:00:00.000Z', state: 'revoked' });
    expect(JSON.parse(JSON.stringify(base))).toEqual(tokenView(base));
  });
});
