/**
 * The skill-registry mirror (core/adapters/git/skill-registry-mirror.ts) against real git repositories served by
 * `git http-backend` on loopback (test/helpers/git-https-server.ts, plain http: the mirror runs in this process):
 * - a registry whose `skills` entry is a symbolic link to a folder of the host lists and reads nothing there, and
 *   says so; a fast-forward to skills with links (a file to a host file, a folder to the host folder, a folder back
 *   into the clone) reads only the regular files, naming each link;
 * - the read caps (entries walked, bytes read) leave files out and say so, the size known before reading;
 * - the clone's caps (bytes downloaded and written, entries) refuse a registry too large, leaving no clone.
 * Source: spec/platform-service.md § Rules 16.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSkillRegistryMirror } from '../../core/adapters/git/skill-registry-mirror.ts';
import { startGitHttpsServer, type GitHttpsServer } from '../helpers/git-https-server.ts';

const skill = (name: string) => `---\nname: ${name}\ndescription: Does ${name}.\n---\nBody.\n`;
const caps = { maxBytes: 16 * 1024 * 1024, maxEntries: 10_000 };
const SECRET = 'CAIRN_TEST_SECRET=hunter2';

let host: string;
let root: string;
const servers: GitHttpsServer[] = [];

async function server(): Promise<GitHttpsServer> {
  const git = await startGitHttpsServer('skills', { plain: true });
  servers.push(git);
  return git;
}

/** Every file read, as text, to show no byte of the host folder came back. */
const allText = (files: Map<string, Uint8Array>) => [...files.values()].map((b) => Buffer.from(b).toString()).join('');

beforeAll(() => {
  host = mkdtempSync(join(tmpdir(), 'cairn-host-folder-'));
  writeFileSync(join(host, 'credentials.env'), `${SECRET}\n`);
  mkdirSync(join(host, 'nested'));
  writeFileSync(join(host, 'nested', 'SKILL.md'), skill('nested'));
  root = mkdtempSync(join(tmpdir(), 'cairn-mirror-'));
});

afterAll(async () => {
  for (const git of servers) await git.close();
  rmSync(host, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

describe('the skill-registry mirror', () => {
  const linked = 'reads nothing of the host through a skills entry that is a link, nor through links in skills';
  it(linked, async () => {
    const git = await server();
    git.commit({ 'README.md': '# Skills\n' }, 'readme');
    symlinkSync(host, join(git.workDir, 'skills'));
    const linkCommit = git.commit({}, 'skills is a link to a host folder');
    const mirror = createSkillRegistryMirror(root);
    const registry = { id: 'linked', url: git.url };
    expect(await mirror.update(registry)).toBe(linkCommit);
    const first = await mirror.files(registry, 'skills/', caps);
    expect([...first.files.keys()]).toEqual([]);
    expect(first.leftOut).toEqual([expect.stringMatching(/^skills is a symbolic link: registries are read without/)]);

    rmSync(join(git.workDir, 'skills'));
    git.commit({ 'skills/ok/SKILL.md': skill('ok') }, 'a real skill');
    symlinkSync(join(host, 'credentials.env'), join(git.workDir, 'skills/ok/creds.env'));
    symlinkSync(host, join(git.workDir, 'skills/evil'));
    symlinkSync('../..', join(git.workDir, 'skills/ok/up'));
    const withLinks = git.commit({}, 'links among the skills');
    expect(await mirror.update(registry)).toBe(withLinks);
    const second = await mirror.files(registry, 'skills/', caps);
    expect([...second.files.keys()]).toEqual(['skills/ok/SKILL.md']);
    expect(second.leftOut.map((line) => line.split(' ')[0])).toEqual([
      'skills/evil', 'skills/ok/creds.env', 'skills/ok/up',
    ]);
    for (const read of [first, second]) {
      expect(allText(read.files)).not.toContain('hunter2');
      expect(read.leftOut.join('\n')).not.toContain('hunter2');
    }
  });

  it('leaves out what passes the read caps and says so', async () => {
    const git = await server();
    git.commit(Object.fromEntries(['a', 'b', 'c'].map((name) => [`skills/${name}/SKILL.md`, skill(name)])), 'three');
    const mirror = createSkillRegistryMirror(root);
    const registry = { id: 'capped-read', url: git.url };
    await mirror.update(registry);
    // Entries are folders and files: a, a/SKILL.md, b, b/SKILL.md; c is the fifth.
    const few = await mirror.files(registry, 'skills/', { ...caps, maxEntries: 4 });
    expect([...few.files.keys()]).toEqual(['skills/a/SKILL.md', 'skills/b/SKILL.md']);
    expect(few.leftOut).toEqual(['entries past the first 4 (a registry holds at most that many files and folders)']);
    const size = Buffer.byteLength(skill('a'));
    const small = await mirror.files(registry, 'skills/', { ...caps, maxBytes: size * 2 + 1 });
    expect([...small.files.keys()]).toEqual(['skills/a/SKILL.md', 'skills/b/SKILL.md']);
    expect(small.leftOut).toEqual([
      `skills/c/SKILL.md and the files after it: a registry's files are read up to ${size * 2 + 1} bytes in all`,
    ]);
  });

  it('refuses a clone past its caps, leaving no clone; a fast-forward past them too', async () => {
    const git = await server();
    git.commit({ 'skills/a/SKILL.md': skill('a') }, 'small');
    const mirror = createSkillRegistryMirror(root, { maxBytes: 256 * 1024, maxEntries: 200 });
    const registry = { id: 'capped-clone', url: git.url };
    await mirror.update(registry);
    expect(await mirror.current(registry)).toBeDefined();
    git.commit({ 'skills/a/blob.txt': randomBytes(400 * 1024).toString('base64') }, 'too large');
    const grown = await mirror.update(registry).then(() => new Error('updated'), (e: unknown) => e as Error);
    expect(grown.message).toMatch(/^The registry's clone passed 262144 bytes \(bytes (downloaded|written)\)/);
    expect(grown.message).toContain('Keep the repository under that');
    expect(await mirror.current(registry)).toBeUndefined();
    expect(existsSync(join(root, registry.id))).toBe(false);
    expect(existsSync(join(root, `${registry.id}.cloning`))).toBe(false);

    const many = await server();
    const files = Array.from({ length: 250 }, (_, i) => [`skills/s${i}/SKILL.md`, skill(`s${i}`)]);
    many.commit(Object.fromEntries(files), 'many');
    const crowded = { id: 'crowded', url: many.url };
    const refused = await mirror.update(crowded).then(() => new Error('updated'), (e: unknown) => e as Error);
    expect(refused.message).toMatch(/^The registry's clone passed 200 entries \(files and folders\)/);
    expect(await mirror.current(crowded)).toBeUndefined();
  });
});
