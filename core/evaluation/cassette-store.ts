/**
 * Cassettes kept with their runs: each model call of a recording run's cases (the sessions' calls and the judges')
 * is one document of `evaluation_calls` (written as the call finishes; no read-modify-write, so calls running at once
 * lose nothing). A replay answers each call from the recorded run's calls of the same case and fingerprint, the n-th
 * time a request is asked taking its n-th recording; it records what it answered too (so a replay can be replayed),
 * reports no usage (a replay is free) and calls no model. A request the recording does not hold fails with where it
 * diverges (./cassette.ts).
 *
 * Source: issue "Evaluations" § Record and replay; docs/decisions.md D20 § 5.
 */
import type { DocumentStore } from '../ports/document-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { Ids } from '../ports/ids.ts';
import type { ModelProvider } from '../ports/model-provider.ts';
import { PlatformError } from '../ports/platform-error.ts';
import { NO_USAGE } from '../model/cost.ts';
import {
  CASSETTE_VERSION,
  type CassetteCall,
  divergence,
  emptyCassette,
  recordingProvider,
  requestFingerprint,
} from './cassette.ts';
import { evaluationCollections, type EvaluationRunRecord, evaluationSchemaVersion } from './model.ts';

/** One recorded call of a run's case (collection `evaluation_calls`). */
export interface EvaluationCallRecord extends CassetteCall {
  _id: string;
  schemaVersion: typeof evaluationSchemaVersion;
  runId: string;
  caseId: string;
  recordedAt: Date;
}

/** What the cassette store needs. */
export interface CassetteStoreDeps {
  docs: DocumentStore;
  clock: Clock;
  ids: Ids;
}

/** Where a call belongs: the run and the case it runs for. */
export interface CassetteSlot {
  runId: string;
  caseId: string;
}

const callsOf = (deps: { docs: DocumentStore }) =>
  deps.docs.collection<EvaluationCallRecord>(evaluationCollections.calls);

async function keep(deps: CassetteStoreDeps, slot: CassetteSlot, call: CassetteCall): Promise<void> {
  const record = { _id: deps.ids.newId(), schemaVersion: evaluationSchemaVersion, ...slot, ...call };
  await callsOf(deps).insertOne({ ...record, recordedAt: deps.clock.now() });
}

/** `inner`, each call that finishes recorded for `slot` (a failed or aborted call is not: ./cassette.ts). */
export function recordingTo(deps: CassetteStoreDeps, inner: ModelProvider, slot: CassetteSlot): ModelProvider {
  return {
    async *stream(request) {
      const cassette = emptyCassette();
      yield* recordingProvider(inner, cassette).stream(request);
      for (const call of cassette.calls) await keep(deps, slot, call);
    },
  };
}

/**
 * Answers `slot`'s calls from run `from`'s recording of the same case (no model is called; usage reported as none).
 * @throws PlatformError `cassette_diverged` (while iterating) for a request the recording does not hold, saying
 *   where it diverges and to record again
 */
export function replayingFrom(deps: CassetteStoreDeps, slot: CassetteSlot, from: string): ModelProvider {
  return {
    async *stream(request) {
      const { fingerprint, messages } = requestFingerprint(request);
      const asked = await callsOf(deps).countDocuments({ ...slot, fingerprint });
      const recorded = await callsOf(deps).find({ runId: from, caseId: slot.caseId, fingerprint }, {
        sort: { recordedAt: 1 },
      });
      const call = recorded[asked];
      if (call === undefined) {
        const all = await callsOf(deps).find({ runId: from, caseId: slot.caseId }, { sort: { recordedAt: 1 } });
        const where = divergence({ version: CASSETTE_VERSION, calls: all }, request, messages);
        throw new PlatformError(
          'cassette_diverged',
          `this model call of case ${slot.caseId} is not in the recording of run ${from}: ${where}; the prompt, the ` +
            'tools or an earlier answer changed: record the run again (--record)',
        );
      }
      await keep(deps, slot, {
        fingerprint,
        ...(call.model ? { model: call.model } : {}),
        messages,
        events: call.events,
      });
      for (const event of call.events) {
        yield event.type === 'finish' ? { ...event, usage: { ...NO_USAGE } } : event;
      }
    },
  };
}

/**
 * The model provider of a call of `slot`: `base` for a run without a cassette, recording for a recording run,
 * replaying for a replay (from the run it replays). A run that is gone gets `base`.
 */
export async function modelsForCase(
  deps: CassetteStoreDeps,
  base: ModelProvider,
  slot: CassetteSlot,
): Promise<ModelProvider> {
  const run = await deps.docs.collection<EvaluationRunRecord>(evaluationCollections.runs).findOne({ _id: slot.runId });
  if (run?.cassette === 'record') return recordingTo(deps, base, slot);
  if (run?.cassette === 'replay' && run.replayOf) return replayingFrom(deps, slot, run.replayOf);
  return base;
}
