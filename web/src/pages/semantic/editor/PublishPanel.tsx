/**
 * Publish, in two steps: "Publish…" shows what changed since the last publish (GET …/changes: model files
 * with line counts and diffs, data files), then "Publish now" (POST …/publish) moves the production endpoint
 * to the saved sources and shows the published revision, or why Publish refused (422 `publish_invalid`
 * listing every problem, 422 `publish_empty`).
 *
 * Source: spec/semantic-query-service.md § States and transitions (production build: moved by Publish); docs/decisions.md D9 (Editor: Publish).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ChangesView } from '../../../../../core/semantic/api/editor.ts';
import type { PublishedView } from '../../../../../core/semantic/api/projects.ts';
import { api, ApiError, projectPath } from '../../../api/client.ts';
import { Button, ErrorMessage, Loading, usePaged } from '../../../ui/kit.tsx';
import { keys } from '../queries.ts';
import { formatBytes } from './upload.ts';

/** The changes since the last publish and the Publish now button; `unsaved` warns that unsaved edits are not published. */
export function PublishPanel({ slug, unsaved, onClose }: { slug: string; unsaved: boolean; onClose: () => void }) {
  const queries = useQueryClient();
  const changes = useQuery({ queryKey: [...keys.project(slug), 'changes'], queryFn: () => api<ChangesView>(projectPath(slug, '/changes')), staleTime: 0 });
  const publish = useMutation({
    mutationFn: () => api<PublishedView>(projectPath(slug, '/publish'), { method: 'POST' }),
    onSuccess: () => {
      void queries.invalidateQueries({ queryKey: keys.project(slug) });
      void queries.invalidateQueries({ queryKey: keys.projects });
    },
  });
  const nothing = changes.data && changes.data.models.length === 0 && changes.data.data.length === 0;
  return (
    <section className="card publish-panel" aria-labelledby="publish-title">
      <h2 id="publish-title">Publish</h2>
      {publish.isSuccess ? (
        <div className="notice" role="status">
          <p><strong>Published revision {publish.data.revision}.</strong> The production endpoint now serves it ({publish.data.models.length} model{publish.data.models.length === 1 ? '' : 's'}: {publish.data.models.join(', ')}).</p>
          <Button onClick={onClose}>Close</Button>
        </div>
      ) : (
        <>
          <p className="muted">Publish moves the production endpoint to the saved sources. The test endpoint already serves them.</p>
          {unsaved ? <p className="notice">You have unsaved changes: Publish uses the saved files only. Save first to publish them.</p> : null}
          {changes.isPending ? <Loading what="Finding what changed since the last publish" /> : changes.isError ? <ErrorMessage error={changes.error} retry={() => void changes.refetch()} title="What changed could not be read" /> : (
            <>
              <p>
                {changes.data.publishedRevision === null ? 'Nothing has been published yet: every saved file is new.' : `Changes from published revision ${changes.data.publishedRevision} to saved revision ${changes.data.sourceRevision}:`}
                {nothing ? ' nothing changed; publishing again changes nothing.' : null}
              </p>
              {changes.data.models.length > 0 ? <ModelChanges changes={changes.data.models} /> : null}
              {changes.data.data.length > 0 ? <DataChanges changes={changes.data.data} /> : null}
            </>
          )}
          {publish.isError ? <ErrorMessage error={publish.error} title="Publish was refused" /> : null}
          {publish.error instanceof ApiError && publish.error.code === 'publish_invalid' ? <p>The Problems list next to the editor shows each problem of the saved files with its line: fix them, Save, then publish again.</p> : null}
          {publish.error instanceof ApiError && publish.error.code === 'publish_empty' ? <p>Create a model file with New model file (or import a project directory), Save, then publish.</p> : null}
          <div className="actions">
            <Button kind="primary" onClick={() => publish.mutate()} busy={publish.isPending} disabled={!changes.isSuccess}>Publish now</Button>
            <Button onClick={onClose}>Cancel</Button>
          </div>
        </>
      )}
    </section>
  );
}

function ModelChanges({ changes }: { changes: ChangesView['models'] }) {
  const { rows, pager } = usePaged(changes, 10);
  return (
    <>
      <h3>Model files</h3>
      <ul className="change-list" aria-label="Model file changes">
        {rows.map((c) => (
          <li key={c.file}>
            <details>
              <summary><code>{c.file}</code> <span className={`change-${c.status}`}>{c.status}</span> <span className="muted small">+{c.added} −{c.removed} lines</span></summary>
              <pre className="diff" aria-label={`Changes of ${c.file}`}>{c.diff.split('\n').map((line, i) => <span key={i} className={line.startsWith('+') && !line.startsWith('+++') ? 'diff-add' : line.startsWith('-') && !line.startsWith('---') ? 'diff-del' : line.startsWith('@@') ? 'diff-hunk' : undefined}>{line}{'\n'}</span>)}</pre>
            </details>
          </li>
        ))}
      </ul>
      {pager}
    </>
  );
}

function DataChanges({ changes }: { changes: ChangesView['data'] }) {
  const { rows, pager } = usePaged(changes, 10);
  return (
    <>
      <h3>Data files</h3>
      <ul className="change-list" aria-label="Data file changes">
        {rows.map((c) => (
          <li key={c.name}>
            <code>{c.name}</code> <span className={`change-${c.status}`}>{c.status}</span>{' '}
            <span className="muted small">{c.status === 'removed' ? formatBytes(c.previousSize ?? 0) : c.status === 'changed' ? `${formatBytes(c.previousSize ?? 0)} → ${formatBytes(c.size ?? 0)}` : formatBytes(c.size ?? 0)}</span>
          </li>
        ))}
      </ul>
      {pager}
    </>
  );
}
