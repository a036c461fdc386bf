/**
 * The workflow calls of a running turn, as its store host makes them: a child session opened (its callee,
 * arguments, inherited forbids and ancestry taken from the records through the broker's guard, never from the
 * worker) with its first turn running under the root's lease, and a parked child resumed with the parent turn's own
 * input.
 *
 * Source: spec/platform-service.md § Rules 6, § Session facts named; docs/decisions.md D7 § Dispatcher and workers,
 * D17 § 4.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { insertSession, insertTurn, sessionsOf } from './session-store.ts';
import { childEvaluation } from './evaluation-reach.ts';
import type { ChildRequest } from './turn-host.ts';
import { changed, type HostContext, recordsOf } from './store-host-context.ts';

/** Opens the child session a workflow call of `turnId` asks for, its first turn running. */
export async function openChild(
  ctx: HostContext,
  turnId: string,
  request: ChildRequest,
): Promise<{ sessionId: string; turnId: string }> {
  const { deps } = ctx;
  const { session: parent } = await recordsOf(ctx, turnId);
  // The callee, its arguments, inherited forbids and ancestry come from the records, never from the worker.
  const fields = await ctx.guard.child(parent, request);
  const target = (await deps.workflowOf(parent.buildId, parent.workflow)).callable[fields.workflow];
  const child = await insertSession(deps, {
    orgId: parent.orgId,
    agentId: parent.agentId,
    environment: parent.environment,
    workflow: fields.workflow,
    buildId: parent.buildId,
    commitId: parent.commitId,
    state: target.entry,
    trigger: target.trigger,
    variables: { ...fields.arguments as Record<string, never> },
    lockedVariables: Object.keys(fields.arguments),
    depth: parent.depth + 1,
    inheritedForbid: fields.inheritedForbid,
    ancestry: fields.ancestry,
    parentId: parent._id,
    rootId: parent.rootId ?? parent._id,
    dispatchId: fields.dispatchId,
    // A child of an evaluation's session is the evaluation's too, of the same run, case and build.
    ...childEvaluation(parent),
    ...(deps.fence ? { lease: deps.fence.lease } : {}),
  });
  const message = JSON.stringify(fields.arguments);
  const turn = await insertTurn(deps, child, {
    kind: 'prompt',
    input: { message },
    status: 'running',
    fence: deps.fence,
  });
  ctx.allowed.add(turn._id);
  deps.trace?.childOpened(turnId, turn, child);
  changed(ctx, child);
  return { sessionId: child._id, turnId: turn._id };
}

/**
 * Resumes the child `turnId`'s session is parked on, with a new running turn.
 * @throws PlatformError `child_not_parked` (409) when it was resumed meanwhile
 */
export async function resumeChild(
  ctx: HostContext,
  turnId: string,
  childSessionId: unknown,
  input: unknown,
): Promise<{ turnId: string }> {
  const { deps } = ctx;
  const { turn: parentTurn, session: parent } = await recordsOf(ctx, turnId);
  // Only the child this session is parked on, still parked, with the parent turn's own input (not the worker's).
  const { child, input: own } = await ctx.guard.resume(parentTurn, parent, childSessionId, input);
  const leased = deps.fence ? { lease: deps.fence.lease } : {};
  const running = { $set: { status: 'running', updatedAt: deps.clock.now(), ...leased } };
  const { matched } = await sessionsOf(deps).updateOne({ _id: child._id, status: child.status }, running);
  if (matched === 0) {
    const why = `Child session ${child._id} is no longer parked; it was resumed meanwhile.`;
    throw new PlatformError('child_not_parked', why, { status: 409 });
  }
  const { kind, ...rest } = own;
  const turn = await insertTurn(deps, child, { kind, input: rest, status: 'running', fence: deps.fence });
  ctx.allowed.add(turn._id);
  deps.trace?.childOpened(turnId, turn, child);
  changed(ctx, child);
  return { turnId: turn._id };
}
