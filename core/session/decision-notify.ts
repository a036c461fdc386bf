/**
 * Sends out a decision a session just parked on, where its human state says (`notify: {tool: <collection>/<tool>}`):
 * after a turn settles (the dispatcher's `afterTurn`), the trusted side makes one decision link for the pending
 * decision (./decision-links.ts) and calls the collection's tool, for the session's organization and agent, with
 * `{session, state, options, fields?, expiresAt, links: [<base>/decide/<token>], api: <base>/api/decisions/<token>}`.
 * One link whose page offers every option (not one per option): `links` holds the web page a person opens (no
 * sign-in; it shows the decision and takes it), `api` the same token's JSON address for a tool that posts directly
 * (its GET says what the decision is, its POST takes `{to, comment?, fields?}`).
 *
 * Sent once per pending decision (a link already made for it is not made again); evaluation sessions send nothing.
 * A failed call is one log line naming the session and the tool, never the link. The link's token reaches no log.
 *
 * Source: docs/decisions.md D26 § 3.
 */
import { notifyTargetOf } from '../agent/decision-notify.ts';
import type { PublishedAgent } from '../agent/hosting.ts';
import type { ToolCatalog } from '../ports/tool-catalog.ts';
import { createDecisionLink, DECISION_LINKS_COLLECTION, type DecisionLinkRecord } from './decision-links.ts';
import type { SessionRecord } from './model.ts';
import { sessionsOf, type SessionStoreDeps, turnsOf } from './session-store.ts';

/** What sending out a decision needs. */
export interface DecisionNotifyDeps extends SessionStoreDeps {
  /** The dispatcher's catalog (each call carries the organization's credential for the collection). */
  catalog: ToolCatalog;
  /** The published build's agent (core/session/build-workflows.ts). */
  agentOf(buildId: string): Promise<PublishedAgent>;
  /** APP_BASE_URL: the links' base (`<base>/decide/<token>`, `<base>/api/decisions/<token>`). Empty: nothing sent. */
  appBaseUrl: string;
  /** Receives one line when a call fails. */
  log(line: string): void;
}

/** The raw `notify` of the human state a session's pending decision is on (a child's state when a child parked). */
async function notifyOf(deps: DecisionNotifyDeps, session: SessionRecord, state: string): Promise<unknown> {
  const pending = session.pending;
  const parked = pending?.kind === 'decision' && pending.childSessionId
    ? await sessionsOf(deps).findOne({ _id: pending.childSessionId })
    : session;
  if (!parked) return undefined;
  const workflow = (await deps.agentOf(parked.buildId)).workflows[parked.workflow];
  const states = workflow?.definition.states as Record<string, { notify?: unknown }> | undefined;
  return states?.[state]?.notify;
}

/**
 * Sends out the decision turn `turnId`'s root session parked on, when its state declares `notify` (see the module
 * comment). Never throws for a failed call: it logs.
 * @returns the tool called (`<collection>/<tool>`), or undefined when nothing was sent
 */
export async function notifyParkedDecision(deps: DecisionNotifyDeps, turnId: string): Promise<string | undefined> {
  const turn = await turnsOf(deps).findOne({ _id: turnId });
  const session = turn ? await sessionsOf(deps).findOne({ _id: turn.sessionId }) : null;
  const pending = session?.pending;
  if (!session || session.depth !== 0 || session.evaluation || !deps.appBaseUrl) return undefined;
  if (session.status !== 'awaiting_decision' || pending?.kind !== 'decision') return undefined;
  const target = notifyTargetOf(await notifyOf(deps, session, pending.state));
  if (!target) return undefined;
  const links = deps.docs.collection<DecisionLinkRecord>(DECISION_LINKS_COLLECTION);
  if (await links.findOne({ sessionId: session._id, decisionId: pending.id })) return undefined;
  const { token, expiresAt } = await createDecisionLink(deps, session);
  const base = deps.appBaseUrl.replace(/\/+$/, '');
  const payload = {
    session: session._id,
    state: pending.state,
    options: pending.options.map((o) => ({ to: o.to, description: o.description })),
    ...(pending.fields ? { fields: pending.fields } : {}),
    expiresAt: expiresAt.toISOString(),
    links: [`${base}/decide/${token}`],
    api: `${base}/api/decisions/${token}`,
  };
  const name = `${target.collection}/${target.tool}`;
  try {
    const result = await deps.catalog.call(target.collection, target.tool, payload, {
      orgId: session.orgId,
      agentId: session.agentId,
      sessionId: session._id,
    });
    if (result.isError) {
      deps.log(`[decisions] notify ${name} of session ${session._id} failed: the tool answered an error`);
    }
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    deps.log(
      `[decisions] notify ${name} of session ${session._id} failed: ${typeof code === 'string' ? code : 'error'}`,
    );
  }
  return name;
}
