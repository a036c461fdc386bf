/**
 * The Lease contract on createDocumentLease over the SQLite document store: the production lease of the
 * embedded mode (one SQLite file shared by the API, the dispatcher and semantic-mcp). The second
 * instance is a second connection to the same file, as another process would open it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocumentLease } from '../../lease/document-lease.ts';
import type { DocumentStore } from '../../ports/document-store.ts';
import { leaseContract } from '../../testing/lease.contract.ts';
import { systemClock } from '../runtime/system.ts';
import { openSqliteDocumentStore } from './sqlite-document-store.ts';

leaseContract('document lease over SQLite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-lease-'));
  const path = join(dir, 'docdb.sqlite');
  const opened: DocumentStore[] = [];
  const open = async () => {
    const store = await openSqliteDocumentStore({ path });
    opened.push(store);
    return createDocumentLease(store, systemClock);
  };
  return {
    lease: await open(),
    openAnother: open,
    cleanup: async () => {
      for (const store of opened) await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});
