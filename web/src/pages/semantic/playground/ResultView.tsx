/**
 * A tool result as the agent gets it: for execute_query the columns and rows as a table captioned "Result",
 * the row count and a clear "truncated" notice when the tool says so; a tool error verbatim in an alert;
 * and the raw result (text and structuredContent) behind a disclosure. The query tools answer their result as
 * JSON text (no structuredContent), read with {@link queryOutputOf}.
 *
 * Source: spec/semantic-query-service.md § Tools (execute_query), § Errors, § Limits; docs/decisions.md D9.
 */
import { useMemo } from 'react';
import { usePaged } from '../../../ui/kit.tsx';
import { queryOutputOf, type ToolCallResult } from './mcp.ts';

/** Rows of the result table per page. */
const rowsPerPage = 50;

/** The raw result: the text the agent reads and the structured content, pretty-printed. */
export function RawResult({ result }: { result: ToolCallResult }) {
  return (
    <details className="pg-raw">
      <summary>Raw tool result (what the agent receives)</summary>
      <h4>Text</h4>
      <pre className="pg-pre">{result.text || '(no text)'}</pre>
      <h4>structuredContent</h4>
      <pre className="pg-pre">{result.structuredContent === undefined ? '(none)' : JSON.stringify(result.structuredContent, null, 2)}</pre>
      <h4>Whole result</h4>
      <pre className="pg-pre">{JSON.stringify(result.raw, null, 2)}</pre>
    </details>
  );
}

/** A tool error, verbatim. */
export function ToolError({ result }: { result: ToolCallResult }) {
  return (
    <div className="error-box" role="alert">
      <strong>The tool answered an error (the agent reads exactly this text)</strong>
      <pre className="pg-pre">{result.text}</pre>
    </div>
  );
}

function cell(value: unknown): string {
  if (value === null) return 'NULL';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** execute_query's answer: table, row count, truncation, raw view. */
export function QueryResultView({ result }: { result: ToolCallResult }) {
  const output = useMemo(() => queryOutputOf(result), [result]);
  const rows = output?.rows ?? [];
  const { rows: pageRows, pager } = usePaged(rows, rowsPerPage);
  if (result.isError) return <><ToolError result={result} /><RawResult result={result} /></>;
  if (!output || !Array.isArray(output.columns)) return <><pre className="pg-pre">{result.text}</pre><RawResult result={result} /></>;
  return (
    <div>
      <p className="pg-summary">
        <span className="badge badge-ok">{output.rowCount ?? rows.length} row{(output.rowCount ?? rows.length) === 1 ? '' : 's'}</span>
        {output.truncated ? <span className="badge badge-warn" role="status">truncated: more rows exist than were returned (truncated: true)</span> : null}
        {output.storedQueryId ? <span className="muted small">storedQueryId <code>{output.storedQueryId}</code></span> : null}
      </p>
      {output.note ? <p className="notice">{output.note}</p> : null}
      <div className="table-wrap">
        <table className="pg-table">
          <caption>Result</caption>
          <thead><tr>{output.columns.map((c, i) => <th key={i} scope="col">{c.name}<span className="muted small"> {c.type}</span></th>)}</tr></thead>
          <tbody>
            {pageRows.length === 0 ? <tr><td colSpan={Math.max(1, output.columns.length)} className="muted">No rows.</td></tr> : null}
            {pageRows.map((row, r) => <tr key={r}>{row.map((v, c) => <td key={c} className={v === null ? 'muted' : undefined}>{cell(v)}</td>)}</tr>)}
          </tbody>
        </table>
      </div>
      {pager}
      <RawResult result={result} />
    </div>
  );
}
