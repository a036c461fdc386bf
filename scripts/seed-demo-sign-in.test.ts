/**
 * Seeding under a sign-in that needs a token (PLATFORM_SIGN_IN=oidc): against a real HTTP server answering 401, the
 * demo seeding says once that it needs CAIRN_TOKEN and how to get one, without trying the 401 again; with
 * CAIRN_TOKEN set, its calls carry it as a bearer token.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, SeedRefusal } from './seed-demo.ts';

let server: Server;
let url: string;
const seen: IncomingHttpHeaders[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'cairn-seed-sign-in-'));

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push(request.headers);
    response.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
    response.end(JSON.stringify({ error: { code: 'unauthenticated', message: 'Sign in first.' } }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((done) => server.close(done));
  rmSync(dataDir, { recursive: true, force: true });
});
afterEach(() => { delete process.env.CAIRN_TOKEN; seen.length = 0; });

async function seedAgainst401() {
  const lines: string[] = [];
  let waits = 0;
  const error = await seedDemo({
    url, dataDir, root: resolve(import.meta.dirname, '..'), log: (l) => lines.push(l), waitUntilUp: async () => { waits += 1; },
  }).then(() => undefined, (e: Error) => e);
  return { error, lines, waits };
}

describe('demo seeding under a sign-in that needs a token', () => {
  it('says once that seeding needs CAIRN_TOKEN and how to get one, and does not try again', async () => {
    const { error, lines, waits } = await seedAgainst401();
    expect(error).toBeInstanceOf(SeedRefusal);
    expect(error?.message).toMatch(/needs an access token.*CAIRN_TOKEN=/s);
    expect(error?.message).toMatch(/PLATFORM_SIGN_IN/);
    expect(waits).toBe(0);
    expect(lines.filter((l) => l.includes('trying again'))).toEqual([]);
    expect(seen).toHaveLength(1);
  });

  it('sends CAIRN_TOKEN as a bearer token, and says it was refused', async () => {
    process.env.CAIRN_TOKEN = 'eyJ.test.token';
    const { error } = await seedAgainst401();
    expect(seen.map((h) => h.authorization)).toEqual(['Bearer eyJ.test.token']);
    expect(error?.message).toMatch(/CAIRN_TOKEN was refused/);
    expect(error?.message).not.toContain('eyJ.test.token');
  });
});
