/**
 * The six tools of a semantic project endpoint: names, descriptions, input schemas (JSON Schema via
 * TypeBox), annotations, and the output schema of the query tools.
 *
 * Source: spec/semantic-query-service.md § Tools, § Limits.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';

/** Rows per result (execute_query and execute_stored_query). */
export const maxResultRows = 1000;
/**
 * Bytes of row data per result: 4 MiB (4,194,304 bytes), the UTF-8 length of the JSON text of
 * `rows`. Reading stops at the first row that would pass it; the result is then `truncated` with a
 * `note` saying so. Keeps answers, their transport and the call log bounded whatever a row holds.
 */
export const maxResultBytes = 4 * 1024 * 1024;
/** Query timeout in milliseconds. */
export const queryTimeoutMs = 30_000;

const ModelName = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Model name (file name without .yaml), as list_semantic_models shows it.',
});

export const GetSemanticModelInput = Type.Object({
  modelName: ModelName,
  scope: Type.Optional(
    Type.Union([Type.Literal('datasets'), Type.Literal('relationships'), Type.Literal('metrics')], {
      description: 'Section to retrieve alone; omit for the overview with the first page of each section.',
    }),
  ),
  page: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Page within the scope, default 1; meaningful only with scope.' }),
  ),
}, { additionalProperties: false });

export const GetDatasetsInput = Type.Object({
  modelName: ModelName,
  datasets: Type.Array(
    Type.Object({
      name: Type.String({ minLength: 1, description: 'Dataset name.' }),
      page: Type.Optional(Type.Integer({ minimum: 1, description: "Page of this dataset's fields, default 1." })),
    }, { additionalProperties: false }),
    { minItems: 1, maxItems: 10, description: '1 to 10 datasets.' },
  ),
}, { additionalProperties: false });

export const ExecuteQueryInput = Type.Object({
  modelName: ModelName,
  sql: Type.String({
    minLength: 1,
    maxLength: 100_000,
    description:
      'One SELECT (or WITH / DESCRIBE) over bare dataset names, with positional placeholders $1, $2, … . No schema ' +
      'or catalog prefixes. EXPLAIN is not available; check a query with LIMIT 1.',
  }),
  params: Type.Optional(Type.Array(Type.String({ maxLength: 10_000 }), {
    maxItems: 100,
    description: 'Values for $1, $2, … as strings, exactly one per placeholder; default none.',
  })),
  store: Type.Optional(
    Type.Boolean({ description: 'Default true: store the query and return storedQueryId for execute_stored_query.' }),
  ),
}, { additionalProperties: false });

export const ExecuteStoredQueryInput = Type.Object({
  storedQueryId: Type.String({ minLength: 1, maxLength: 100 }),
  params: Type.Optional(
    Type.Array(Type.String({ maxLength: 10_000 }), {
      maxItems: 100,
      description: 'Overrides the stored parameter values; omit to reuse them.',
    }),
  ),
}, { additionalProperties: false });

export const RequestImprovementInput = Type.Object({
  modelName: ModelName,
  title: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ minLength: 1, maxLength: 2000 }),
}, { additionalProperties: false });

export const ListSemanticModelsInput = Type.Object({}, { additionalProperties: false });

/**
 * The result of the query tools, carried once: as the JSON text of the result's one text content item, with no
 * `structuredContent` and no `outputSchema` (docs/decisions.md D18 § 3). Text is what every MCP host hands its model
 * (several
 * hosts ignore `structuredContent`, and clients of protocol versions before 2025-06-18 do not know it), while a
 * declared `outputSchema` would oblige the server to send `structuredContent` (MCP 2025-06-18 § Tools, Structured
 * content) and so carry the rows twice. Programs read it with `JSON.parse` of the text.
 */
