/**
 * The mutable state of one running turn, shared by the engine's steps: the context it loaded, the thread,
 * counters against the limits, and the checkpoint writer.
 *
 * Source: docs/decisions.md D7 § Sessions and turns (resuming continues from the recorded state and never re-runs
 * finished steps).
 */
import type { ModelMessage } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';
import type { DecisionChannel } from './decision-input.ts';
import type { HookRunner, SessionPatch, TurnContext, TurnHost, TurnOutcome } from './turn-host.ts';
import { stateOf, type StateView } from './workflow-view.ts';

/** What the engine is given by the process running it. */
export interface EngineDeps {
  host: TurnHost;
  /** Runs hook scripts (QuickJS in a worker); hooks with a script fail the turn when absent. */
  hooks?: HookRunner;
  /** Milliseconds since the epoch (the worker's clock), for the turn's wall time. */
  now(): number;
}

/** What {@link TurnRun.enter} records with a state entry. */
export interface StateEntry {
  /** The trail entry's note (the reason or comment). */
  note?: string;
  /** A user message added to the thread. Default: none. */
  message?: string;
  /** Who decided (a decision's member). Default: none. */
  by?: string;
  /** The channel a decision came through (docs/decisions.md D26 § 2). Default: none. */
  channel?: DecisionChannel;
  /** Variables set with the entry (a decision's fields). Default: none. */
  variables?: Record<string, unknown>;
}

/** A turn in progress. */
export class TurnRun {
  readonly messages: ModelMessage[];
  modelCalls = 0;
  readonly deadline: number;
  /** Runs a child session's turn to its end or park (set by the engine; workflow calls use it). */
  nested: (turnId: string) => Promise<TurnOutcome> = async () => {
    throw new PlatformError('internal', 'nested turns are not wired');
  };

  constructor(readonly deps: EngineDeps, readonly ctx: TurnContext) {
    this.messages = [...ctx.messages];
    this.deadline = deps.now() + ctx.workflow.limits.turnSeconds * 1000;
  }

  get session() {
    return this.ctx.session;
  }
  get workflow() {
    return this.ctx.workflow;
  }
  get host() {
    return this.deps.host;
  }
  get turnId() {
    return this.ctx.turnId;
  }

  /** The active state. */
  state(): StateView {
    return stateOf(this.workflow, this.session.state);
  }

  /** Applies `patch` to the local view and writes it as one checkpoint. */
  async checkpoint(patch: SessionPatch): Promise<void> {
    if (patch.messages) this.messages.push(...patch.messages);
    if (patch.state !== undefined) this.session.state = patch.state;
    if (patch.variables) Object.assign(this.session.variables, patch.variables);
    if (patch.visit) this.session.visit = patch.visit;
    if (patch.pending !== undefined) {
      this.session.pending = patch.pending === null ? null : { ...patch.pending, id: patch.pending.id ?? '' } as never;
    }
    if (patch.dispatchCount !== undefined) this.session.dispatchCount = patch.dispatchCount;
    await this.host.checkpoint(this.turnId, patch);
  }

  /** Enters `to` (the visit starts afresh), with a trail entry (`by`: who decided) and a note in the thread when given.
   */
  async enter(
    to: string,
    via: 'advance' | 'decision' | 'expired' | 'error',
    { note, message, by, channel, variables }: StateEntry = {},
  ): Promise<void> {
    await this.checkpoint({
      state: to,
      trail: {
        state: to,
        via,
        note,
        ...(by === undefined ? {} : { by }),
        ...(channel === undefined ? {} : { channel }),
      },
      ...(variables && Object.keys(variables).length > 0 ? { variables } : {}),
      visit: { modelCalls: 0, parks: 0, entered: false },
      pending: null,
      ...(message === undefined ? {} : { messages: [{ role: 'user', content: message }] }),
    });
  }

  /** The last assistant text of the thread ('' when none). */
  lastReply(): string {
    for (let i = this.messages.length - 1; i >= 0; i -= 1) {
      const m = this.messages[i];
      if (m.role === 'assistant' && m.content.trim().length > 0) return m.content;
    }
    return '';
  }

  /**
   * Parks the session: a decision in a human state, or input after a wait or a reply; `patch` (e.g. the reply that
   * parks it) is written in the same checkpoint, its visit counted on.
   */
  async park(pending: NonNullable<SessionPatch['pending']>, patch: SessionPatch = {}): Promise<TurnOutcome> {
    const visit = patch.visit ?? this.session.visit;
    const parks = visit.parks + (pending.kind === 'input' ? 1 : 0);
    await this.checkpoint({ ...patch, pending, visit: { ...visit, parks } });
    return {
      status: pending.kind === 'decision' ? 'awaiting_decision' : 'awaiting_input',
      reply: this.lastReply(),
      pending: this.session.pending ?? undefined,
      variables: this.session.variables,
    };
  }

  /**
   * Throws when the turn's wall time, its model calls or the state's budget are spent.
   * @throws PlatformError `turn_limit` or `budget_exhausted`
   */
  checkLimits(state: StateView): void {
    const limits = this.workflow.limits;
    if (this.deps.now() > this.deadline) {
      throw new PlatformError(
        'turn_limit',
        `The turn ran longer than the workflow's turn_seconds (${limits.turnSeconds} s).`,
      );
    }
    if (this.modelCalls >= limits.modelCallsPerTurn) {
      throw new PlatformError(
        'turn_limit',
        `The turn made the workflow's model_calls_per_turn (${limits.modelCallsPerTurn}) model calls.`,
      );
    }
    const budget = state.budget.modelCalls;
    if (budget !== undefined && this.session.visit.modelCalls >= budget) {
      throw new PlatformError(
        'budget_exhausted',
        `State "${state.slug}" used its budget of ${budget} model calls for this visit.`,
      );
    }
  }
}
