/**
 * The Design tab's right-hand side: the draft's files (a list, and the chosen file's text read-only) and the
 * unpublished changes, each changed file as a line diff against the published build (added lines green, removed
 * red, long unchanged stretches folded; jsdiff's `diffLines`), with Publish (the Overview's queued operation,
 * ./operations.ts) enabled while there is something to publish. The operation's status shows until it ends; a refused
 * publish lists the validator's problems.
 *
 * Source: issue "The design agent" § Front doors (a diff of unpublished changes, Publish); docs/decisions.md D21.
 */
import { diffLines } from 'diff';
import { useState } from 'react';
import { Button, ErrorMessage, Loading } from '../../../ui/kit.tsx';
import { type DraftChangedFile, useDraftChanges, useDraftFiles } from './design-queries.ts';
import { OperationStatus } from './EnvironmentOverview.tsx';
import { useEnvironmentOperation } from './operations.ts';

/** The files and changes panels of `env` of `agent`. */
export function DesignFiles({ agent, env }: { agent: string; env: string }) {
  return (
    <div className="design-side">
      <DraftFiles agent={agent} env={env} />
      <Changes agent={agent} env={env} />
    </div>
  );
}

/** The draft's files: pick one to read it. */
function DraftFiles({ agent, env }: { agent: string; env: string }) {
  const files = useDraftFiles(agent, env);
  const [chosen, setChosen] = useState<string | undefined>();
  const list = files.data ?? [];
  const shown = list.find((f) => f.path === chosen) ?? list.find((f) => f.path.endsWith('workflow.yaml')) ?? list[0];
  return (
    <section className="card design-files" aria-labelledby="draft-files-heading">
      <h2 id="draft-files-heading">Draft files</h2>
      {files.isPending ? <Loading what="Loading the draft’s files" />
        : files.isError ? <ErrorMessage error={files.error} retry={() => void files.refetch()} />
        : list.length === 0 ? <p className="empty">The draft has no files yet.</p>
        : (
          <>
            <ul className="design-file-list" aria-label="Files of the draft">
              {list.map((f) => (
                <li key={f.path}>
                  <Button
                    className="design-file" aria-pressed={f.path === shown?.path} onClick={() => setChosen(f.path)}
                  >{f.path}</Button>
                </li>
              ))}
            </ul>
            {shown ? (
              <figure className="design-viewer">
                <figcaption className="small muted">
                  <code>{shown.path}</code> · read-only
                </figcaption>
                <pre aria-label={`Contents of ${shown.path}`}>{shown.text}</pre>
              </figure>
            ) : null}
          </>
        )}
    </section>
  );
}

/** What a publish would change, and Publish. */
function Changes({ agent, env }: { agent: string; env: string }) {
  const changes = useDraftChanges(agent, env);
  const { ask, opId, operation, op, running } = useEnvironmentOperation(agent, env);
  const files = changes.data?.files ?? [];
  const nothing = changes.data !== undefined && files.length === 0;
  // A publish that succeeded is no news once the draft moved on from what it published.
  const outdated = op?.status === 'succeeded' && changes.data !== undefined
    && op.result?.published?.commitId !== changes.data.draftCommit;
  return (
    <section className="card design-changes" aria-labelledby="changes-heading">
      <div className="design-changes-head">
        <h2 id="changes-heading">Unpublished changes</h2>
        <Button kind="primary" onClick={() => ask.mutate({ kind: 'publish' })} busy={running}
          disabled={running || files.length === 0}>Publish</Button>
      </div>
      {ask.isError ? <ErrorMessage error={ask.error} title="The publish was not queued" /> : null}
      {opId !== null && !outdated ? (operation.isError
        ? <ErrorMessage error={operation.error} retry={() => void operation.refetch()} title="Could not read it" />
        : op ? <OperationStatus op={op} /> : <Loading what="Queued" />) : null}
      {changes.isPending ? <Loading what="Loading the unpublished changes" />
        : changes.isError ? <ErrorMessage error={changes.error} retry={() => void changes.refetch()} />
        : nothing ? (
          <p className="empty">
            No unpublished changes: the draft is {changes.data.publishedBuildId ? 'what is published' : 'empty'}.
          </p>
        ) : (
          <>
            <p className="small muted">
              {changes.data.publishedBuildId
                ? <>Against the published build <code>{changes.data.publishedBuildId.slice(0, 12)}</code>.</>
                : 'Nothing is published yet: every file is new.'}
              {' '}{files.length} file{files.length === 1 ? '' : 's'} changed.
            </p>
            <ul className="design-diffs" aria-label="Changed files">
              {files.map((f) => <FileDiff key={f.path} file={f} />)}
            </ul>
          </>
        )}
    </section>
  );
}

const statusText = { added: 'added', changed: 'changed', deleted: 'deleted' } as const;

/** One changed file: its path, added/changed/deleted, and its lines. */
function FileDiff({ file }: { file: DraftChangedFile }) {
  const lines = diffRows(file.published ?? '', file.draft ?? '');
  const added = lines.filter((l) => l.kind === 'add').length;
  const removed = lines.filter((l) => l.kind === 'del').length;
  return (
    <li className="design-diff">
      <p className="design-diff-head">
        <code>{file.path}</code> <span className={`badge diff-status-${file.status}`}>{statusText[file.status]}</span>
        {' '}<span className="small muted">+{added} −{removed}</span>
      </p>
      <pre className="diff" aria-label={`Line changes of ${file.path}`}>
        {lines.map((l, i) => l.kind === 'fold'
          ? <span key={i} className="diff-line diff-fold">{`… ${l.text}\n`}</span>
          : <span key={i} className={`diff-line diff-${l.kind}`}>{`${sign[l.kind]} ${l.text}\n`}</span>)}
      </pre>
    </li>
  );
}

const sign = { add: '+', del: '−', same: ' ' } as const;

/** A row of a diff: a line added, removed or kept, or a fold of kept lines. */
type DiffRow = { kind: 'add' | 'del' | 'same'; text: string } | { kind: 'fold'; text: string };

/** Unchanged lines shown around each change; longer unchanged stretches fold. */
const contextLines = 3;

/** The line diff of `before` → `after`, unchanged stretches longer than twice the context folded. */
export function diffRows(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  const parts = diffLines(before, after);
  parts.forEach((part, index) => {
    const lines = part.value.replace(/\n$/, '').split('\n');
    if (part.added || part.removed) {
      for (const text of lines) rows.push({ kind: part.added ? 'add' : 'del', text });
      return;
    }
    const head = index === 0 ? 0 : contextLines;
    const tail = index === parts.length - 1 ? 0 : contextLines;
    if (lines.length <= head + tail + 1) {
      for (const text of lines) rows.push({ kind: 'same', text });
      return;
    }
    for (const text of lines.slice(0, head)) rows.push({ kind: 'same', text });
    const folded = lines.length - head - tail;
    rows.push({ kind: 'fold', text: `${folded} unchanged line${folded === 1 ? '' : 's'}` });
    for (const text of lines.slice(lines.length - tail)) rows.push({ kind: 'same', text });
  });
  return rows;
}
