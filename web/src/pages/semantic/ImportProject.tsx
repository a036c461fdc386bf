/**
 * Import a project directory from the browser: a slug and name (and the organization, for a member of several),
 * files dropped onto a drop zone (folders walked
 * with DataTransferItem.webkitGetAsEntry) or picked ("Choose a folder", "Choose files"), each shown as a model
 * file, a data file or ignored (the CLI's rule: core/semantic/api/import-files.ts `classifyImportPath`). Import
 * creates the project (POST /api/semantic/projects), uploads each data file with a progress bar
 * (PUT …/blobs/:name, which answers the SHA-256), saves every file (POST …/sources with replace), then opens the
 * Editor. A failed step says what was already done and offers to retry from that step.
 *
 * Source: spec/semantic-query-service.md § What the service does (2); docs/decisions.md D9 (Projects: import a project directory).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState, type DragEvent, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { Button, ErrorMessage, TextField, usePaged } from '../../ui/kit.tsx';
import { keys } from './queries.ts';
import { useOrganizationChoice } from './OrganizationChoice.tsx';
import { formatBytes } from './editor/upload.ts';
import { classifyAll, failureAdvice, runImport, walk, type Chosen, type PickedFile, type Run } from './import-run.ts';
import './editor/editor.css';

/** The import form; `onDone` closes it. */
export function ImportProject({ onDone }: { onDone: () => void }) {
  const form = useImportProject(onDone);
  const { run, running } = form;
  const created = run.createdSlug;
  return (
    <form className="card import-project" onSubmit={form.submit} aria-label="Import project directory">
      <h2>Import project directory</h2>
      <p className="muted small">A project directory holds model files in <code>models/</code> (<code>*.yaml</code>) and data files in <code>data/</code> (Parquet, CSV, TSV, JSON, NDJSON or DuckDB, at most 20 MiB each), as <code>cairn semantic import</code> reads it.</p>
      <div className="field-row">
        <TextField label="Slug" value={form.slug} onChange={(e) => form.setSlug(e.target.value)} required pattern="[a-z0-9][a-z0-9\-]{0,62}" hint="Lower-case letters, digits and dashes; it appears in the MCP endpoint's URL." disabled={running} />
        <TextField label="Name (optional)" value={form.name} onChange={(e) => form.setName(e.target.value)} maxLength={200} disabled={running} />
        {form.org.field}
      </div>
      <DropZone running={running} onAdd={form.add} onError={form.setFormError} />
      <ChosenFiles chosen={form.chosen} running={running} onClear={form.clear} />
      {form.formError ? <p className="error-box" role="alert">{form.formError}</p> : null}
      <ImportSteps run={run} data={form.data} />
      <ImportFailure run={run} onDone={onDone} />
      <div className="actions">
        <Button kind="primary" type="submit" busy={running}>{run.failed ? 'Retry the import' : 'Import'}</Button>
        <Button onClick={onDone} disabled={running}>{created ? 'Close' : 'Cancel'}</Button>
      </div>
    </form>
  );
}

/** The form's state (slug, name, organization, chosen files, the run) and what its controls do. */
function useImportProject(onDone: () => void) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [files, setFiles] = useState<PickedFile[]>([]);
  const [formError, setFormError] = useState<string>();
  const [run, setRun] = useState<Run>({ uploaded: {} });
  const running = run.doing !== undefined;
  const org = useOrganizationChoice(running);
  const chosen = classifyAll(files);
  const models = chosen.filter((c) => c.kind === 'model');
  const data = chosen.filter((c) => c.kind === 'data');

  const add = (more: PickedFile[]) => {
    setFormError(undefined);
    setFiles((old) => [...old.filter((o) => !more.some((m) => m.path === o.path)), ...more]);
  };
  const start = async () => {
    const target = slug.trim();
    const onCreated = () => void queries.invalidateQueries({ queryKey: keys.projects });
    let saved: Awaited<ReturnType<typeof runImport>>;
    try {
      saved = await runImport({ target, name, orgId: org.orgId, models, data, setRun, onCreated }, run);
    } catch {
      // The failed step is shown with a retry (run.failed).
      return;
    }
    setRun({ uploaded: {} });
    void queries.invalidateQueries({ queryKey: keys.projects });
    void queries.invalidateQueries({ queryKey: keys.project(target) });
    if (saved) { onDone(); navigate(`/projects/${target}/editor`); }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (models.length === 0) return setFormError('Choose at least one model file (.yaml): a project directory holds models/*.yaml and data/*.');
    setFormError(undefined);
    void start();
  };
  const clear = () => setFiles([]);
  return { slug, setSlug, name, setName, org, chosen, data, add, clear, formError, setFormError, run, running, submit };
}

