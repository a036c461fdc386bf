/**
 * Schedule triggers: every dispatcher sweeps every 15 s; a schedule trigger of an environment's published build
 * whose cron expression (croner, in the trigger's time zone, UTC by default) had a run in the last two minutes, and
 * after the build was published, fires once for that run. The claim of `<environment>:<trigger>` at the run's time
 * makes every run fire once however many dispatchers sweep, and a sweep that came late still fires it; the claim
 * holds the session to open, so a claim whose dispatcher stopped before opening it is opened by a later sweep.
 *
 * Source: docs/agent-format.md § Triggers (schedule: cron, timezone); spec/platform-service.md § Processes
 * (the dispatcher runs trigger queues); docs/decisions.md D8 § Triggers (schedule through croner, in the trigger's time
 * zone).
 */
import { Cron } from 'croner';
import { agentCollections, type EnvironmentRecord } from '../agent/hosting-model.ts';
import { fireOnce, type Firing, type FiringTarget } from '../session/firings.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import type { PublishedEnvironmentRecord } from '../session/published-environment.ts';

/** How often a dispatcher sweeps schedules (ms); a schedule fires at most once per sweep (its latest due run). */
export const SCHEDULE_SWEEP_INTERVAL_MS = 15_000;
/** How far back a sweep looks for a run it has not fired (ms). */
const lookBackMs = 120_000;

/** The latest run of `cron` in `timezone` at or before `now` and after `since`, or undefined. */
export function dueRun(cron: string, timezone: string | undefined, since: Date, now: Date): Date | undefined {
  const [previous] = new Cron(cron, { timezone: timezone ?? 'UTC', paused: true }).previousRuns(
    1,
    new Date(now.getTime() + 1),
  );
  return previous && previous > since && previous <= now ? previous : undefined;
}

/** What the schedule sweep needs. */
export type ScheduleSweepDeps = SessionStoreDeps & {
  enqueueTurn(turnId: string): Promise<void>;
  builds: ReturnType<typeof publishedWorkflows>;
  log(line: string): void;
};

/**
 * Fires the schedule runs that are due; returns the ids of the sessions opened. Claim and open are one recoverable
 * step: the claim records the session to open (under a firing key of environment, trigger and run), so a claim whose
 * dispatcher stopped before opening is opened by the next sweep (or the resume sweep), and never twice. An
 * environment whose build cannot be read is skipped with one line naming it and why; the others still fire.
 * A trigger whose cron cannot be read (it passed the validator, so this should not happen) is skipped, logged.
 */
export async function fireDueSchedules(deps: ScheduleSweepDeps): Promise<string[]> {
  const now = deps.clock.now();
  const opened: string[] = [];
  const envs = await deps.docs.collection<EnvironmentRecord>(agentCollections.environments).find({
    published: { $ne: null },
  });
  for (const env of envs) {
    if (!env.published) continue;
    try {
      opened.push(...await fireEnvironmentSchedules(deps, env as PublishedEnvironmentRecord, now));
    } catch (error) {
      const reason = (error as Error).message;
      deps.log(`[triggers] schedules of environment "${env.name}" of agent ${env.agentId} were not swept: ${reason}`);
    }
  }
  return opened;
}

async function fireEnvironmentSchedules(
  deps: ScheduleSweepDeps,
  env: PublishedEnvironmentRecord,
  now: Date,
): Promise<string[]> {
  const opened: string[] = [];
  const agent = await deps.builds.agentOf(env.published.buildId);
  const since = new Date(Math.max(now.getTime() - lookBackMs, new Date(env.published.publishedAt).getTime()));
  for (
    const trigger of Object.values(agent.workflows).flatMap((w) => w.triggers).filter((t) => t.type === 'schedule')
  ) {
    let run: Date | undefined;
    try {
      run = dueRun(String(trigger.fields.cron), trigger.fields.timezone as string | undefined, since, now);
    } catch (error) {
      deps.log(`[triggers] schedule ${trigger.id} of ${trigger.workflow} cannot be read: ${(error as Error).message}`);
    }
    if (!run) continue;
    const at = run.toISOString();
    const target: FiringTarget = {
      orgId: env.orgId,
      agentId: env.agentId,
      environment: env.name,
      buildId: env.published.buildId,
      commitId: env.published.commitId,
      workflow: trigger.workflow,
      state: trigger.state,
      trigger: { id: trigger.id, type: 'schedule' },
    };
    const firing: Firing & { firingKey: string } = {
      payload: { scheduledAt: at, cron: trigger.fields.cron, timezone: trigger.fields.timezone ?? 'UTC' },
      message: `The schedule ${trigger.id} fired for ${at}.`,
      firingKey: JSON.stringify(['schedule', env._id, trigger.id, at]),
    };
    const fired = await fireOnce(deps, { scope: `schedule:${env._id}:${trigger.id}`, firingId: at, target, firing });
    if (fired?.outcome === 'opened') opened.push(fired.session._id);
  }
  return opened;
}
