/**
 * Handlers of execute_query and execute_stored_query: validate against the engine's parser, run on
 * the model's scoped views, store the query for replay. The result is carried once, as the JSON text of
 * {@link QueryOutput} (see tool-definitions.ts: why text and not structuredContent).
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query, execute_stored_query),
 * § Query validation, § Errors, § Limits.
 */
import { inSpan } from '../../telemetry/spans.ts';
import type { Static } from '@sinclair/typebox';
import { isPlatformError, PlatformError } from '../../ports/platform-error.ts';
import type { QueryResult } from '../../ports/query-engine.ts';
import { getStoredQuery, storeQuery } from '../improvements.ts';
import type { SemanticModel } from '../model.ts';
import { datasetsWithoutViewQuery } from '../osi/index.ts';
import {
  checkViewQueries,
  type ValidatedQuery,
  validateQuery,
  viewQueryVolatileCode,
} from '../query-validation/index.ts';
import {
  type ExecuteQueryInput,
  type ExecuteStoredQueryInput,
  maxResultBytes,
  maxResultRows,
  type QueryOutput,
  queryTimeoutMs,
} from './tool-definitions.ts';
import { rememberedScopeName, rememberedVerdict } from './model-memos.ts';
import { requireModel, scopedModelNames, type ToolContext, type ToolResult } from './tool-context.ts';

/**
 * execute_query. @throws PlatformError `model_unqueryable`, `view_query_volatile`, `query_rejected`,
 * `query_parse_error`, `query_timeout`, …
 */
export async function executeQuery(ctx: ToolContext, input: Static<typeof ExecuteQueryInput>): Promise<ToolResult> {
  const model = requireModel(ctx, input.modelName);
  const params = input.params ?? [];
  const result = await runQuery(ctx, model, input.sql, params);
  const storedQueryId = input.store === false ? undefined : await storeQuery(ctx.deps, {
    projectId: ctx.project._id,
    modelName: model.name,
    sql: input.sql,
    params,
    tokenId: ctx.token._id,
  });
  return { text: outputText(result, storedQueryId) };
}

/** execute_stored_query: the stored SQL with new params (or the stored ones). */
export async function executeStoredQuery(
  ctx: ToolContext,
  input: Static<typeof ExecuteStoredQueryInput>,
): Promise<ToolResult> {
  const stored = await getStoredQuery(ctx.deps, ctx.project._id, input.storedQueryId, scopedModelNames(ctx));
  const model = requireModel(ctx, stored.modelName);
  const result = await runQuery(ctx, model, stored.sql, input.params ?? stored.params);
  return { text: outputText(result, stored._id) };
}

/**
 * The verdict of {@link checkViewQueries} on each model object of an assembled plane, taken once: a plane's models
 * never change (a new publish assembles new objects), so a query pays the view check only on its model's first call.
 * Keyed by the object, never by the SQL text: a project cannot time whether another project's views were checked.
 */
const viewVerdicts = new WeakMap<SemanticModel, Promise<void>>();

function steadyViews(
  model: SemanticModel,
  views: { name: string; sql: string }[],
  parse: (sql: string) => ReturnType<ToolContext['engine']['parse']>,
): Promise<void> {
  let verdict = viewVerdicts.get(model);
  if (verdict === undefined) {
    verdict = checkViewQueries({ modelName: model.name, views, parse });
    // A parse that failed for a passing reason (an engine restart) is asked again by the next call.
    verdict.catch((error: unknown) => {
      if (!isPlatformError(error, viewQueryVolatileCode)) viewVerdicts.delete(model);
    });
    viewVerdicts.set(model, verdict);
  }
  return verdict;
}

/** What {@link prepareModelScope} needs of a tool's context: the project, the plane and the engine. */
export type ScopeContext = Pick<ToolContext, 'engine' | 'project' | 'plane'> & {
  deps: Pick<ToolContext['deps'], 'ids'>;
};