/** The drop zone (a dropped folder is walked) and the two pickers, "Choose a folder" and "Choose files". */
function DropZone({ running, onAdd, onError }: {
  running: boolean; onAdd: (more: PickedFile[]) => void; onError: (message: string) => void;
}) {
  const [over, setOver] = useState(false);
  const [reading, setReading] = useState(false);
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    // Entries must be taken while the drop event runs; walking them is asynchronous.
    const entries = Array.from(event.dataTransfer.items).map((item) => item.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => Boolean(e));
    if (entries.length === 0) return onAdd(Array.from(event.dataTransfer.files).map((file) => ({ path: file.name, file })));
    setReading(true);
    Promise.all(entries.map(walk)).then((found) => onAdd(found.flat()), (error: unknown) => onError(`The dropped files could not be read (${error instanceof Error ? error.message : String(error)}). Try Choose a folder instead.`)).finally(() => setReading(false));
  };
  return (
    <div className={over ? 'drop-zone over' : 'drop-zone'} role="group" aria-label="Drop zone"
      onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)} onDrop={drop}>
      <p>Drag a project folder or files here, or:</p>
      <div className="pickers">
        <label>Choose a folder
          <input type="file" multiple {...{ webkitdirectory: '' }} disabled={running}
            onChange={(e) => { onAdd(Array.from(e.target.files ?? []).map((file) => ({ path: file.webkitRelativePath || file.name, file }))); e.target.value = ''; }} />
        </label>
        <label>Choose files
          <input type="file" multiple disabled={running}
            onChange={(e) => { onAdd(Array.from(e.target.files ?? []).map((file) => ({ path: file.name, file }))); e.target.value = ''; }} />
        </label>
      </div>
      {reading ? <p role="status">Reading the dropped folder…</p> : null}
    </div>
  );
}

/** The chosen files counted and listed (20 a page) with what each counts as, and Clear; nothing when none. */
function ChosenFiles({ chosen, running, onClear }: { chosen: Chosen[]; running: boolean; onClear: () => void }) {
  const { rows, pager } = usePaged(chosen, 20);
  if (chosen.length === 0) return null;
  const models = chosen.filter((c) => c.kind === 'model');
  const data = chosen.filter((c) => c.kind === 'data');
  return (
    <>
      <p role="status"><strong>{models.length}</strong> model file{models.length === 1 ? '' : 's'}, <strong>{data.length}</strong> data file{data.length === 1 ? '' : 's'} ({formatBytes(data.reduce((n, d) => n + d.file.size, 0))}), {chosen.length - models.length - data.length} ignored.</p>
      <div className="table-wrap">
        <table>
          <thead><tr><th scope="col">File</th><th scope="col">Counts as</th><th scope="col">Size</th></tr></thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.path}>
                <td><code>{c.path}</code></td>
                <td className={`kind-${c.kind}`}>{c.kind === 'model' ? `model ${c.name.replace(/\.ya?ml$/, '')}` : c.kind === 'data' ? 'data file' : `ignored: ${c.reason}`}</td>
                <td>{formatBytes(c.file.size)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {pager}
      <Button onClick={onClear} disabled={running}>Clear the chosen files</Button>
    </>
  );
}

/** The import's steps and where each stands (an upload with its progress bar), once an import began. */
function ImportSteps({ run, data }: { run: Run; data: Chosen[] }) {
  const created = run.createdSlug;
  if (!(run.doing !== undefined || created || Object.keys(run.uploaded).length > 0)) return null;
  return (
    <ol className="import-steps" aria-label="Import steps">
      <li>{created ? `Project ${created} created.` : 'Create the project.'}</li>
      {data.map((d) => (
        <li key={d.name}>
          {run.uploaded[d.name] ? `${d.name} uploaded.` : run.progress?.name === d.name ? (
            <label>Uploading {d.name}: {formatBytes(run.progress.sent)} of {formatBytes(run.progress.total)}<progress max={run.progress.total || 1} value={run.progress.sent} /></label>
          ) : `Upload ${d.name} (${formatBytes(d.file.size)}).`}
        </li>
      ))}
      <li>{run.doing === 'Saving the files' ? 'Saving the files…' : 'Save the files.'}</li>
    </ol>
  );
}

/** A failed step: the error, what was already done, and a link to the project when it was created. */
function ImportFailure({ run, onDone }: { run: Run; onDone: () => void }) {
  const created = run.createdSlug;
  if (!run.failed) return null;
  return (
    <div>
      <ErrorMessage error={run.failed.error} title={`${run.failed.step} failed`} />
      <p>{failureAdvice(run.failed.error, created, Object.keys(run.uploaded))}</p>
      {created ? <p><Link href={`/projects/${created}/editor`} onClick={onDone}>Open project {created} as it is</Link></p> : null}
    </div>
  );
}
