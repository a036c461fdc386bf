/**
 * JSON routes of evaluation runs of an agent environment (`:agent` is the agent's id or slug; core/evaluation):
 * - `POST /api/agents/:agent/environments/:env/evaluations` {workflow?, case?, draft?} → 202 {run} (User): runs the
 *   published build's cases, or with `draft: true` the draft's (all, one workflow's, or one case by its file stem;
 *   a draft that does not validate is 422 `agent_invalid`); `record: true` keeps its model calls, `replay: <run>`
 *   answers them from an ended recording run of the agent (400 for both or a run without one, 404 for another
 *   agent's run, 409 `run_not_ended`); counts against the per-user
 *   ceiling (429 with Retry-After); 400 `invalid_request` for a build without cases, 404 `not_found` for a
 *   selection matching none (listing the cases), 409 `not_published`, 503 `queue_unavailable`.
 * - `GET …/evaluations` → {runs} newest first, at most 50 (Reader); `GET …/evaluations/:run` → {run} (Reader).
 * A run or agent the caller may not see (another organization's) is 404 with nothing of it named.
 *
 * Source: issue "Evaluations" § Results; spec/platform-service.md § Limits (per-user ceiling), § Errors.
 */
import { Type } from '@sinclair/typebox';
import { Elysia } from 'elysia';
import {
  type EvaluationCaller, type EvaluationDeps, listEvaluationRuns, showEvaluationRun, startEvaluationRun,
} from '../../core/evaluation/evaluation-runs.ts';
import type { EvaluationRunRecord } from '../../core/evaluation/model.ts';
import { callerRoutes, type CallerRouteDeps } from './caller-route.ts';
import { json, readJson } from './http-helpers.ts';

/** Dependencies of the evaluation routes. */
export interface EvaluationRouteDeps extends CallerRouteDeps<EvaluationCaller> {
  deps: EvaluationDeps;
}

const Slug = Type.String({ minLength: 1, maxLength: 63, pattern: '^[a-z0-9]+(-[a-z0-9]+)*$' });
const StartBody = Type.Object({
  workflow: Type.Optional(Slug),
  case: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '^[^/]+$' })),
  draft: Type.Optional(Type.Boolean()),
  record: Type.Optional(Type.Boolean()),
  replay: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
}, { additionalProperties: false });

/** A run as the API shows it: its id as `id`, its summary counted, dates as ISO text. */
export function evaluationRunView(run: EvaluationRunRecord) {
  const { _id, schemaVersion: _version, orgId: _org, ...rest } = run;
  const passed = run.cases.filter((c) => c.passed).length;
  return {
    id: _id,
    ...rest,
    summary: { total: run.caseIds.length, done: run.cases.length, passed, failed: run.cases.length - passed },
  };
}

type Env = { agent: string; env: string };

/** Mounts the routes (behind the request rules: sign-in, cross-site refusal, body limits, the per-user ceiling). */
export function evaluationRoutes(env: EvaluationRouteDeps) {
  const route = callerRoutes(env);
  const base = '/api/agents/:agent/environments/:env/evaluations';
  return new Elysia()
    .post(base, route<Env>(async ({ request, params, caller }) => {
      const body = await readJson(request, StartBody);
      const ref = {
        agent: params.agent, environment: params.env, workflow: body.workflow, stem: body.case, draft: body.draft,
        record: body.record, replay: body.replay,
      };
      return json({ run: evaluationRunView(await startEvaluationRun(env.deps, caller, ref)) }, 202);
    }), { parse: 'none' as const })
    .get(base, route<Env>(async ({ params, caller }) => {
      const runs = await listEvaluationRuns(env.deps, caller, { agent: params.agent, environment: params.env });
      return json({ runs: runs.map(evaluationRunView) });
    }))
    .get(`${base}/:run`, route<Env & { run: string }>(async ({ params, caller }) => {
      const ref = { agent: params.agent, environment: params.env, runId: params.run };
      return json({ run: evaluationRunView(await showEvaluationRun(env.deps, caller, ref)) });
    }));
}
