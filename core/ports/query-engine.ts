/**
 * Query engine port for the semantic service: parses SQL with the engine's own parser and runs
 * validated queries against a project's data through per-model scoped views (DuckDB).
 *
 * Source: spec/semantic-query-service.md § What the service does (3, 4), § Query validation, § Limits.
 */
export interface QueryEngine {
  /**
   * Parses `sql` with the engine's parser (DuckDB `json_serialize_sql`, SQL bound as a parameter).
   * @param partition - whose parse this is (the semantic project's id): a remembered parse serves only the same
   *   partition, so one project cannot time whether another parsed a text recently (docs/decisions.md D18 § 6); default
   * ''
   * @returns ok with the serialised statement list, or ok: false with the parser's text verbatim
   */
  parse(sql: string, partition?: string): Promise<ParseOutcome>;
  /**
   * Materialises the scope's rows from `views` unless the scope is already current (its name carries
   * a digest of the views: see {@link ExecuteRequest.scope}) and runs `sql` with `search_path` set to
   * the scope, isolated so that a runaway query costs only its caller. The view is a barrier: `sql`
   * sees only the rows and columns each view_query returns (the DuckDB engine materialises them into
   * a scope file; hidden rows are absent, not filtered), and ENUM columns are text, so no type names a
   * value only hidden rows hold. A new scope waits for its materialisation (seconds on millions of rows).
   * Engine text of a failing query may quote row values: only visible rows exist, so it is returned.
   * @throws PlatformError `view_materialisation_failed` naming the dataset and the engine's error
   *   class only (a view_query runs over hidden rows too, so its engine text stays in the log),
   *   `query_timeout` after `timeoutMs` (the work is stopped), `query_memory_exceeded` when the
   *   query needs more memory than its ceiling, `query_rejected` for a statement that is not a
   *   read-only SELECT, `query_invalid_params`, `query_failed` with the engine's message;
   *   `query_cancelled` once `signal` aborts (waiting: it leaves the queue; running: it is interrupted),
   *   `too_many_queries` when the caller's project or token already has as many queries waiting as allowed,
   *   `query_busy` when no query process became free, or a new scope's build did not start, within the engine's
   *   longest wait (docs/decisions.md D18 § 2, § 7)
   */
  execute(request: ExecuteRequest): Promise<QueryResult>;
  /**
   * Starts, without waiting, what a first query of `target`'s scope would wait for (the data build and
   * the scope's materialisation), so a newly published model, or one an agent reads before querying it, does not
   * keep its first query waiting for seconds. Never throws: a failure is left for `execute` to report. Optional: an
   * engine with nothing to prepare leaves it out.
   * @param owner - whose scope it is: the engine shares its builds per project and organization (absent: the
   *   preparation counts toward no share)
   *
   * Source: spec/semantic-query-service.md § What the service does (3); docs/decisions.md D18 § 7
   */
  prepareScope?(target: ScopeTarget, owner?: ScopeOwner): void;
  /** Frees every engine instance. */
  close(): Promise<void>;
}

/** Result of {@link QueryEngine.parse}: `statements` is the `statements` array of json_serialize_sql. */
export type ParseOutcome = { ok: true; statements: unknown[] } | { ok: false; message: string };

/** A project's data files as one immutable set: the `data` catalog of queries. */
export interface DataSet {
  /** Content key of the set (e.g. SHA-256 over the sorted names and file digests); equal keys mean equal data. */
  key: string;
  files: DataFile[];
}

/** One data file: `data/flights.parquet` becomes table `data.flights`. */
export interface DataFile {
  /** File name under `data/`, e.g. `flights.parquet`. */
  name: string;
  /** Object-store key holding the bytes. */
  objectKey: string;
  /** Lower-case hex SHA-256 of the bytes. */
  sha256: string;
  size: number;
}

/** One scoped view: a dataset name and the SELECT from its `view_query`. */
export interface ScopedView {
  name: string;
  sql: string;
}

/** What {@link QueryEngine.prepareScope} prepares: the data and the scope of an {@link ExecuteRequest}. */
export type ScopeTarget = Pick<ExecuteRequest, 'data' | 'scope' | 'views'>;

