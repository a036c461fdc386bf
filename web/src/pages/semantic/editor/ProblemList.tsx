/**
 * The Editor's Problems panel: the validation problems of the current texts (file, line:column, path and reason),
 * 20 a page; a problem is a button that moves the caret to its line.
 *
 * Source: docs/decisions.md D9 (Editor: YAML edited with validation problems shown inline; a problem moves the caret to
 * its line).
 */
import type { ModelProblem } from '../../../../../core/semantic/model.ts';
import { ErrorMessage, Loading, usePaged } from '../../../ui/kit.tsx';
import type { Validation } from './validation.ts';

/** The problems of `problems` (checking…, or their count), each a button calling `onGo`. */
export function ProblemList({ problems, onGo }: { problems: Validation; onGo: (p: ModelProblem) => void }) {
  const list = problems.data ?? [];
  const { rows, pager } = usePaged(list, 20);
  return (
    <section className="editor-problems" aria-label="Problems">
      <h2 className="editor-side-title">Problems {problems.isFetching ? <span className="muted small">(checking…)</span> : <span className="muted small">({list.length})</span>}</h2>
      {problems.isError ? <ErrorMessage error={problems.error} title="The files could not be checked" retry={() => void problems.refetch()} /> : null}
      {problems.isPending ? <Loading what="Checking the files" /> : list.length === 0 ? <p className="muted small" role="status">No problems: Publish would accept these files.</p> : (
        <ul className="problem-list">
          {rows.map((p, i) => (
            <li key={`${p.file}:${p.line}:${p.column}:${p.path}:${i}`}>
              <button type="button" className="problem-button" onClick={() => onGo(p)}>
                <span className="problem-where"><code>{p.file}</code>{p.line !== undefined ? `:${p.line}:${p.column ?? 1}` : ''}</span>
                {p.path ? <span className="problem-path muted small"><code>{p.path}</code></span> : null}
                <span className="problem-reason">{p.reason}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {pager}
    </section>
  );
}
