/**
 * Skill registries against a git server over https on loopback (git http-backend behind a self-signed certificate
 * the API trusts through NODE_EXTRA_CA_CERTS), the config naming the registry by its URL alone:
 * - the API clones it in the background (a foreign directory in its place is cloned again) and lists it at
 *   `GET /api/skill-registries` (no sign-in) with its commit and skill count; its skills (one that does not validate
 *   says why) need sign-in;
 * - `cairn skill add` copies a skill into an agent environment's draft, which then validates; another
 *   organization's member gets 404 naming nothing;
 * - the next boot fast-forwards the clone (a second copy deletes what the registry dropped); with the server down
 *   the next boot logs a warning and serves the last clone;
 * - an `http://` registry is refused at boot, naming the variable.
 * Source: spec/platform-service.md § Rules 16, § Endpoints; issue "Skill registries, and collections with
 * per-organization credentials and OAuth apps" § Done when.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillRegistryId } from '../../core/config/config-model.ts';
import { startApi, type RunningApi } from '../helpers/api-process.ts';
import { startGitHttpsServer, type GitHttpsServer } from '../helpers/git-https-server.ts';
import { oidcSignInEnv, startOidcProvider, threePeople, tokensOf, type RunningOidcProvider } from '../helpers/oidc-provider.ts';
import { runCairnAsync } from '../helpers/product.ts';
import { startRedis, type RunningRedis } from '../helpers/redis-server.ts';

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\nSay it briefly.\n`;

let git: GitHttpsServer;
let redis: RunningRedis;
let provider: RunningOidcProvider;
let api: RunningApi;
let registriesDir: string;
let registry: string;
let first: string;
const tokens: Record<string, string> = {};
const ada = { org: '', agent: '' };

interface Registry { id: string; url: string; state: string; commit: string | null; skills: number; lastFailure: { message: string } | null }

async function as(who: string | undefined, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = who ? { authorization: `Bearer ${tokens[who]}` } : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${api.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, any>, text };
}

/** Starts the API on the registry and waits until its background update ended. */
async function boot(): Promise<Registry> {
  api = await startApi(redis.url, {
    ...oidcSignInEnv(provider), PLATFORM_CONFIG: JSON.stringify({ skillRegistries: [git.url] }),
    NODE_EXTRA_CA_CERTS: git.caFile, PLATFORM_SKILL_REGISTRIES_DIR: registriesDir,
  });
  for (let i = 0; i < 150; i++) {
    const [state] = (await as(undefined, 'GET', '/api/skill-registries')).body.registries as Registry[];
    if (state!.state !== 'cloning') return state!;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`the registry was not updated:\n${api.output()}`);
}

beforeAll(async () => {
  git = await startGitHttpsServer();
  first = git.commit({
    'README.md': '# Team skills\n',
    'skills/summarise/SKILL.md': skill('summarise', 'Summarise a long text in three sentences.'),
    'skills/summarise/scripts/count.js': 'export const words = (text) => text.split(/\\s+/).length;\n',
    'skills/summarise/assets/tone.md': 'Plain and short.\n',
    'skills/broken/SKILL.md': skill('other-name', 'A skill whose name is not its folder.'),
  }, 'first skills');
  registry = skillRegistryId(git.url);
  registriesDir = mkdtempSync(join(tmpdir(), 'cairn-registries-'));
  // A foreign directory where the clone goes: it is cloned again.
  mkdirSync(join(registriesDir, registry));
  writeFileSync(join(registriesDir, registry, 'stray.txt'), 'not a clone');
  [redis, provider] = await Promise.all([startRedis(), startOidcProvider(threePeople)]);
  Object.assign(tokens, await tokensOf(provider));
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await provider?.stop();
  await redis?.stop();
  await git?.close();
  rmSync(registriesDir, { recursive: true, force: true });
});