export const QueryOutput = Type.Object({
  columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
  rows: Type.Array(Type.Array(Type.Unknown()), {
    description: 'Rows as arrays aligned with columns, JSON values only.',
  }),
  rowCount: Type.Integer(),
  truncated: Type.Optional(
    Type.Literal(true, {
      description:
        'Present when more than 1,000 rows exist, or when the rows passed 4 MiB of JSON (then note says so).',
    }),
  ),
  note: Type.Optional(
    Type.String({ description: 'Present when the result was cut at 4 MiB of row data: says how to narrow the query.' }),
  ),
  storedQueryId: Type.Optional(Type.String()),
});
export type QueryOutput = Static<typeof QueryOutput>;

/** A tool's definition as tools/list shows it. */
export interface ToolDefinition {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: TSchema;
  outputSchema?: TSchema;
  annotations: { readOnlyHint: boolean; idempotentHint: boolean; destructiveHint: boolean; openWorldHint: boolean };
}

export type ToolName =
  | 'list_semantic_models'
  | 'get_semantic_model'
  | 'get_datasets'
  | 'execute_query'
  | 'execute_stored_query'
  | 'request_improvement';

const readOnly = { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false };

/** Every tool, in the order tools/list shows them. */
export const toolDefinitions: ToolDefinition[] = [
  {
    name: 'list_semantic_models',
    title: 'List semantic models',
    inputSchema: ListSemanticModelsInput,
    annotations: readOnly,
    description:
      'List the semantic models this token may use, with descriptions. Start here, then call get_semantic_model.',
  },
  {
    name: 'get_semantic_model',
    title: 'Get a semantic model',
    inputSchema: GetSemanticModelInput,
    annotations: readOnly,
    description:
      'Markdown digest of one model: description, instructions, datasets (with the quoted table name to use in ' +
      'SQL), relationships (which columns join which) and metrics (with expressions). Without scope: an overview ' +
      'with the first page of each section; with scope: one page of that section.',
  },
  {
    name: 'get_datasets',
    title: 'Get dataset fields',
    inputSchema: GetDatasetsInput,
    annotations: readOnly,
    description:
      'Field lists of 1 to 10 datasets of a model: data types, expressions, time dimensions, enums, examples, ' +
      'synonyms and instructions. Each dataset pages its fields independently (page, default 1).',
  },
  {
    name: 'execute_query',
    title: 'Run a read-only SQL query',
    inputSchema: ExecuteQueryInput,
    annotations: { readOnlyHint: true, idempotentHint: false, destructiveHint: false, openWorldHint: false },
    description: 'Run one read-only SQL query (DuckDB dialect) over the datasets of a model, written against bare ' +
      'dataset names (no schema or catalog prefixes), with $1, $2 … placeholders bound from params. Answers ' +
      'JSON text {columns: [{name, type}], rows: [[…]] aligned with columns, rowCount, truncated?, note?, ' +
      'storedQueryId?}: at most 1,000 rows and 4 MiB of row data (truncated: true when more exist; at the byte cap, ' +
      'note says how to narrow the query), and a storedQueryId unless store is false. Queries stop after 30 s.',
  },
  {
    name: 'execute_stored_query',
    title: 'Replay a stored query',
    inputSchema: ExecuteStoredQueryInput,
    annotations: { readOnlyHint: true, idempotentHint: true, destructiveHint: false, openWorldHint: false },
    description: 'Run a query stored by an earlier execute_query again, with new params (omit params to reuse the ' +
      'stored ones). Same JSON text answer, row cap and timeout as execute_query. A stored query expires 30 days ' +
      'after its last use, and a token keeps its 200 most recently used (16 MiB of SQL and params at most): for an ' +
      'unknown id, run execute_query again.',
  },
  {
    name: 'request_improvement',
    title: 'Request a model improvement',
    inputSchema: RequestImprovementInput,
    annotations: { readOnlyHint: false, idempotentHint: false, destructiveHint: false, openWorldHint: false },
    description: 'Tell the modellers what is missing or wrong in a model (a field, a description, a view_query, a ' +
      'metric). Title at most 200 characters, description at most 2,000; at most 20 requests per token per ' +
      '24 hours.',
  },
];
