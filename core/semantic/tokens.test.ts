/**
 * Endpoint authentication: an unknown project is refused exactly like a bad token, and a token's
 * Last Used time is written at most once a minute.
 */
import { describe, expect, it } from 'vitest';
import type { BaseDocument, DocumentStore } from '../ports/document-store.ts';
import { createMemoryDocumentStore } from '../testing/memory-document-store.ts';
import { createMemoryObjectStore } from '../testing/memory-object-store.ts';
import type { SemanticDeps } from './deps.ts';
import { createProject, ensureSemanticIndexes } from './projects.ts';
import {
  authenticateEndpoint,
  callLogTokenNames,
  createToken,
  lastUsedWriteIntervalMs,
  listTokens,
  mintPlaygroundToken,
  modelsInScope,
  playgroundTokenLifetimeMs,
  revokeToken,
} from './tokens.ts';

let counter = 0;
/** A fake Ids port: distinct ids, counter-based bytes, and a digest that is equal exactly when the input is. */
const fakeIds = {
  newId: () => `id${(counter += 1)}`,
  randomBytes: (n: number) => Uint8Array.from({ length: n }, () => (counter += 1) % 256),
  sha256Hex: async (data: string | Uint8Array) => `digest:${typeof data === 'string' ? data : [...data].join(',')}`,
};

