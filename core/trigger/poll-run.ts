/**
 * One poll, run by whichever dispatcher claimed its job from the `polls` queue: the poll claims its slot once, calls
 * the trigger's tool with its arguments in a call worker (./poll-service-call.ts), and each new item opens a session
 * of the workflow at the state declaring the trigger, the item in the `trigger` variable. An item fires once: its id
 * is claimed in the scope of environment, workflow and trigger (core/session/firings.ts `claimDelivery`).
 *
 * The first poll of a newly deployed trigger (or of a trigger whose collection, tool or arguments changed) takes a
 * baseline: it records the items it sees and fires none, so a publish never floods sessions from a backlog. A failed
 * poll is logged once per trigger (until a poll succeeds again) with the service's reason, and tried again at the next
 * due slot.
 *
 * Source: spec/platform-service.md § Rules 4, 6 (each poll runs in a call worker), § Replacement of a container (an
 * item a poll already read and not yet fired is lost); docs/agent-format.md § Triggers; docs/decisions.md D8.
 */
import { isPlatformError } from '../ports/platform-error.ts';
import { claimDelivery, fireOnce } from '../session/firings.ts';
import type { SessionStoreDeps } from '../session/session-store.ts';
import { canonicalJson } from './canonical-json.ts';
import { runServiceCall, type ServiceCallDeps } from './poll-service-call.ts';
import { type PollJob, pollKey, type PollStateRecord, pollStatesCollection } from './poll-sweep.ts';
import type { publishedWorkflows } from '../session/build-workflows.ts';
import { publishedTrigger } from '../session/published-environment.ts';

/** What a poll needs: the session store, the turn queue, the builds, a call worker and a log. */
export type PollRunDeps = SessionStoreDeps & ServiceCallDeps & {
  enqueueTurn(turnId: string): Promise<void>;
  builds: ReturnType<typeof publishedWorkflows>;
};

/** How a poll ended: `skipped` (slot already polled, trigger gone), `baseline` (items recorded), `fired`, `failed`. */
export type PollOutcome = { ended: 'skipped' } | { ended: 'baseline'; items: number } | {
  ended: 'fired';
  sessions: string[];
} | { ended: 'failed'; reason: string };

/** The claim scope of a polling trigger's items. */
export const pollItemScope = (environmentId: string, workflow: string, trigger: string) =>
  `poll:${environmentId}:${workflow}:${trigger}`;

/** Runs one poll job. Never throws for a service's failure (that is logged and recorded); store errors do throw. */
export async function runPoll(deps: PollRunDeps, job: PollJob): Promise<PollOutcome> {
  const published = await publishedTrigger(deps, job, 'polling');
  if (!published) return { ended: 'skipped' };
  const { env, trigger } = published;
  const key = pollKey(env._id, job.workflow, job.trigger);
  const before = await deps.docs.collection<PollStateRecord>(pollStatesCollection).findOne({ _id: key });
  if (!(await claimSlot(deps, key, job))) return { ended: 'skipped' };
  const poll: Poll = {
    deps,
    job,
    published,
    key,
    before,
    call: {
      collection: String(trigger.fields.collection),
      tool: String(trigger.fields.tool),
      input: (trigger.fields.arguments as Record<string, unknown> | undefined) ?? {},
    },
    name: `polling trigger ${job.trigger} of ${job.workflow} in ${job.agentId}/${job.environment}`,
  };
  const items = await pollItems(poll);
  if (!Array.isArray(items)) return items;
  const scope = pollItemScope(env._id, job.workflow, job.trigger);
  const fingerprint = canonicalJson(poll.call);
  if (before?.baseline !== fingerprint) return recordBaseline(poll, { scope, fingerprint }, items);
  if (before?.failure !== undefined) await pollStates(poll).updateOne({ _id: key }, { $unset: { failure: true } });
  return { ended: 'fired', sessions: await fireItems(poll, scope, items) };
}

/** One poll under way: its job, the published trigger, its state's key and state before, the call, its log name. */
interface Poll {
  deps: PollRunDeps;
  job: PollJob;
  published: NonNullable<Awaited<ReturnType<typeof publishedTrigger>>>;
  key: string;
  before: PollStateRecord | null;
  call: { collection: string; tool: string; input: Record<string, unknown> };
  name: string;
}