/**
 * Starts preparing `model`'s scope (the engine's data build and materialisation) without waiting, when the
 * model is queryable: agents read a model before they query it, and a publish prepares every model of the
 * new build (core/semantic/publish-watch.ts), so the first query need not wait for seconds. The engine counts the
 * preparation toward the project's and its organization's build shares.
 *
 * Source: spec/semantic-query-service.md § What the service does (3)
 */
export function prepareModelScope(ctx: ScopeContext, model: SemanticModel): void {
  if (!ctx.engine.prepareScope || datasetsWithoutViewQuery(model).length > 0) return;
  const views = scopedViews(model);
  const owner = { projectId: ctx.project._id, orgId: ctx.project.orgId };
  // A time-dependent view_query is refused by every query (runQuery), so its rows are never materialised.
  void steadyViews(model, views, (sql) => ctx.engine.parse(sql, ctx.project._id))
    .then(() => scopeName(ctx, model, views))
    .then((scope) => ctx.engine.prepareScope?.({ data: ctx.plane.data, scope, views }, owner))
    .catch(() => undefined);
}

function scopedViews(model: SemanticModel): { name: string; sql: string }[] {
  return model.datasets.map((d) => ({ name: d.name, sql: d.viewQuery as string }));
}

/** Validates and runs `sql` on `model`'s scoped views. */
async function runQuery(ctx: ToolContext, model: SemanticModel, sql: string, params: string[]): Promise<QueryResult> {
  const missing = datasetsWithoutViewQuery(model);
  if (missing.length > 0) {
    throw new PlatformError(
      'model_unqueryable',
      `Model "${model.name}" cannot be queried: these datasets have no view_query: ${
        missing.join(', ')
      }. Ask the modeller to add a view_query custom extension to each (request_improvement can say so).`,
    );
  }
  const views = scopedViews(model);
  // In a span of its own (docs/decisions.md D25 § 1): its name only, never the SQL text.
  const validated = await inSpan('validate_query', {}, () => verdictOf(model, { ctx, sql, views }));
  checkParamCount(validated.parameterCount, params.length);
  const scope = await scopeName(ctx, model, views);
  try {
    return await ctx.engine.execute({
      data: ctx.plane.data,
      scope,
      views,
      sql: validated.sql,
      params,
      maxRows: maxResultRows,
      maxBytes: maxResultBytes,
      timeoutMs: queryTimeoutMs,
      // Fair shares count per project and token (builds per project and organization); the signal stops the query
      // once the caller has gone (docs/decisions.md D18 § 2, § 7).
      caller: { projectId: ctx.project._id, tokenId: ctx.token._id, orgId: ctx.project.orgId },
      signal: ctx.signal,
    });
  } catch (error) {
    throw hideScopes(error);
  }
}

/** The allowlist verdict on `sql` over `model`'s views (remembered per model and project). */
async function verdictOf(
  model: SemanticModel,
  { ctx, sql, views }: { ctx: ToolContext; sql: string; views: { name: string; sql: string }[] },
): Promise<ValidatedQuery> {
  // The parse cache is kept per project: another project cannot time whether this text was parsed recently.
  const parse = (text: string) => ctx.engine.parse(text, ctx.project._id);
  // A dataset's rows are materialised once per view_query: one whose rows depend on the moment would go stale.
  await steadyViews(model, views, parse);
  // The verdict on a text is kept on the model object: a re-run, retry or replay is not parsed and walked again.
  const datasetNames = model.datasets.map((d) => d.name);
  return rememberedVerdict(
    model,
    { partition: ctx.project._id, sql },
    () => validateQuery({ sql, parse, datasetNames }),
  );
}

/**
 * `_scope_<model>_<owner>_<views>`: the family `_scope_<model>_<owner>` is one model of one project in
 * one plane (8 hex digits over project id, plane and model name), so another project with the same data,
 * the other plane or a model whose name sanitises alike never replaces its scope; the last 12 hex digits
 * cover the views, so a changed view_query is a new scope (the engine then drops the family's old one).
 */