function world() {
  let now = new Date('2026-11-23T10:00:00Z');
  const inner = createMemoryDocumentStore({ now: () => now });
  let updates = 0;
  const docs: DocumentStore = {
    ...inner,
    collection: <T extends BaseDocument>(name: string) =>
      new Proxy(inner.collection<T>(name), {
        get: (target, key) => {
          const value = Reflect.get(target, key, target);
          if (key !== 'updateOne' || typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            updates += 1;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      }),
  };
  const deps: SemanticDeps = { docs, objects: createMemoryObjectStore(), clock: { now: () => now }, ids: fakeIds };
  return {
    deps,
    advance: (ms: number) => {
      now = new Date(now.getTime() + ms);
    },
    updates: () => updates,
  };
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; status?: number; message: string }> {
  return promise.then(() => {
    throw new Error('expected a refusal');
  }, (error: { code: string; status?: number; message: string }) => error);
}

describe('authenticateEndpoint', () => {
  it('refuses an unknown project exactly as it refuses a bad or foreign token', async () => {
    const { deps } = world();
    const alpha = await createProject(deps, { orgId: 'org-1', slug: 'alpha', name: 'Alpha' });
    await createProject(deps, { orgId: 'org-1', slug: 'beta', name: 'Beta' });
    const { token } = await createToken(deps, { projectId: alpha._id, name: 'a', models: ['m'] });
    const refusals = await Promise.all([
      refusal(authenticateEndpoint(deps, 'no-such-project', undefined)),
      refusal(authenticateEndpoint(deps, 'alpha', undefined)),
      refusal(authenticateEndpoint(deps, 'no-such-project', token)),
      refusal(authenticateEndpoint(deps, 'beta', token)),
      refusal(authenticateEndpoint(deps, 'alpha', 'cairn_mcp_wrong')),
    ]);
    for (const error of refusals) {
      expect({ code: error.code, status: error.status, message: error.message }).toEqual({
        code: 'unauthorized',
        status: 401,
        message: refusals[0].message,
      });
    }
    expect(refusals[0].message).not.toMatch(/no-such|alpha|beta|exist/i);
    const ok = await authenticateEndpoint(deps, 'alpha', token);
    expect(ok.project.slug).toBe('alpha');
  });

  it('writes Last Used at most once per interval, and a revoked token is refused at once', async () => {
    const { deps, advance, updates } = world();
    const project = await createProject(deps, { orgId: 'org-1', slug: 'gamma', name: 'Gamma' });
    const { token, record } = await createToken(deps, { projectId: project._id, name: 'g', models: ['m'] });
    const before = updates();
    const first = await authenticateEndpoint(deps, 'gamma', token);
    advance(1_000);
    const second = await authenticateEndpoint(deps, 'gamma', token);
    expect(updates() - before).toBe(1);
    expect(second.token.lastUsedAt).toEqual(first.token.lastUsedAt);
    advance(lastUsedWriteIntervalMs);
    const third = await authenticateEndpoint(deps, 'gamma', token);
    expect(updates() - before).toBe(2);
    expect(third.token.lastUsedAt!.getTime()).toBe(first.token.lastUsedAt!.getTime() + 1_000 + lastUsedWriteIntervalMs);
    await revokeToken(deps, project._id, record._id);
    expect((await refusal(authenticateEndpoint(deps, 'gamma', token))).code).toBe('unauthorized');
  });
});

describe('authenticateEndpoint round trips', () => {
  it('looks the token and the project up at once: the project lookup starts before the token one answers', async () => {
    const { deps } = world();
    const project = await createProject(deps, { orgId: 'org-1', slug: 'delta', name: 'Delta' });
    const { token } = await createToken(deps, { projectId: project._id, name: 'd', models: ['m'] });
    const seen: string[] = [];
    const docs: DocumentStore = {
      ...deps.docs,
      collection: <T extends BaseDocument>(name: string) =>
        new Proxy(deps.docs.collection<T>(name), {
          get: (target, key) => {
            const value = Reflect.get(target, key, target);
            if (key !== 'findOne' || typeof value !== 'function') return value;
            return async (...args: unknown[]) => {
              seen.push(`${name} asked`);
              const found = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
              await Promise.resolve();
              seen.push(`${name} answered`);
              return found;
            };
          },
        }),
    };
    const ok = await authenticateEndpoint({ ...deps, docs }, 'delta', token);
    expect(ok.project._id).toBe(project._id);
    expect(seen.indexOf('semantic_projects asked')).toBeLessThan(seen.indexOf('semantic_tokens answered'));
  });
});

describe('playground tokens', () => {
  it(
    "reach every model (saved later too), expire after 8 h, stay hidden from MCP Access, and replace the member's " +
      'earlier one',
    async () => {
      const { deps, advance } = world();
      const alpha = await createProject(deps, { orgId: 'org-1', slug: 'alpha', name: 'Alpha' });
      await createToken(deps, { projectId: alpha._id, name: 'agent', models: ['m'] });
      const first = await mintPlaygroundToken(deps, alpha._id, { subject: 'sub-ann', email: 'ann@example.com' });
      const other = await mintPlaygroundToken(deps, alpha._id, { subject: 'sub-bob', email: 'bob@example.com' });
      expect(first.record).toMatchObject({
        name: 'playground · ann@example.com',
        purpose: 'playground',
        memberSubject: 'sub-ann',
        allModels: true,
      });
      expect(first.record.expiresAt?.getTime()).toBe(first.record.createdAt.getTime() + playgroundTokenLifetimeMs);
      expect(modelsInScope(first.record, ['m', 'saved_later'])).toEqual(['m', 'saved_later']);
      expect((await listTokens(deps, alpha._id)).map((t) => t.name)).toEqual(['agent']);
      expect((await callLogTokenNames(deps, alpha._id)).filter((t) => t.playground).map((t) => t.name).sort()).toEqual([
        'playground · ann@example.com',
        'playground · bob@example.com',
      ]);
      await expect(authenticateEndpoint(deps, 'alpha', first.token)).resolves.toMatchObject({
        token: { _id: first.record._id },
      });
      advance(1000);
      const second = await mintPlaygroundToken(deps, alpha._id, { subject: 'sub-ann', email: 'ann@example.com' });
      expect((await refusal(authenticateEndpoint(deps, 'alpha', first.token))).status).toBe(401);
      await expect(authenticateEndpoint(deps, 'alpha', second.token)).resolves.toBeTruthy();
      await expect(authenticateEndpoint(deps, 'alpha', other.token)).resolves.toBeTruthy();
      advance(playgroundTokenLifetimeMs);
      expect((await refusal(authenticateEndpoint(deps, 'alpha', second.token))).status).toBe(401);
    },
  );

  it('keeps an access token to its named models', () => {
    expect(modelsInScope({ models: ['a'] }, ['a', 'b'])).toEqual(['a']);
    expect(modelsInScope({ models: ['a'], allModels: false }, ['a', 'b'])).toEqual(['a']);
  });
});

describe('a token value minted elsewhere', () => {
  const minted = 'cairn_mcp_BwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyAhIiMkJSY';

  it('is stored (as its digest) and authenticates, so a config can name it before the token exists', async () => {
    const { deps } = world();
    await ensureSemanticIndexes(deps.docs);
    const alpha = await createProject(deps, { orgId: 'org-1', slug: 'alpha', name: 'Alpha' });
    const input = { projectId: alpha._id, name: 'demo', models: ['m'], value: minted };
    const { token, record } = await createToken(deps, input);
    expect(token).toBe(minted);
    expect(record.tokenHash).toBe(await deps.ids.sha256Hex(minted));
    expect((await authenticateEndpoint(deps, 'alpha', minted)).token._id).toBe(record._id);
  });

  it('is refused when not in the minted form, and when already in use, with what to do', async () => {
    const { deps } = world();
    await ensureSemanticIndexes(deps.docs);
    const alpha = await createProject(deps, { orgId: 'org-1', slug: 'alpha', name: 'Alpha' });
    const chosen = [`cairn_mcp_${'A'.repeat(43)}`, `cairn_mcp_${'ab01'.repeat(10)}xyz`];
    for (const value of ['hunter2', 'cairn_mcp_short', `${minted}!`, `xcairn_mcp_${'a'.repeat(43)}`, ...chosen]) {
      const error = await refusal(createToken(deps, { projectId: alpha._id, name: 'weak', models: ['m'], value }));
      expect([error.code, error.status]).toEqual(['invalid_argument', 400]);
      expect(error.message).toMatch(/cairn_mcp_ and 43 base64url characters/);
    }
    await createToken(deps, { projectId: alpha._id, name: 'demo', models: ['m'], value: minted });
    const again = await refusal(
      createToken(deps, { projectId: alpha._id, name: 'again', models: ['m'], value: minted }),
    )
      .then((e) => [e.code, e.status, e.message]);
    expect(again).toEqual(['token_exists', 409, 'This token value is already in use: mint a new one.']);
    expect(await listTokens(deps, alpha._id)).toHaveLength(1);
  });
});
