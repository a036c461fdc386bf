import { documentStoreContract } from './document-store.contract.ts';
import { createMemoryDocumentData, createMemoryDocumentStore } from './memory-document-store.ts';

documentStoreContract('memory fake', async () => {
  const data = createMemoryDocumentData();
  return {
    store: createMemoryDocumentStore({ data }),
    openAnother: async () => createMemoryDocumentStore({ data }),
    cleanup: async () => {},
  };
});
