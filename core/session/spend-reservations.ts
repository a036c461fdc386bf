/**
 * Spend reservations: before each model call the broker reserves an upper bound of the call's cost on every capped
 * spend counter the call counts in (its workflow's and every ancestor workflow's, each capped period), settles the
 * reservation to the reported cost after the call, and releases it when the call fails without a cost.
 *
 * A counter is the `spend_totals` document of one (agent, environment, workflow, period start). It holds
 * `committedNano` = spent + reserved in nano-USD (integers, so reserve and release cancel exactly), and each open
 * reservation as `reservations.<id>` ({amountNano, expiresAt}). Reserving is one conditional update per counter
 * (`committedNano ≤ limit − amount`, `$inc` and the reservation entry in the same write), so concurrent sessions
 * never hold more than the cap between them; a call refused on a later counter gives back what it took on the
 * earlier ones. Settling or releasing removes the entry in the same write that moves its amount (a conditional
 * update on the entry's presence), so an amount is given back once.
 *
 * A reservation of a process that died is never settled: it expires at `expiresAt` (the call's own time bound plus
 * {@link RESERVATION_GRACE_MS}; the broker aborts the call at that bound, so a live call never outlives its
 * reservation) and the next reservation on the same counter sweeps it (lazy sweep; no background job), charging its
 * whole amount as spent: the process may have died after the provider billed the call, and the amount is the call's
 * upper bound, so a cap is never passed by a call nobody settled. A settle that arrives after the sweep adds only
 * what its cost exceeds that amount.
 *
 * Source: spec/platform-service.md § Session facts named (Spend cap); docs/decisions.md D17 § 5.
 */
import type { Clock } from '../ports/clock.ts';
import type { DocumentStore, Versioned } from '../ports/document-store.ts';
import type { Ids } from '../ports/ids.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { sessionCollections, sessionSchemaVersion } from './model.ts';
import { spendPeriods } from './spend-model.ts';
import type { SessionRecord } from './model.ts';
import type { SpendCapRecord, SpendPeriod, SpendTotalRecord } from './spend-model.ts';
import { periodStart } from './rules.ts';
import { sessionsOf } from './session-store.ts';
import { capId, periodWords, type SpendScope, totalId } from './spend.ts';
import { recordSpend } from '../telemetry/instruments.ts';

/** Nano-USD per USD: counters count whole nano-dollars. */
export const NANO_PER_USD = 1_000_000_000;
/** Time a reservation outlives its call's own bound before a sweep may release it (ms): 60 s. */
export const RESERVATION_GRACE_MS = 60_000;
/** How many parent sessions are followed to find a call's ancestor workflows (depth is at most 8). */
const MAX_ANCESTORS = 16;

/** One spend counter: where a call's cost is counted for one scope and period. */
export interface SpendCounter {
  id: string;
  scope: SpendScope;
  period: SpendPeriod;
  periodStart: Date;
}

/** What one model call holds: the counters its cost goes to, and the capped ones holding `amountNano`. */
export interface SpendReservation {
  id: string;
  /** Every counter of every scope and period (capped or not): the settled cost is added to each. */
  counters: SpendCounter[];
  /** Ids of the capped counters that hold the reserved amount. */
  held: string[];
  /** The reserved upper bound in nano-USD (0 when nothing is capped). */
  amountNano: number;
}

/** What reservations need. */
export interface SpendDeps {
  docs: DocumentStore;
  clock: Clock;
  ids: Pick<Ids, 'newId'>;
}

/** A counter document with the fields reservations add. */
type Counter = SpendTotalRecord & {
  committedNano?: number;
  reservedNano?: number;
  reservations?: Record<string, { amountNano: number; expiresAt: Date }>;
  /** Reservations charged at their amount by the sweep, until their late settle (if any) arrives. */
  swept?: Record<string, number>;
};

const totalsOf = (docs: DocumentStore) => docs.collection<Counter>(sessionCollections.spendTotals);
const capsOf = (docs: DocumentStore) => docs.collection<SpendCapRecord>(sessionCollections.spendCaps);
const toNano = (usd: number) => Math.round(usd * NANO_PER_USD);
const usd = (nano: number) => (nano / NANO_PER_USD).toFixed(4);

/**
 * The scopes a session's model calls count in: its own workflow, then each ancestor's (parent first), each once.
 * Ancestors are read from the stored parent chain (`parentId`), not from anything a worker sends.
 */
