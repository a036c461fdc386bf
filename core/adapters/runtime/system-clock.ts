/**
 * The system clock: the Clock port on the runtime's own clock. A module of its own with no imports
 * but the port, so the in-memory fakes of core/testing can use it (they may import only pure adapter
 * modules).
 *
 * Source: docs/architecture.md § Ports and adapters (Clock).
 */
import type { Clock } from '../../ports/clock.ts';

/** The system clock: `now()` is the current time. */
export const systemClock: Clock = { now: () => new Date() };
