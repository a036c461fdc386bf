import { documentStoreContract } from './document-store.contract.ts';
import { createMemoryDocumentStore } from './memory-document-store.ts';

documentStoreContract('memory fake', async () => {
  const store = createMemoryDocumentStore();
  // One in-memory store is its own "other instance": both views share the same collections.
  return { store, openAnother: async () => store, cleanup: async () => {} };
});
