import { describe, expect, it } from 'vitest';
import { isPlatformError } from '../../ports/platform-error.ts';
import { openDocumentStore } from '../stores/open-stores.ts';
import { databaseInUri, openMongoDocumentStore, redactMongoUri } from './index.ts';
import { mongoFailure, scrubCredentials } from './mongo-errors.ts';
import { runBunJson } from '../../../test/helpers/run-process.ts';

// No MongoDB server can run here: the contract runs in test/integration when TEST_DOCDB_URI is set.
// These cases show the module loads and fails clearly on Node and on Bun.

const unreachable = 'mongodb://cairn-user:s3cr3t-pw@127.0.0.1:1/x?serverSelectionTimeoutMS=300';

/** Opens `unreachable` under Bun and returns what the rejection carried. */
function openUnderBun(): Promise<Record<string, unknown>> {
  const script = `
    import { openMongoDocumentStore } from ` + `'./core/adapters/mongo/index.ts';
    const error = await ` + `openMongoDocumentStore({ uri: ${JSON.stringify(unreachable)} ` +
    `}).then(() => undefined, (e) => e);
    console.log(JSON.stringify({ ` + `engine: typeof Bun === 'undefined' ? 'node' : 'bun', name: ` +
    `error?.name, code: error?.code, message: error?.message }));
  `;
  return runBunJson(['-e', script]);
}

describe('openMongoDocumentStore without a server', () => {
  it('fails on Node with store_unreachable naming the host, never the user name or password', async () => {
    const error = await openMongoDocumentStore({ uri: unreachable }).then(() => undefined, (e: unknown) => e);
    expect(isPlatformError(error, 'store_unreachable')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('DOCDB_URI');
    expect(message).toContain('127.0.0.1:1');
    expect(message).not.toContain('s3cr3t-pw');
    expect(message).not.toContain('cairn-user');
    expect((error as Error).cause).toBeUndefined();
  });

  it('is what openDocumentStore opens for mongodb settings', async () => {
    const error = await openDocumentStore({ kind: 'mongodb', uri: unreachable }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isPlatformError(error, 'store_unreachable')).toBe(true);
  });

  it('fails the same way on Bun', async () => {
    const result = await openUnderBun();
    expect(result).toMatchObject({ engine: 'bun', name: 'PlatformError', code: 'store_unreachable' });
    expect(result.message).toContain('127.0.0.1:1');
    expect(result.message).not.toContain('s3cr3t-pw');
  }, 30_000);

  it('refuses a connection string the driver cannot parse with invalid_config, without its password', async () => {
    const error = await openMongoDocumentStore({ uri: 'mongodb://cairn-user:s3cr3t-pw@host:notaport/x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isPlatformError(error, 'invalid_config')).toBe(true);
    expect((error as Error).message).not.toContain('s3cr3t-pw');
  });
});

describe('MongoDB connection-string helpers', () => {
  it('redacts user info and options', () => {
    expect(redactMongoUri('mongodb://u:p@db1:27017,db2:27017/cairn?replicaSet=rs0')).toBe(
      'mongodb://db1:27017,db2:27017/cairn',
    );
    expect(redactMongoUri('mongodb+srv://u:p@cluster0.example.net/?retryWrites=true')).toBe(
      'mongodb+srv://cluster0.example.net/',
    );
    expect(redactMongoUri('nonsense')).toBe('the DOCDB_URI connection string');
  });

  it('reads the database of the path', () => {
    expect(databaseInUri('mongodb://u:p@h:1/cairn_prod?authSource=admin')).toBe('cairn_prod');
    expect(databaseInUri('mongodb://h1:1,h2:2/?replicaSet=rs')).toBeUndefined();
    expect(databaseInUri('mongodb://h1')).toBeUndefined();
  });

  it('scrubs the user name and password, raw and decoded, from driver text', () => {
    const uri = 'mongodb://ops%40corp:p%2Fss%3Aword@h/x';
    expect(scrubCredentials('auth failed for ops@corp with p/ss:word', uri)).toBe('auth failed for *** with ***');
  });
});

describe('mongoFailure', () => {
  const codeOf = (error: unknown) => (isPlatformError(error) ? error.code : 'passed through');
  it('maps server codes to the port codes by operation kind', () => {
    expect(codeOf(mongoFailure({ code: 11000, message: 'E11000' }, 'items', 'write'))).toBe('duplicate_key');
    expect(codeOf(mongoFailure({ code: 11000, message: 'E11000' }, 'items', 'index'))).toBe('duplicate_key');
    expect(codeOf(mongoFailure({ code: 2, message: 'unknown operator: $almost' }, 'items', 'read'))).toBe(
      'invalid_filter',
    );
    expect(codeOf(mongoFailure({ code: 14, message: 'Cannot apply $inc' }, 'items', 'write'))).toBe('invalid_update');
    expect(codeOf(mongoFailure({ code: 85, message: 'conflict' }, 'items', 'index'))).toBe('index_conflict');
    expect(codeOf(mongoFailure({ code: 67, message: 'bad ttl' }, 'items', 'index'))).toBe('invalid_index');
    expect(codeOf(mongoFailure(Object.assign(new Error('x'), { name: 'MongoNetworkError' }), 'items', 'read'))).toBe(
      'store_unreachable',
    );
    expect(codeOf(mongoFailure({ code: 13, message: 'unauthorized' }, 'items', 'read'))).toBe('passed through');
  });
});
