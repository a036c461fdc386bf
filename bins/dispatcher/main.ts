/**
 * dispatcher: consumes every queue (none are defined yet in this release) and runs the sweeps. With an
 * embedded queue store (PLATFORM_EMBEDDED_QUEUE=on) it first takes the single-dispatcher lease, and
 * settles records whose jobs were lost before running anything.
 *
 * Source: ../shared/spec/platform-service.md § Processes, § Rules 3, § Single-dispatcher lease, § Replacement.
 */
import { hostname } from 'node:os';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { systemClock } from '../../core/adapters/runtime/system.ts';
import { openDocumentStore } from '../../core/adapters/stores/open-stores.ts';
import { flag, optional } from '../../core/config/env-values.ts';
import { parseStoreSettings } from '../../core/config/store-settings.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { runDispatcherLease } from '../../core/lease/dispatcher-lease.ts';
import { settleLostJobs } from './settle-lost-jobs.ts';

const logger = createPinoLogger({ name: 'dispatcher' });
let settings;
try {
  settings = {
    stores: parseStoreSettings(process.env),
    embeddedQueue: flag(process.env, 'PLATFORM_EMBEDDED_QUEUE', false),
    owner: optional(process.env, 'PLATFORM_INSTANCE_ID') ?? `${hostname()}-${process.pid}`,
  };
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const docs = await openDocumentStore(settings.stores.documents);
let stopRequested = false;
let wake: (() => void) | undefined;
const sleep = (ms: number) => new Promise<boolean>((resolve) => {
  const timer = setTimeout(() => resolve(true), ms);
  wake = () => { clearTimeout(timer); resolve(false); };
});
const log = (line: string) => logger.info({}, line);

async function startWork(): Promise<void> {
  for (const line of await settleLostJobs({ docs, clock: systemClock })) log(line);
  log('dispatcher running: no queues are defined in this release yet');
}

const finished = settings.embeddedQueue
  ? runDispatcherLease({ lease: createDocumentLease(docs, systemClock), owner: settings.owner, sleep, log, onAcquired: startWork, onLost: async () => {}, stopping: () => stopRequested })
  : startWork().then(() => new Promise<void>((resolve) => { wake = resolve; }));

async function stop(): Promise<void> {
  stopRequested = true;
  wake?.();
  await finished;
  await docs.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