describe('a skill registry over https', () => {
  it('is cloned in the background and listed with its commit and skill count, without sign-in', async () => {
    const state = await boot();
    expect(state).toMatchObject({ id: registry, url: git.url, state: 'ready', commit: first, skills: 2, lastFailure: null });
    expect(api.output()).toContain(`[skills] registry ${registry} at ${first.slice(0, 12)}: 2 skill(s)`);
    expect((await as(undefined, 'GET', '/api/skill-registries/skills')).status).toBe(401);
    const { skills } = (await as('ada', 'GET', `/api/skill-registries/skills?registry=${registry}`)).body;
    expect(skills).toEqual([
      expect.objectContaining({ registry, slug: 'broken', files: 1, problems: [expect.stringMatching(/name "other-name" differs from the folder "broken"/)] }),
      { registry, slug: 'summarise', name: 'summarise', description: 'Summarise a long text in three sentences.', files: 3, problems: [] },
    ]);
    expect((await as('ada', 'GET', '/api/skill-registries/skills?registry=nope')).body.error.code).toBe('registry_not_found');
  });

  it('copies a skill into a draft with cairn skill add; the draft validates; another organization gets 404', async () => {
    ada.org = (await as('ada', 'POST', '/api/orgs', { name: 'Acme' })).body.id;
    ada.agent = (await as('ada', 'POST', `/api/orgs/${ada.org}/agents`, { slug: 'desk' })).body.id;
    const added = await runCairnAsync(api.url, ['--token', tokens.ada!, 'skill', 'add', 'desk', '--env', 'main', `${registry}/summarise`]);
    expect(added.status, added.stderr).toBe(0);
    expect(added.stdout).toContain(`copied ${registry}/summarise (registry commit ${first.slice(0, 12)})`);
    expect(added.stdout).toContain('wrote skills/summarise/scripts/count.js');
    const files = (await as('ada', 'GET', '/api/agents/desk/environments/main/files')).body.files as { path: string; text: string }[];
    expect(files.map((f) => f.path).filter((p) => p.startsWith('skills/'))).toEqual([
      'skills/summarise/SKILL.md', 'skills/summarise/assets/tone.md', 'skills/summarise/scripts/count.js',
    ]);
    const validated = await runCairnAsync(api.url, ['--token', tokens.ada!, 'agent', 'validate', '--agent', 'desk', '--env', 'main']);
    expect(validated.status, validated.stdout).toBe(0);
    expect(validated.stdout).toContain('1 skill');
    const listed = await runCairnAsync(api.url, ['--token', tokens.ada!, 'skill', 'list']);
    expect(listed.stdout).toContain(`${registry}/summarise  Summarise a long text in three sentences.`);
    expect(listed.stdout).toMatch(/broken .*does not validate/);
    const missing = await as('ada', 'POST', '/api/agents/desk/environments/main/skills', { registry, skill: 'nothing' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain('its skills: broken, summarise');
    await as('bob', 'POST', '/api/orgs', { name: 'Bobco' });
    const foreign = await as('bob', 'POST', `/api/agents/${ada.agent}/environments/main/skills`, { registry, skill: 'summarise' });
    expect(foreign.status).toBe(404);
    for (const id of [ada.agent, ada.org, 'Acme']) expect(foreign.text).not.toContain(id);
  });

  it('is fast-forwarded on the next boot; a second copy deletes what the registry dropped', async () => {
    const second = git.commit({
      'skills/summarise/SKILL.md': skill('summarise', 'Summarise a long text in two sentences.'),
      'skills/summarise/assets/tone.md': null,
      'skills/translate/SKILL.md': skill('translate', 'Translate a text into English.'),
    }, 'second skills');
    await api.stop();
    const state = await boot();
    expect(state).toMatchObject({ state: 'ready', commit: second, skills: 3, lastFailure: null });
    ada.org = (await as('ada', 'POST', '/api/orgs', { name: 'Acme again' })).body.id;
    await as('ada', 'POST', `/api/orgs/${ada.org}/agents`, { slug: 'desk' });
    await as('ada', 'PUT', '/api/agents/desk/environments/main/files', {
      files: [{ path: 'skills/summarise/assets/tone.md', text: 'Plain and short.\n' }], replace: false,
    });
    const copied = await as('ada', 'POST', '/api/agents/desk/environments/main/skills', { registry, skill: 'summarise' });
    expect(copied.status, copied.text).toBe(200);
    expect(copied.body).toMatchObject({ registryCommit: second, deleted: ['skills/summarise/assets/tone.md'] });
  });

  it('with the server down, the next boot warns and serves the last clone', async () => {
    const served = (await as(undefined, 'GET', '/api/skill-registries')).body.registries[0].commit as string;
    await git.stop();
    await api.stop();
    const state = await boot();
    expect(state).toMatchObject({ state: 'failed', commit: served, skills: 3 });
    expect(state.lastFailure?.message).toMatch(/ECONNREFUSED|connect/i);
    expect(api.output()).toMatch(/\[skills\] registry \S+ \(https:\/\/127\.0\.0\.1:\d+\/skills\.git\) could not be updated: .*; serving its last clone at /);
    const { skills } = (await as('ada', 'GET', '/api/skill-registries/skills')).body;
    expect(skills.map((s: { slug: string }) => s.slug)).toEqual(['broken', 'summarise', 'translate']);
  });

  it('refuses an http:// registry at boot, naming the variable', async () => {
    await api.stop();
    const refused = await startApi(redis.url, {
      PLATFORM_CONFIG: JSON.stringify({ skillRegistries: ['http://127.0.0.1:9/skills.git'] }),
    }).then(() => 'started', (error: Error) => error.message);
    expect(refused).toContain('PLATFORM_CONFIG: skillRegistries[0] must be an https URL');
  });
});
