/**
 * What bins/dispatcher/main.ts gives the dispatcher's work (./work-deps.ts, ./work-loop.ts): the booted role and
 * what it read of the process's environment, so that only main.ts reads it.
 *
 * Source: spec/platform-service.md § Processes; docs/architecture.md § Import rules (only the main.ts of a bin
 * reads the environment).
 */
import type { StartedRole } from '../../core/boot/start-role.ts';
import type { DispatchingEnv } from '../../core/config/platform-env-model.ts';
import type { Logger } from '../../core/ports/logger.ts';

/** What bins/dispatcher/main.ts gives the work: the booted role and what it read of the process's environment. */
export interface DispatcherSettings {
  /** The booted role: environment, config, stores and lease owner (core/boot/start-role.ts). */
  started: StartedRole<DispatchingEnv, undefined>;
  /** PLATFORM_INSTANCE_ID, or host-pid. */
  instanceId: string;
  /** The app directory (where the worker program is found when not compiled). */
  appDir: string;
  /** This process's start: a fallback for when the queue store cannot say when it started. */
  startedAt: Date;
  /** The PATH workers are started with. */
  workerPath: string | undefined;
  /** Message content on spans (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true; docs/decisions.md D25). */
  captureMessageContent: boolean;
  logger: Logger;
  /** Writes one line to stdout. */
  print(line: string): void;
}
