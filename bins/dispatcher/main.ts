/**
 * dispatcher: consumes every queue (none are defined yet in this release) and runs the sweeps (the data
 * update sweep every 5 minutes). With an embedded queue store (PLATFORM_EMBEDDED_QUEUE=on) it first
 * takes the single-dispatcher lease and settles records whose jobs were lost before running anything.
 *
 * Source: ../shared/spec/platform-service.md § Processes, § Rules 3, § Single-dispatcher lease,
 * § Replacement, § Data update at boot.
 */
import { hostname, tmpdir } from 'node:os';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { systemClock } from '../../core/adapters/runtime/system.ts';
import { platformRelease } from '../../core/boot/platform-release.ts';
import { startRole, stopOnSignals } from '../../core/boot/start-role.ts';
import { DATA_UPDATE_SWEEP_INTERVAL_MS, runDataUpdateSweep } from '../../core/data-update/index.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import { runDispatcherLease } from '../../core/lease/dispatcher-lease.ts';
import { settleLostJobs } from './settle-lost-jobs.ts';

const print = (line: string) => process.stdout.write(`${line}\n`);
const logger = createPinoLogger({ name: 'dispatcher' });
const instanceId = process.env.PLATFORM_INSTANCE_ID ?? `${hostname()}-${process.pid}`;
const { boot, stores, owner: leaseOwner } = await startRole('dispatcher', {
  env: process.env,
  dirs: { appDir: appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR), tmpDir: tmpdir() },
  instanceId,
  print,
  printError: (line) => console.error(line),
  exit: (code) => process.exit(code),
});
const { env } = boot;
const { docs, lease } = stores;
let stopRequested = false;
const wakers = new Set<() => void>();
const sleep = (ms: number) => new Promise<boolean>((resolve) => {
  const wake = () => { clearTimeout(timer); wakers.delete(wake); resolve(false); };
  const timer = setTimeout(() => { wakers.delete(wake); resolve(true); }, ms);
  wakers.add(wake);
});
const log = (line: string) => logger.info({}, line);
let sweeping = false;

async function sweepLoop(): Promise<void> {
  while (sweeping && (await sleep(DATA_UPDATE_SWEEP_INTERVAL_MS))) {
    await runDataUpdateSweep({ docs, lease, clock: systemClock, logger: print, sleep: async (ms) => { await sleep(ms); }, owner: leaseOwner }, platformRelease())
      .catch((error: Error) => logger.error({ err: error.message }, 'data update sweep failed'));
  }
}

async function startWork(): Promise<void> {
  for (const line of await settleLostJobs({ docs, clock: systemClock })) log(line);
  log('dispatcher running: no queues are defined in this release yet; data update sweep every 5 minutes');
  sweeping = true;
  void sweepLoop();
}

const finished = env.embeddedQueue.enabled
  ? runDispatcherLease({ lease: createDocumentLease(docs, systemClock), owner: instanceId, clock: systemClock, sleep, log, onAcquired: startWork, onLost: async () => { sweeping = false; }, stopping: () => stopRequested })
  : startWork().then(() => new Promise<void>((resolve) => { wakers.add(resolve); }));

stopOnSignals(process, async () => {
  stopRequested = true;
  sweeping = false;
  for (const wake of [...wakers]) wake();
  await finished;
  await stores.close();
}, (code) => process.exit(code));