export async function spendScopes(deps: { docs: DocumentStore }, session: SessionRecord): Promise<SpendScope[]> {
  const scopes: SpendScope[] = [];
  let current: SessionRecord | null = session;
  for (let hops = 0; current && hops <= MAX_ANCESTORS; hops += 1) {
    const { orgId, agentId, environment, workflow } = current;
    if (!scopes.some((s) => s.workflow === workflow)) scopes.push({ orgId, agentId, environment, workflow });
    current = current.parentId ? await sessionsOf(deps).findOne({ _id: current.parentId }) : null;
  }
  return scopes;
}

/**
 * Reserves `estimateUsd` on every capped counter of `scopes` (each period's cap of each workflow), sweeping
 * expired reservations of those counters first.
 * @param options - `ttlMs`: how long the reservation holds (the call's bound plus {@link RESERVATION_GRACE_MS});
 *   `priced`: whether the call's model has prices; `model`: its id (for messages)
 * @throws PlatformError `spend_cap_reached` (429) when a cap cannot hold the estimate besides what is spent and
 *   reserved (nothing stays reserved); `spend_cap_unpriced` (422) when a cap applies and the model has no prices
 */
export async function reserveSpend(
  deps: SpendDeps,
  scopes: SpendScope[],
  estimateUsd: number,
  options: { ttlMs: number; priced: boolean; model?: string },
): Promise<SpendReservation> {
  const now = deps.clock.now();
  const counters = scopes.flatMap((scope) =>
    spendPeriods.map((period) => {
      const start = periodStart(period, now);
      return { id: totalId(scope, period, start), scope, period, periodStart: start };
    })
  );
  // Every period's cap of every scope in one read (docs/decisions.md D24 § 2: was one read per counter).
  const capIds = counters.map((c) => capId(c.scope, c.period));
  const found = await capsOf(deps.docs).find({ _id: { $in: [...new Set(capIds)] } });
  const caps = new Map(found.map((cap) => [cap._id, cap]));
  const capped = counters.flatMap((counter, i) => {
    const cap = caps.get(capIds[i]);
    return cap ? [{ counter, limitUsd: cap.limitUsd }] : [];
  });
  const reservation: SpendReservation = { id: deps.ids.newId(), counters, held: [], amountNano: 0 };
  if (capped.length === 0) return reservation;
  if (!options.priced) throw unpriced(capped[0].counter, options.model);
  reservation.amountNano = Math.max(1, Math.ceil(estimateUsd * NANO_PER_USD));
  const entry = { amountNano: reservation.amountNano, expiresAt: new Date(now.getTime() + options.ttlMs) };
  for (const { counter, limitUsd } of capped.sort((a, b) => a.counter.id.localeCompare(b.counter.id))) {
    await prepareCounter(deps, counter, now);
    const { matched } = await totalsOf(deps.docs).updateOne(
      { _id: counter.id, committedNano: { $lte: toNano(limitUsd) - reservation.amountNano } },
      {
        $inc: { committedNano: reservation.amountNano, reservedNano: reservation.amountNano },
        $set: { [`reservations.${reservation.id}`]: entry },
      },
    );
    if (matched === 0) {
      await releaseSpend(deps, reservation);
      throw await capReached(deps, counter, limitUsd, reservation.amountNano);
    }
    reservation.held.push(counter.id);
  }
  return reservation;
}

/**
 * Settles a reservation to the call's cost: each counter gains `costUsd`; a held counter gives back the reserved
 * amount in the same write (once). A held counter whose reservation was already swept (charged at its amount) gains
 * only the part of `costUsd` above that amount. `costUsd` 0 releases.
 */
export async function settleSpend(
  deps: Pick<SpendDeps, 'docs'>,
  reservation: SpendReservation,
  costUsd: number,
): Promise<void> {
  const cost = Math.max(0, costUsd);
  const costNano = toNano(cost);
  // cairn.spend.usd, once per call, in the session's own scope (the first counter's; docs/decisions.md D25 § 2).
  if (reservation.counters[0]) recordSpend(cost, reservation.counters[0].scope);
  for (const counter of reservation.counters) {
    if (reservation.held.includes(counter.id)) {
      const key = `reservations.${reservation.id}`;
      const { matched } = await totalsOf(deps.docs).updateOne(
        { _id: counter.id, [key]: { $exists: true } },
        {
          $unset: { [key]: true },
          $inc: {
            costUsd: cost,
            committedNano: costNano - reservation.amountNano,
            reservedNano: -reservation.amountNano,
          },
        },
      );
      if (matched === 1) continue;
      // Swept at expiry, so charged the reserved amount already: only the cost beyond it is added (once).
      const beyond = Math.max(0, cost - reservation.amountNano / NANO_PER_USD);
      const swept = `swept.${reservation.id}`;
      const late = await totalsOf(deps.docs).updateOne(
        { _id: counter.id, [swept]: { $exists: true } },
        { $unset: { [swept]: true }, $inc: { costUsd: beyond, committedNano: toNano(beyond) } },
      );
      if (late.matched === 1) continue;
    }
    if (cost > 0) await addToCounter(deps, counter, cost);
  }
}

