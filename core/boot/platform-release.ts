/**
 * The data this release stores: every collection with the schemaVersion range it reads and writes,
 * and its data updates (none yet: every collection is at its first version).
 *
 * Source: spec/platform-service.md § Data update at boot, § Versioning.
 */
import { leaseCollection } from '../lease/document-lease.ts';
import {
  collections as semanticCollections,
  projectSchemaVersion,
  semanticSchemaVersion,
} from '../semantic/records.ts';
import { type ProjectUpdateWorld, semanticProjectOrgUpdate } from './semantic-project-update.ts';
import { CREDENTIAL_SECRETS_COLLECTION } from '../adapters/secrets/db-secret-store.ts';
import { orgCollections, orgSchemaVersion } from '../org/model.ts';
import { agentCollections, agentSchemaVersion } from '../agent/hosting-model.ts';
import { connectionCollections, connectionSchemaVersion } from '../connection/model.ts';
import { deploymentCollections, deploymentSchemaVersion } from '../deployment/model.ts';
import { sessionCollections, sessionRecordSchemaVersion, sessionSchemaVersion } from '../session/model.ts';
import { chatOwnerUpdate } from './chat-owner-update.ts';
import { pollStatesCollection } from '../trigger/poll-sweep.ts';
import { callbackAddressesCollection } from '../trigger/callback-addresses.ts';
import { aguiThreadsCollection } from '../connection/agui-threads.ts';
import { sessionKeyClaimsCollection } from '../session/session-key-claims.ts';
import { FAILED_JOBS_COLLECTION } from '../jobs/failed-jobs.ts';
import { QUARANTINE_COLLECTION, type ReleaseData } from '../data-update/index.ts';
import { evaluationCollections, evaluationSchemaVersion } from '../evaluation/model.ts';
import { designCollections, designSchemaVersion } from '../design/design-runtime.ts';
import { collectionCollections, collectionSchemaVersion } from '../collection/records.ts';
import { DECISION_LINKS_COLLECTION } from '../session/decision-links.ts';

/**
 * The release's collections and data updates.
 * @param world - the stores the updates read beyond the documents they rewrite (the default organization of
 *   semantic_projects 1→2, the AG-UI threads of sessions 1→2); omit it where updates are only listed
 */
export function platformRelease(world?: ProjectUpdateWorld): ReleaseData {
  const first = { baseline: 1, current: 1 };
  const names = [
    ...Object.values(semanticCollections),
    leaseCollection,
    CREDENTIAL_SECRETS_COLLECTION,
    pollStatesCollection,
    callbackAddressesCollection,
    aguiThreadsCollection,
    sessionKeyClaimsCollection,
    FAILED_JOBS_COLLECTION,
    QUARANTINE_COLLECTION,
    DECISION_LINKS_COLLECTION,
  ];
  const collections = Object.fromEntries(names.map((name) => [name, first]));
  for (const name of Object.values(semanticCollections)) {
    collections[name] = { baseline: 1, current: semanticSchemaVersion };
  }
  collections[semanticCollections.projects] = { baseline: 1, current: projectSchemaVersion };
  for (const name of Object.values(orgCollections)) collections[name] = { baseline: 1, current: orgSchemaVersion };
  for (const name of Object.values(agentCollections)) collections[name] = { baseline: 1, current: agentSchemaVersion };
  for (const name of Object.values(connectionCollections)) {
    collections[name] = { baseline: 1, current: connectionSchemaVersion };
  }
  for (const name of Object.values(deploymentCollections)) {
    collections[name] = { baseline: 1, current: deploymentSchemaVersion };
  }
  for (const name of Object.values(sessionCollections)) {
    collections[name] = { baseline: 1, current: sessionSchemaVersion };
  }
  collections[sessionCollections.sessions] = { baseline: 1, current: sessionRecordSchemaVersion };
  for (const name of Object.values(designCollections)) {
    collections[name] = { baseline: 1, current: designSchemaVersion };
  }
  for (const name of Object.values(evaluationCollections)) {
    collections[name] = { baseline: 1, current: evaluationSchemaVersion };
  }
  for (const name of Object.values(collectionCollections)) {
    collections[name] = { baseline: 1, current: collectionSchemaVersion };
  }
  return { collections, updates: [semanticProjectOrgUpdate(world), chatOwnerUpdate(world)] };
}
