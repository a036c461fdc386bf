/**
 * The command semantic-mcp spawns for its query processes: the same executable from sources and
 * compiled, with the flag, and an environment that carries no credential or store address.
 */
import { describe, expect, it } from 'vitest';
import { isQueryProcess, queryProcessCommand, queryProcessFlag } from './query-process-command.ts';

const env = { PATH: '/usr/bin', BUN_TMPDIR: '/var/lib/cairn/tmp', DOCDB_URL: 'mongodb://user:secret@db/cairn', QUEUE_URL: 'redis://:secret@q', AWS_SECRET_ACCESS_KEY: 'secret', CAIRN_OIDC_CLIENT_SECRET: 'secret', HOME: '/root' };

describe('query process command', () => {
  it('from sources: the runtime, its flags and the script, then the flag', () => {
    const command = queryProcessCommand('/opt/bun', ['/opt/bun', '/app/bins/semantic-mcp/main.ts'], ['--smol'], env);
    expect(command).toMatchObject({ command: '/opt/bun', args: ['--smol', '/app/bins/semantic-mcp/main.ts', queryProcessFlag] });
  });

  it('compiled: the executable itself with the flag only (its /$bunfs entry is not passed on)', () => {
    const command = queryProcessCommand('/app/dist/semantic-mcp', ['bun', '/$bunfs/root/semantic-mcp'], [], env);
    expect(command).toMatchObject({ command: '/app/dist/semantic-mcp', args: [queryProcessFlag] });
  });

  it('passes paths only, never a secret or a store address', () => {
    const { env: childEnv } = queryProcessCommand('/opt/bun', ['/opt/bun', 'main.ts'], [], env);
    expect(childEnv).toEqual({ PATH: '/usr/bin', BUN_TMPDIR: '/var/lib/cairn/tmp' });
    expect(JSON.stringify(childEnv)).not.toMatch(/secret/);
  });

  it('recognises the flag after the script only', () => {
    expect(isQueryProcess(['/opt/bun', 'main.ts', queryProcessFlag])).toBe(true);
    expect(isQueryProcess(['/app/dist/semantic-mcp', '/$bunfs/root/semantic-mcp', queryProcessFlag])).toBe(true);
    expect(isQueryProcess(['/opt/bun', 'main.ts'])).toBe(false);
  });
});
