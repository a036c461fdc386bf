/**
 * dispatcher: consumes every queue (turns, triggers, environment operations, polls, evaluations) and runs the sweeps
 * (the data update sweep every 5 minutes). With an embedded queue store (PLATFORM_EMBEDDED_QUEUE=on) it first
 * takes the single-dispatcher lease and settles records whose jobs were lost before running anything. This
 * composition root reads the environment; the work is ./work-deps.ts (what it runs with) and ./work-loop.ts.
 *
 * Source: spec/platform-service.md § Processes, § Rules 3, § Single-dispatcher lease,
 * § Replacement, § Data update at boot.
 */
import { hostname, tmpdir } from 'node:os';
import { createPinoLogger } from '../../core/adapters/log/pino-logger.ts';
import { appDirectory } from '../../core/adapters/runtime/app-directory.ts';
import { systemClock } from '../../core/adapters/runtime/system.ts';
import { startRole, stopOnSignals } from '../../core/boot/start-role.ts';
import { startTelemetry } from '../telemetry/start.ts';
import { captureMessageContent } from '../telemetry/content-capture.ts';
import { openWorkDeps } from './work-deps.ts';
import { runDispatcherWork } from './work-loop.ts';

// OpenTelemetry first (nothing loaded unless OTEL_* variables ask for it; docs/decisions.md D25 § 1).
const telemetry = await startTelemetry(process.env, 'cairn-dispatcher');

const print = (line: string) => process.stdout.write(`${line}\n`);
const logger = createPinoLogger({ name: 'dispatcher' });
/** This process's start: a fallback for when the queue store cannot say when it started. */
const startedAt = systemClock.now();
const instanceId = process.env.PLATFORM_INSTANCE_ID ?? `${hostname()}-${process.pid}`;
const appDir = appDirectory(import.meta.url, process.execPath, process.env.CAIRN_APP_DIR);
const started = await startRole('dispatcher', {
  env: process.env,
  dirs: { appDir, tmpDir: tmpdir() },
  instanceId,
  print,
  printError: (line) => console.error(line),
  exit: (code) => process.exit(code),
});
// The work (./work-deps.ts, ./work-loop.ts) takes what this root read of the environment as settings.
const settings = {
  started,
  instanceId,
  appDir,
  startedAt,
  logger,
  print,
  // Each worker in its own namespaces gets this PATH; message content on spans only when
  // OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (D25).
  workerPath: process.env.PATH,
  captureMessageContent: captureMessageContent(process.env),
};
const work = runDispatcherWork(settings, await openWorkDeps(settings));

// A stop takes no more work, gives running turns a bounded grace, then ends them interrupted (./stop-work.ts); the
// lease (embedded mode) is kept until then and released after.
stopOnSignals(process, async () => {
  await work.stop();
  await telemetry.shutdown();
}, (code) => process.exit(code));
