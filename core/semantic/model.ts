/**
 * The internal shape of a semantic model, normalised from an OSI document (0.1.1 or 0.2.0.dev0).
 * The OSI YAML is validated against the official schema first (`core/semantic/osi`); this shape is what
 * the digest, the view layer and the tools read. Vendor extensions are kept unmodified as `extensions`.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
import { type Static, Type } from '@sinclair/typebox';

/**
 * OSI specification versions cairn accepts, oldest first.
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
export const acceptedOsiVersions = ['0.1.1', '0.2.0.dev0'] as const;

/** One accepted OSI version. Source: spec/semantic-query-service.md § What the service does (1). */
export const OsiVersion = Type.Union(acceptedOsiVersions.map((v) => Type.Literal(v)));
export type OsiVersion = (typeof acceptedOsiVersions)[number];

/**
 * A vendor extension exactly as written in the OSI file (`data` is the vendor's JSON string).
 * Source: spec/semantic-query-service.md § Resources and their fields (custom extension view_query).
 */
export const CustomExtension = Type.Object({ vendor_name: Type.String(), data: Type.String() });
export type CustomExtension = Static<typeof CustomExtension>;

/** An expression in one dialect (ANSI_SQL, SNOWFLAKE, …). Source: spec/semantic-query-service.md § Resources. */
export const DialectExpression = Type.Object({ dialect: Type.String(), expression: Type.String() });
export type DialectExpression = Static<typeof DialectExpression>;

/**
 * AI context, normalised: the OSI string form becomes `instructions`; keys other than
 * instructions/synonyms/examples are kept under `other`.
 * Source: spec/semantic-query-service.md § Resources and their fields (instructions, synonyms, AI context).
 */
export const AIContext = Type.Object({
  instructions: Type.Optional(Type.String()),
  synonyms: Type.Optional(Type.Array(Type.String())),
  examples: Type.Optional(Type.Array(Type.String())),
  other: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type AIContext = Static<typeof AIContext>;

/**
 * Dimension info of a field: `isTime` already resolved with the OSI default (temporal datatype → true).
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
export const Dimension = Type.Object({ isTime: Type.Boolean() });
export type Dimension = Static<typeof Dimension>;

/** The chosen expression (ANSI_SQL, else the first dialect) plus every dialect as written. */
const expressionParts = {
  /** Expression in `expressionDialect`: ANSI_SQL when present, else the first dialect listed. */
  expression: Type.String(),
  expressionDialect: Type.String(),
  /** All dialects, in file order. */
  dialects: Type.Array(DialectExpression),
};

/**
 * A field (row-level attribute) of a dataset.
 * `enums` come from extension data keys `enum`/`allowed_values`, `sampleValues` from `sample_values` (any vendor).
 * Source: spec/semantic-query-service.md § Resources and their fields (dataset fields).
 */
export const Field = Type.Object({
  name: Type.String(),
  ...expressionParts,
  datatype: Type.Optional(Type.String()),
  dimension: Type.Optional(Dimension),
  label: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  aiContext: Type.Optional(AIContext),
  enums: Type.Optional(Type.Array(Type.String())),
  sampleValues: Type.Optional(Type.Array(Type.String())),
  extensions: Type.Array(CustomExtension),
});
export type Field = Static<typeof Field>;

/**
 * A dataset: queried under its own name (a scoped VIEW built from `viewQuery`).
 * Source: spec/semantic-query-service.md § Resources and their fields (dataset), § What the service does (3).
 */
export const Dataset = Type.Object({
  name: Type.String(),
  /** Physical table/view or query the OSI file names; agents never see it (they query bare names). */
  source: Type.String(),
  primaryKey: Type.Optional(Type.Array(Type.String())),
  uniqueKeys: Type.Optional(Type.Array(Type.Array(Type.String()))),
  description: Type.Optional(Type.String()),
  aiContext: Type.Optional(AIContext),
  fields: Type.Array(Field),
  /** SQL of the dataset's VIEW, from a CAIRN or COMMON extension `{"view_query": …}` (CAIRN wins). */
  viewQuery: Type.Optional(Type.String()),
  extensions: Type.Array(CustomExtension),
});
export type Dataset = Static<typeof Dataset>;

/**
 * A many-to-one join: `fromColumns[i]` of `from` equals `toColumns[i]` of `to`.
 * Source: spec/semantic-query-service.md § Resources and their fields (relationships).
 */
export const Relationship = Type.Object({
  name: Type.String(),
  from: Type.String(),
  to: Type.String(),
  fromColumns: Type.Array(Type.String()),
  toColumns: Type.Array(Type.String()),
  aiContext: Type.Optional(AIContext),
  extensions: Type.Array(CustomExtension),
});
export type Relationship = Static<typeof Relationship>;

/** A metric (quantitative measure). Source: spec/semantic-query-service.md § Resources and their fields. */
export const Metric = Type.Object({
  name: Type.String(),
  ...expressionParts,
  description: Type.Optional(Type.String()),
  datatype: Type.Optional(Type.String()),
  aiContext: Type.Optional(AIContext),
  extensions: Type.Array(CustomExtension),
});
export type Metric = Static<typeof Metric>;

/**
 * A semantic model. `name` is the file name without `.yaml`/`.yml`; `declaredName` is the name inside the file.
 * Source: spec/semantic-query-service.md § Resources and their fields (semantic model).
 */
export const SemanticModel = Type.Object({
  name: Type.String(),
  declaredName: Type.String(),
  fileName: Type.String(),
  version: OsiVersion,
  description: Type.Optional(Type.String()),
  aiContext: Type.Optional(AIContext),
  datasets: Type.Array(Dataset),
  relationships: Type.Array(Relationship),
  metrics: Type.Array(Metric),
  extensions: Type.Array(CustomExtension),
});
export type SemanticModel = Static<typeof SemanticModel>;

/**
 * Something wrong with a model file: where (file; JSON pointer and/or line:column) and why, in plain words.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export const ModelProblem = Type.Object({
  file: Type.String(),
  /** Model the file defines (its base name without `.yaml`/`.yml`; the bare base name for other files). */
  model: Type.String(),
  /** JSON pointer into the document, e.g. `/semantic_model/0/datasets/2/fields/1`. */
  path: Type.Optional(Type.String()),
  /** 1-based line and column in the file, when known. */
  line: Type.Optional(Type.Integer({ minimum: 1 })),
  column: Type.Optional(Type.Integer({ minimum: 1 })),
  reason: Type.String(),
});
export type ModelProblem = Static<typeof ModelProblem>;

/**
 * Result of loading one file: the model when it has no problems, and every problem found.
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
export interface LoadedModel {
  model?: SemanticModel;
  problems: ModelProblem[];
}

/**
 * Names of the datasets that have no view_query (the model is unqueryable while this is non-empty).
 * @returns dataset names in model order; empty when every dataset is queryable
 * Source: spec/semantic-query-service.md § States and transitions (dataset without view_query), § Errors.
 */
export function datasetsWithoutViewQuery(model: Pick<SemanticModel, 'datasets'>): string[] {
  return model.datasets.filter((d) => d.viewQuery === undefined).map((d) => d.name);
}

/**
 * One-line text of a problem: `file:line:col at /path: reason` (parts omitted when unknown).
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export function formatModelProblem(problem: ModelProblem): string {
  const where = problem.line === undefined ? problem.file : `${problem.file}:${problem.line}:${problem.column ?? 1}`;
  const at = problem.path ? ` at ${problem.path}` : '';
  return `${where}${at}: ${problem.reason}`;
}
