/**
 * The shared start-up of the process roles: a bad variable exits 2 naming it before any store is
 * opened, an unreachable store exits 1 with its line, a good boot opens real stores (SQLite and the
 * filesystem object store in a temporary directory), and a stop signal runs the stop once.
 */
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Exit, startRole, stopOnSignals } from './start-role.ts';
import { anyShape } from '../testing/any-shape.ts';

class Exited extends Error {
  constructor(readonly code: number) {
    super(`exit ${code}`);
  }
}
const exit: Exit = (code) => {
  throw new Exited(code);
};

function boot(env: Record<string, string>, role: 'dispatcher' | 'semantic-mcp' = 'dispatcher') {
  const printed: string[] = [];
  const errors: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'cairn-role-'));
  const started = startRole(role as 'dispatcher', {
    env: {
      NODE_ENV: 'development',
      DOCDB_URI: `sqlite:${join(dir, 'docdb.sqlite')}`,
      OBJSTORE_ENDPOINT: `file://${dir}/objects`,
      OBJSTORE_BUCKET: 'cairn',
      PLATFORM_SCRATCH_DIR: join(dir, 'scratch'),
      ...env,
    },
    dirs: { appDir: dir, tmpDir: dir },
    instanceId: 'host-1',
    print: (line) => printed.push(line),
    printError: (line) => errors.push(line),
    exit,
    // No queue store in these tests: the stores open without one, as semantic-mcp's do in all-in-one mode.
    storesEnv: (booted) => ({ ...booted, stores: { ...booted.stores, queueUrl: undefined } }),
  });
  return { started, printed, errors, dir };
}

describe('startRole', () => {
  it('exits 2 with a first line naming a malformed variable, never its value', async () => {
    const { started, errors } = boot({ DOCDB_URI: 'ftp://secret-value@host/x' });
    await expect(started).rejects.toMatchObject({ code: 2 });
    expect(errors[0].split('\n')[0]).toContain('DOCDB_URI');
    expect(errors.join('\n')).not.toContain('secret-value');
  });

  it('exits 1 when a store cannot be opened', async () => {
    const { started, errors } = boot({ DOCDB_URI: 'sqlite:/proc/no-such-dir/docdb.sqlite' });
    await expect(started).rejects.toMatchObject({ code: 1 });
    expect(errors).toHaveLength(1);
  });

  it('opens the stores with the role as lease owner', async () => {
    const { started } = boot({}, 'semantic-mcp');
    const role = await started;
    expect(role.owner).toBe('semantic-mcp@host-1');
    await anyShape(role.stores.docs.collection('probe')).insertOne({ _id: 'a' });
    expect(await role.stores.docs.collection('probe').findOne({ _id: 'a' })).toEqual({ _id: 'a' });
    await role.stores.close();
  });
});

describe('stopOnSignals', () => {
  it('runs stop once for SIGTERM then SIGINT, and exits 0 after it', async () => {
    const signals = new EventEmitter();
    let stops = 0;
    const codes: number[] = [];
    let done!: () => void;
    const exited = new Promise<void>((resolve) => {
      done = resolve;
    });
    stopOnSignals(
      signals,
      async () => {
        stops += 1;
      },
      ((code: number) => {
        codes.push(code);
        done();
      }) as Exit,
    );
    signals.emit('SIGTERM');
    signals.emit('SIGINT');
    await exited;
    expect({ stops, codes }).toEqual({ stops: 1, codes: [0] });
  });
});
