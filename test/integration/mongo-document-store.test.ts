/**
 * The DocumentStore contract against MongoDB, run when TEST_DOCDB_URI names a server (no MongoDB can
 * run on the build machine). Each case gets its own database, dropped afterwards.
 */
import { MongoClient } from 'mongodb';
import { it, vi } from 'vitest';
import { openMongoDocumentStore } from '../../core/adapters/mongo/index.ts';
import type { DocumentStore } from '../../core/ports/document-store.ts';
import { documentStoreContract } from '../../core/testing/document-store.contract.ts';
import { skipBecause } from '../../core/testing/skip.ts';

const uri = process.env.TEST_DOCDB_URI || undefined;
let databases = 0;

it('runs the MongoDB contract when TEST_DOCDB_URI names a server (connects and closes)', async (ctx) => {
  if (uri === undefined) {
    return skipBecause(ctx, 'TEST_DOCDB_URI is not set: no MongoDB server runs on the build machine, so the MongoDB adapter\'s query and update translation is not tested here; run TEST_DOCDB_URI=mongodb://… node_modules/.bin/vitest run test/integration/mongo-document-store.test.ts');
  }
  const store = await openMongoDocumentStore({ uri: uri as string, dbName: `cairn_smoke_${process.pid}` });
  await store.collection('smoke').countDocuments({});
  await store.close();
});

if (uri !== undefined) {
  // MongoDB's TTL monitor runs every ~60 s: the TTL case polls for up to 120 s.
  vi.setConfig({ testTimeout: 180_000 });
  documentStoreContract(
    'mongodb',
    async () => {
      databases += 1;
      const dbName = `cairn_contract_${process.pid}_${databases}`;
      const opened: DocumentStore[] = [await openMongoDocumentStore({ uri, dbName })];
      return {
        store: opened[0],
        openAnother: async () => {
          opened.push(await openMongoDocumentStore({ uri, dbName }));
          return opened[opened.length - 1];
        },
        cleanup: async () => {
          for (const store of opened) await store.close();
          const admin = new MongoClient(uri);
          await admin.db(dbName).dropDatabase();
          await admin.close();
        },
      };
    },
    { ttlWaitMs: 120_000 },
  );
}