function scopeName(ctx: ScopeContext, model: SemanticModel, views: object[]): Promise<string> {
  return rememberedScopeName(model, `${ctx.project._id}\n${ctx.plane.plane}`, () => newScopeName(ctx, model, views));
}

async function newScopeName(ctx: ScopeContext, model: SemanticModel, views: object[]): Promise<string> {
  const owner = (await ctx.deps.ids.sha256Hex(`${ctx.project._id}\n${ctx.plane.plane}\n${model.name}`)).slice(0, 8);
  const digest = (await ctx.deps.ids.sha256Hex(`${ctx.project._id}\n${JSON.stringify(views)}`)).slice(0, 12);
  // The name part is cut at 64 characters so the scope stays a plain file name (the DuckDB engine hashes longer ones,
  // and a hashed file is no longer found as its family's older version and retired); the owner digest covers the
  // whole model name, so two long names alike in their first 64 characters still differ.
  return `_scope_${model.name.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 64)}_${owner}_${digest}`;
}

/**
 * Refuses params that do not match the placeholders: fewer than the highest `$n`, or more (docs/decisions.md D18 § 4:
 * extra
 * params would only fill the stored query).
 * @throws PlatformError `query_invalid_params` saying how many params the SQL uses
 */
function checkParamCount(used: number, given: number): void {
  if (used === given) return;
  const uses = used === 0 ? 'uses no placeholder' : `uses placeholders up to $${used}`;
  const fix = used === 0 ? 'omit params (or pass [])' : `pass exactly ${used} string(s) in params, one per placeholder`;
  const message = `Query rejected: the query ${uses} but ${given} param(s) were given; ${fix}.`;
  throw new PlatformError('query_invalid_params', message);
}

/**
 * The JSON text of the {@link QueryOutput} of `result`: written around the engine's own text of the rows when it has
 * one (the same text JSON.stringify gives, keys in the same order), so the rows are never parsed or written again.
 */
export function outputText(result: QueryResult, storedQueryId?: string): string {
  const rowsText = result.rowsText;
  if (!rowsText) return JSON.stringify({ ...toOutput(result), ...(storedQueryId ? { storedQueryId } : {}) });
  const tail: Omit<QueryOutput, 'columns' | 'rows'> = {
    rowCount: rowsText.count,
    ...(result.truncated ? { truncated: true as const } : {}),
    ...(result.truncatedBy === 'bytes' ? { note: byteCapNote(rowsText.count) } : {}),
    ...(storedQueryId ? { storedQueryId } : {}),
  };
  const head = JSON.stringify({ columns: result.columns });
  return `${head.slice(0, -1)},"rows":${rowsText.json},${JSON.stringify(tail).slice(1)}`;
}

function toOutput(result: QueryResult): QueryOutput {
  const output: QueryOutput = {
    columns: result.columns,
    rows: result.rows,
    rowCount: result.rows.length,
    ...(result.truncated ? { truncated: true as const } : {}),
  };
  if (result.truncatedBy === 'bytes') output.note = byteCapNote(result.rows.length);
  return output;
}

/** The note of a result cut at {@link maxResultBytes}. */
function byteCapNote(rowCount: number): string {
  return `Result truncated: the rows passed the 4 MiB ` +
    `(${maxResultBytes.toLocaleString('en-US')} bytes) cap on row ` +
    `data, so only the first ${rowCount} row(s) are shown. Narrow the ` +
    `query: select fewer or shorter columns (for example left(text_column, ` +
    `200)), aggregate, or filter and add LIMIT.`;
}

/** Engine messages may name scope schemas; agents write bare names, so scope names are removed. */
function hideScopes(error: unknown): unknown {
  if (!(error instanceof PlatformError)) return error;
  const message = error.message.replace(/"?_scope_[A-Za-z0-9_]*"?\./g, '').replace(
    /"?_scope_[A-Za-z0-9_]*"?/g,
    '<model>',
  );
  return message === error.message
    ? error
    : new PlatformError(error.code, message, { status: error.status, cause: error });
}