/** An item a poll read: its id (the firing's) and the item itself. */
type PolledItem = { id: string; item: unknown };

/** The poll states' collection. */
function pollStates(poll: Poll) {
  return poll.deps.docs.collection<PollStateRecord>(pollStatesCollection);
}

/**
 * Calls the trigger's tool in a call worker: its items, or the `failed` outcome (logged once per trigger until a poll
 * succeeds again, and recorded); a success after a failure is logged.
 */
async function pollItems(poll: Poll): Promise<PolledItem[] | PollOutcome> {
  const { deps, job, published: { env }, key, before, call, name } = poll;
  let items: PolledItem[];
  try {
    items = ((await runServiceCall(deps, {
      task: 'poll',
      subject: `call poll ${job.trigger}`,
      call,
      caller: { orgId: env.orgId, agentId: job.agentId },
    })) as {
      items: PolledItem[];
    }).items;
  } catch (error) {
    const reason = isPlatformError(error) ? error.message : 'the poll failed unexpectedly';
    if (before?.failure === undefined) {
      deps.log(
        `[triggers] ${name}: the poll of ${call.collection}.${call.tool} failed (${reason}); trying again at the ` +
          `next due slot`,
      );
    }
    await pollStates(poll).updateOne({ _id: key }, { $set: { failure: reason } });
    return { ended: 'failed', reason };
  }
  if (before?.failure !== undefined) {
    deps.log(`[triggers] ${name}: polls of ${call.collection}.${call.tool} succeed again`);
  }
  return items;
}

/** The first poll of a call (`fingerprint`): claims every item as already seen and fires none. */
async function recordBaseline(
  poll: Poll,
  { scope, fingerprint }: { scope: string; fingerprint: string },
  items: PolledItem[],
): Promise<PollOutcome> {
  for (const { id } of items) await claimDelivery(poll.deps, scope, id);
  await pollStates(poll).updateOne({ _id: poll.key }, { $set: { baseline: fingerprint }, $unset: { failure: true } });
  poll.deps.log(
    `[triggers] ${poll.name}: first poll recorded ${items.length} item(s) as already seen; new items from now on fire`,
  );
  return { ended: 'baseline', items: items.length };
}

/** Fires each new item once (claimed in `scope`); returns the sessions opened. */
async function fireItems(poll: Poll, scope: string, items: PolledItem[]): Promise<string[]> {
  const { deps, published: { env, trigger }, call } = poll;
  const sessions: string[] = [];
  const target = {
    orgId: env.orgId,
    agentId: env.agentId,
    environment: env.name,
    buildId: env.published.buildId,
    commitId: env.published.commitId,
    workflow: trigger.workflow,
    state: trigger.state,
    trigger: { id: trigger.id, type: 'polling' },
  };
  for (const { id, item } of items) {
    // Claim and open are one recoverable step: a claim left pending is opened by the next poll or the resume sweep.
    const fired = await fireOnce(deps, {
      scope,
      firingId: id,
      target,
      firing: {
        payload: { collection: call.collection, tool: call.tool, itemId: id, item },
        message: `The polling trigger ${trigger.id} found a new item (${id}); it is in the variable "trigger".`,
        firingKey: JSON.stringify(['polling', scope, id]),
      },
    });
    if (fired?.outcome === 'opened') sessions.push(fired.session._id);
  }
  return sessions;
}

/** Claims `job.slot` for the trigger once (true for the one claim; false when this or a later slot was claimed). */
async function claimSlot(deps: Pick<PollRunDeps, 'docs' | 'clock'>, key: string, job: PollJob): Promise<boolean> {
  const states = deps.docs.collection<PollStateRecord>(pollStatesCollection);
  const now = deps.clock.now();
  const { matched } = await states.updateOne({ _id: key, lastSlot: { $lt: job.slot } }, {
    $set: { lastSlot: job.slot, lastPolledAt: now },
  });
  if (matched === 1) return true;
  try {
    await states.insertOne({
      _id: key,
      schemaVersion: 1,
      agentId: job.agentId,
      environment: job.environment,
      workflow: job.workflow,
      trigger: job.trigger,
      lastSlot: job.slot,
      lastPolledAt: now,
    });
    return true;
  } catch (error) {
    if (isPlatformError(error, 'duplicate_key')) return false;
    throw error;
  }
}