/** Gives a reservation back without a cost (a call that failed before the provider answered anything). */
export async function releaseSpend(deps: Pick<SpendDeps, 'docs'>, reservation: SpendReservation): Promise<void> {
  const held = reservation.counters.filter((c) => reservation.held.includes(c.id));
  await settleSpend(deps, { ...reservation, counters: held }, 0);
}

/** Adds `costUsd` to one counter (created when missing), spent and committed alike. */
export async function addToCounter(
  deps: Pick<SpendDeps, 'docs'>,
  counter: SpendCounter,
  costUsd: number,
): Promise<void> {
  await totalsOf(deps.docs).updateOne(
    { _id: counter.id },
    { $inc: { costUsd, committedNano: toNano(costUsd) }, $set: counterFields(counter) },
    { upsert: true },
  );
}

/** Creates the counter when missing, gives a counter of before reservations its committed figure, sweeps. */
async function prepareCounter(deps: Pick<SpendDeps, 'docs'>, counter: SpendCounter, now: Date): Promise<void> {
  const totals = totalsOf(deps.docs);
  let doc = await totals.findOne({ _id: counter.id });
  if (!doc) {
    const fresh = { $inc: { costUsd: 0, committedNano: 0, reservedNano: 0 }, $set: counterFields(counter) };
    // Two processes may create it at once: the second one's insert is a duplicate, and the counter exists.
    await totals.updateOne({ _id: counter.id }, fresh, { upsert: true }).catch((error: unknown) => {
      if (!(error instanceof PlatformError && error.code === 'duplicate_key')) throw error;
    });
    doc = await totals.findOne({ _id: counter.id });
  } else if (doc.committedNano === undefined) {
    const committed = { $set: { committedNano: toNano(doc.costUsd ?? 0), reservedNano: 0 } };
    await totals.updateOne({ _id: counter.id, committedNano: { $exists: false } }, committed);
  }
  for (const [id, held] of Object.entries(doc?.reservations ?? {})) {
    if (new Date(held.expiresAt).getTime() > now.getTime()) continue;
    const key = `reservations.${id}`;
    // Nobody settled it (its process died, perhaps after the provider billed): charged at its upper bound, once.
    await totals.updateOne(
      { _id: counter.id, [key]: { $exists: true } },
      {
        $unset: { [key]: true },
        $set: { [`swept.${id}`]: held.amountNano },
        $inc: { reservedNano: -held.amountNano, costUsd: held.amountNano / NANO_PER_USD },
      },
    );
  }
}

function counterFields(counter: SpendCounter): Versioned & Record<string, unknown> {
  const { orgId, agentId, environment, workflow } = counter.scope;
  const { period, periodStart: start } = counter;
  return { schemaVersion: sessionSchemaVersion, orgId, agentId, environment, workflow, period, periodStart: start };
}

async function capReached(
  deps: Pick<SpendDeps, 'docs'>,
  counter: SpendCounter,
  limitUsd: number,
  amountNano: number,
): Promise<PlatformError> {
  const doc = await totalsOf(deps.docs).findOne({ _id: counter.id });
  const spent = toNano(doc?.costUsd ?? 0);
  const reserved = doc?.reservedNano ?? 0;
  const { workflow, environment } = counter.scope;
  const left = Math.max(0, toNano(limitUsd) - spent - reserved);
  return new PlatformError(
    'spend_cap_reached',
    [
      `Workflow "${workflow}" cannot make this model call: its spend cap of ${limitUsd} USD for this`,
      `${periodWords[counter.period]} in environment "${environment}" has ${usd(left)} USD left`,
      `(${usd(spent)} USD spent,`,
      `${usd(reserved)} USD held by model calls in flight), less than the call may cost (up to ${
        usd(amountNano)
      } USD).`,
      'It takes no new model call until the period ends or a maintainer raises the cap.',
    ].join(' '),
    { status: 429 },
  );
}

function unpriced(counter: SpendCounter, model: string | undefined): PlatformError {
  const { workflow, environment } = counter.scope;
  return new PlatformError(
    'spend_cap_unpriced',
    [
      `Workflow "${workflow}" has a ${counter.period} spend cap in environment "${environment}", but model`,
      `"${model ?? 'the default model'}" has no prices (not offered, or its input and output prices are 0), so the cap`,
      "could never be reached: give the model its prices (USD per million tokens) in the config's models section,",
      'or remove the cap.',
    ].join(' '),
    { status: 422 },
  );
}
