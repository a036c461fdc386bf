/**
 * The editor's routes over memory stores and the object-store git repository: the saved texts, validation of
 * edited texts with the saved ones, and the changes since the last publish before and after a publish.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createObjectStoreGitRepo } from '../../core/adapters/git/object-store-git-repo.ts';
import { cryptoIds } from '../../core/adapters/runtime/system.ts';
import { systemClock } from '../../core/adapters/runtime/system-clock.ts';
import type { Logger } from '../../core/ports/logger.ts';
import type { ChangesView, EditorSourcesView, ValidationView } from '../../core/semantic/api/editor.ts';
import { createMemoryDocumentStore } from '../../core/testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../../core/testing/memory-object-store.ts';
import { semanticEditorRoutes } from './semantic-editor-routes.ts';
import { semanticRoutes } from './semantic-routes.ts';
import { orgSemanticAuthority } from '../../core/boot/semantic-authority.ts';
import { ensureDefaultOrganization } from '../../core/org/index.ts';

const logger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined, child: () => logger };
const base = 'https://cairn.example.com/api/semantic/projects';
/** A valid model file defining model `name` with one dataset. */
const model = (name: string, field = 'id') => `version: "0.1.1"\nsemantic_model:\n  - name: ${name}\n    datasets:\n      - name: t\n        source: data.t\n        fields:\n          - name: ${field}\n            expression:\n              dialects:\n                - dialect: ANSI_SQL\n                  expression: ${field}\n`;

let scratchDir: string;
let app: { handle(request: Request): Promise<Response> };

beforeEach(async () => {
  scratchDir = await mkdtemp(join(tmpdir(), 'cairn-editor-'));
  const objects = createMemoryObjectStore();
  const docs = createMemoryDocumentStore();
  const caller = { subject: 'u1', email: 'ada@example.com' };
  // Ada's only organization: projects she creates go to it.
  await ensureDefaultOrganization({ docs, clock: systemClock, ids: cryptoIds }, caller);
  const env = {
    deps: {
      docs, objects, git: createObjectStoreGitRepo({ objectStore: objects, scratchDir }), clock: systemClock,
      ids: cryptoIds, authority: orgSemanticAuthority({ docs }),
    },
    logger, authorOf: () => ({ name: 'Ada', email: 'ada@example.com' }), callerOf: () => caller,
    prepare: async () => undefined,
  };
  app = new Elysia().use(semanticRoutes(env)).use(semanticEditorRoutes(env));
});
afterEach(async () => { await rm(scratchDir, { recursive: true, force: true }); });

async function call<T>(method: string, path: string, body?: unknown, type = 'application/json'): Promise<{ status: number; body: T }> {
  const response = await app.handle(new Request(`${base}${path}`, {
    method, headers: body === undefined ? {} : { 'content-type': type }, body: body === undefined ? undefined : body instanceof Uint8Array ? new Blob([body as Uint8Array<ArrayBuffer>]) : JSON.stringify(body),
  }));
  return { status: response.status, body: await response.json() as T };
}

describe('the editor routes', () => {
  it('answers 404 naming an unknown project', async () => {
    const missing = await call<{ error: { code: string } }>('GET', '/nope/sources');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('serves the saved texts and data files, empty before the first save', async () => {
    expect((await call('POST', '', { slug: 'p' })).status).toBe(201);
    const empty = await call<EditorSourcesView>('GET', '/p/sources');
    expect(empty.body).toMatchObject({ revision: 0, commitId: null, models: {}, data: [] });
    const blob = await call<{ sha256: string; size: number }>('PUT', '/p/blobs/t.csv', new TextEncoder().encode('id\n1\n'), 'application/octet-stream');
    expect(blob.status).toBe(201);
    expect((await call('POST', '/p/sources', { models: { 'a.yaml': model('a') }, data: [{ name: 't.csv', sha256: blob.body.sha256 }] })).status).toBe(200);
    const saved = await call<EditorSourcesView>('GET', '/p/sources');
    expect(saved.body).toMatchObject({ revision: 1, models: { 'a.yaml': model('a') }, data: [{ name: 't.csv', size: 5, sha256: blob.body.sha256 }] });
    expect(saved.body.commitId).toMatch(/^[0-9a-f]{40}$/);
  });

  it('validates edited texts together with the saved files, with file, path, line and reason', async () => {
    await call('POST', '', { slug: 'p' });
    await call('POST', '/p/sources', { models: { 'a.yaml': model('a') }, data: [] });
    expect((await call<ValidationView>('POST', '/p/validate', { models: {} })).body).toEqual({ problems: [] });
    const broken = await call<ValidationView>('POST', '/p/validate', { models: { 'b.yaml': model('b').replace('        source: data.t\n', '') } });
    expect(broken.status).toBe(200);
    expect(broken.body.problems).toHaveLength(1);
    expect(broken.body.problems[0]).toMatchObject({ file: 'b.yaml', model: 'b', path: '/semantic_model/0/datasets/0', line: expect.any(Number) });
    const twice = await call<ValidationView>('POST', '/p/validate', { models: { 'a.yml': model('a') } });
    expect(twice.body.problems.map((p) => p.reason)).toEqual([expect.stringMatching(/"a" is already used by a\.yaml/)]);
    expect((await call<ValidationView>('POST', '/p/validate', { models: { 'a.yml': model('a') }, deletes: ['a.yaml'] })).body.problems).toEqual([]);
    const bad = await call<{ error: { code: string } }>('POST', '/p/validate', { models: { 'a.yaml': 1 } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'invalid_argument']);
  });

  it('lists everything as added before the first publish, and only what changed after it', async () => {
    await call('POST', '', { slug: 'p' });
    await call('POST', '/p/sources', { models: { 'a.yaml': model('a'), 'b.yaml': model('b') }, data: [] });
    const first = await call<ChangesView>('GET', '/p/changes');
    expect(first.body).toMatchObject({ publishedRevision: null, sourceRevision: 1, data: [] });
    expect(first.body.models.map((m) => [m.file, m.status])).toEqual([['a.yaml', 'added'], ['b.yaml', 'added']]);
    expect((await call('POST', '/p/publish')).status).toBe(200);
    expect((await call<ChangesView>('GET', '/p/changes')).body).toEqual({ publishedRevision: 1, sourceRevision: 1, models: [], data: [] });
    await call('POST', '/p/sources', { models: { 'a.yaml': model('a', 'code') }, data: [], deletes: ['b.yaml'] });
    const next = await call<ChangesView>('GET', '/p/changes');
    expect(next.body.sourceRevision).toBe(2);
    expect(next.body.models.map((m) => [m.file, m.status, m.added, m.removed])).toEqual([['a.yaml', 'changed', 2, 2], ['b.yaml', 'removed', 0, model('b').split('\n').length - 1]]);
    expect(next.body.models[0].diff).toContain('-          - name: id\n+          - name: code\n');
  });
});