/** The project and organization a scope belongs to (record ids, never shown to callers). */
export interface ScopeOwner {
  projectId: string;
  orgId: string;
}

/** Input of {@link QueryEngine.execute}. */
export interface ExecuteRequest {
  data: DataSet;
  /**
   * Scope name (never shown to agents), `<family>_<digest>` where `<digest>` is 12 lower-case hex
   * digits over the views, e.g. `_scope_flights_1a2b3c4d_0123456789ab`: an unchanged name promises
   * unchanged views (materialisation is skipped), and a new digest of the same family replaces the
   * family's previous scope. A name without such a digest is a family of its own. The semantic
   * service makes one family per project, plane and model, so those never replace each other.
   */
  scope: string;
  views: ScopedView[];
  sql: string;
  /** Values for $1, $2 …; bound with the types the query needs where the engine can tell. */
  params: string[];
  /** Rows kept at most (1,000); one more is read to decide `truncated`. */
  maxRows: number;
  /**
   * Bytes of row data kept at most (4 MiB): the UTF-8 length of the JSON text of `rows`. Reading
   * stops at the first row that would pass it (`truncatedBy: 'bytes'`).
   */
  maxBytes: number;
  /** Query timeout in milliseconds (30,000); the work is interrupted, or its process killed. */
  timeoutMs: number;
  /**
   * Who runs the query: the engine's fair shares (queries running and waiting) are counted per project and per
   * token, and the scope builds a query waits for per project and per organization. Absent: the query counts toward
   * no share (tests, tools of the operator). Source: docs/decisions.md D18 § 2, § 7.
   */
  caller?: QueryCaller;
  /** Aborted when the caller has gone (its HTTP client disconnected): the query is dropped or interrupted. */
  signal?: AbortSignal;
}

/** The project and token a query runs for (record ids, never shown to callers). */
export interface QueryCaller {
  projectId: string;
  tokenId: string;
  /** The project's organization (its builds' share); absent, the build counts toward no organization's share. */
  orgId?: string;
}

/** Column of a result: name and the engine's type name (e.g. `BIGINT`, `DECIMAL(18,2)`). */
export interface ResultColumn {
  name: string;
  type: string;
}

/**
 * A query result. `rows` are arrays aligned with `columns`, holding JSON values only:
 * DECIMAL → number when exact within 2^53 else string; BIGINT/HUGEINT beyond ±2^53 → string;
 * DATE → 'YYYY-MM-DD'; TIMESTAMP → ISO-8601; LIST → array; STRUCT → object; BLOB → base64.
 */
export interface QueryResult {
  columns: ResultColumn[];
  rows: unknown[][];
  /** True only when a row beyond `maxRows` exists or the next row would pass `maxBytes`. */
  truncated: boolean;
  /** Which cap ended reading, present only when `truncated`. */
  truncatedBy?: 'rows' | 'bytes';
  /** Where the engine's milliseconds went (for `Server-Timing`; never part of a tool's output). */
  timing?: EngineTiming;
  /**
   * The rows as JSON text, when the engine wrote them already (the DuckDB engine's query process does, to count their
   * bytes): a caller that sends the rows as JSON sends this text instead of serialising `rows` again. Not enumerable
   * where present, so copies and comparisons of a result see `rows` only; a result whose `rows` are changed must not
   * keep it. Source: docs/decisions.md D18 (fixed costs of the query path).
   */
  rowsText?: RowsText;
}

/** {@link QueryResult.rowsText}: `json` is exactly `JSON.stringify(rows)`, `count` is `rows.length`. */
export interface RowsText {
  json: string;
  count: number;
}

/**
 * Milliseconds (fractional) one query spent inside the engine's query process, by phase: `prepare`
 * (search_path, prepare, bind), `run` (the engine producing rows: start and every chunk fetched),
 * `convert` (rows to JSON values and their byte count). Source: docs/decisions.md D18 "Done when" (where the
 * milliseconds go).
 */
export interface EngineTiming {
  prepare: number;
  run: number;
  convert: number;
}
