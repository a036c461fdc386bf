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
import { useRef, useState, type DragEvent, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { classifyImportPath, type ClassifiedFile } from '../../../../core/semantic/api/import-files.ts';
import type { CreateProjectBody, ProjectView, SavedSourcesView, SaveSourcesBody } from '../../../../core/semantic/api/projects.ts';
import { api, ApiError, projectPath } from '../../api/client.ts';
import { Button, ErrorMessage, TextField, usePaged } from '../../ui/kit.tsx';
import { keys } from './queries.ts';
import { useOrganizationChoice } from './OrganizationChoice.tsx';
import { formatBytes, maxDataFileBytes, uploadDataFile } from './editor/upload.ts';
import './editor/editor.css';

/** A chosen file: its path relative to what was chosen, the file, and what it counts as. */
interface Chosen extends ClassifiedFile { path: string; file: File }

/** Where an import stands: what was done (kept for a retry) and what is happening or failed. */
interface Run {
  createdSlug?: string;
  /** Data file name → SHA-256 answered by the upload. */
  uploaded: Record<string, string>;
  doing?: string;
  progress?: { name: string; sent: number; total: number };
  failed?: { step: string; error: unknown };
}

/** Classifies `files` (path, file) in order; a later file with the name of an earlier one of its kind is ignored. */
function classifyAll(files: { path: string; file: File }[]): Chosen[] {
  const seen = new Map<string, string>();
  return files.map(({ path, file }) => {
    const classified = classifyImportPath(path);
    if (classified.kind === 'ignored') return { ...classified, path, file };
    const key = `${classified.kind}:${classified.name}`;
    const earlier = seen.get(key);
    if (earlier !== undefined) return { kind: 'ignored', name: classified.name, reason: `same name as ${earlier}`, path, file };
    if (classified.kind === 'data' && file.size > maxDataFileBytes) return { kind: 'ignored', name: classified.name, reason: `${formatBytes(file.size)} is over the 20 MiB upload limit: split it or convert it to Parquet`, path, file };
    seen.set(key, path);
    return { ...classified, path, file };
  });
}

/** The import form; `onDone` closes it. */
export function ImportProject({ onDone }: { onDone: () => void }) {
  const queries = useQueryClient();
  const [, navigate] = useLocation();
  const [slug, setSlug] = useState('');
  const [name, setName] = useState('');
  const [files, setFiles] = useState<{ path: string; file: File }[]>([]);
  const [over, setOver] = useState(false);
  const [reading, setReading] = useState(false);
  const [formError, setFormError] = useState<string>();
  const [run, setRun] = useState<Run>({ uploaded: {} });
  const running = run.doing !== undefined;
  const org = useOrganizationChoice(running);
  const chosen = classifyAll(files);
  const models = chosen.filter((c) => c.kind === 'model');
  const data = chosen.filter((c) => c.kind === 'data');
  const { rows, pager } = usePaged(chosen, 20);

  const add = (more: { path: string; file: File }[]) => {
    setFormError(undefined);
    setFiles((old) => [...old.filter((o) => !more.some((m) => m.path === o.path)), ...more]);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setOver(false);
    // Entries must be taken while the drop event runs; walking them is asynchronous.
    const entries = Array.from(event.dataTransfer.items).map((item) => item.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => Boolean(e));
    if (entries.length === 0) return add(Array.from(event.dataTransfer.files).map((file) => ({ path: file.name, file })));
    setReading(true);
    Promise.all(entries.map(walk)).then((found) => add(found.flat()), (error: unknown) => setFormError(`The dropped files could not be read (${error instanceof Error ? error.message : String(error)}). Try Choose a folder instead.`)).finally(() => setReading(false));
  };

  const step = async (label: string, work: () => Promise<void>) => {
    setRun((r) => ({ ...r, doing: label, failed: undefined }));
    try {
      await work();
    } catch (error) {
      setRun((r) => ({ ...r, doing: undefined, progress: undefined, failed: { step: label, error } }));
      throw error;
    }
  };

  const start = async () => {
    const target = slug.trim();
    let state = run.createdSlug === target ? run : { uploaded: {} } as Run;
    try {
      if (state.createdSlug !== target) {
        await step(`Creating project ${target}`, async () => {
          const orgId = org.orgId ? { orgId: org.orgId } : {};
          const body: CreateProjectBody = { slug: target, ...orgId, ...(name.trim() ? { name: name.trim() } : {}) };
          await api<ProjectView>('/api/semantic/projects', { body });
        });
        state = { ...state, createdSlug: target, uploaded: {} };
        setRun(state);
        void queries.invalidateQueries({ queryKey: keys.projects });
      }
      for (const d of data) {
        if (state.uploaded[d.name]) continue;
        await step(`Uploading ${d.name}`, async () => {
          const stored = await uploadDataFile(target, d.name, d.file, (sent, total) => setRun((r) => ({ ...r, progress: { name: d.name, sent, total } })));
          state = { ...state, uploaded: { ...state.uploaded, [d.name]: stored.sha256 } };
          setRun((r) => ({ ...r, uploaded: state.uploaded, progress: undefined }));
        });
      }
      let saved: SavedSourcesView | undefined;
      await step('Saving the files', async () => {
        const texts = await Promise.all(models.map(async (m) => [m.name, await m.file.text()] as const));
        const body: SaveSourcesBody = { models: Object.fromEntries(texts), data: data.map((d) => ({ name: d.name, sha256: state.uploaded[d.name] })), replace: true, message: 'Import from the web app' };
        saved = await api<SavedSourcesView>(projectPath(target, '/sources'), { body });
      });
      setRun({ uploaded: {} });
      void queries.invalidateQueries({ queryKey: keys.projects });
      void queries.invalidateQueries({ queryKey: keys.project(target) });
      if (saved) { onDone(); navigate(`/projects/${target}/editor`); }
    } catch {
      // The failed step is shown with a retry (run.failed).
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (models.length === 0) return setFormError('Choose at least one model file (.yaml): a project directory holds models/*.yaml and data/*.');
    setFormError(undefined);
    void start();
  };

  const created = run.createdSlug;
  return (
    <form className="card import-project" onSubmit={submit} aria-label="Import project directory">
      <h2>Import project directory</h2>
      <p className="muted small">A project directory holds model files in <code>models/</code> (<code>*.yaml</code>) and data files in <code>data/</code> (Parquet, CSV, TSV, JSON, NDJSON or DuckDB, at most 20 MiB each), as <code>cairn semantic import</code> reads it.</p>
      <div className="field-row">
        <TextField label="Slug" value={slug} onChange={(e) => setSlug(e.target.value)} required pattern="[a-z0-9][a-z0-9\-]{0,62}" hint="Lower-case letters, digits and dashes; it appears in the MCP endpoint's URL." disabled={running} />
        <TextField label="Name (optional)" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} disabled={running} />
        {org.field}
      </div>
      <div className={over ? 'drop-zone over' : 'drop-zone'} role="group" aria-label="Drop zone"
        onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)} onDrop={drop}>
        <p>Drag a project folder or files here, or:</p>
        <div className="pickers">
          <label>Choose a folder
            <input type="file" multiple {...{ webkitdirectory: '' }} disabled={running}
              onChange={(e) => { add(Array.from(e.target.files ?? []).map((file) => ({ path: file.webkitRelativePath || file.name, file }))); e.target.value = ''; }} />
          </label>
          <label>Choose files
            <input type="file" multiple disabled={running}
              onChange={(e) => { add(Array.from(e.target.files ?? []).map((file) => ({ path: file.name, file }))); e.target.value = ''; }} />
          </label>
        </div>
        {reading ? <p role="status">Reading the dropped folder…</p> : null}
      </div>
      {chosen.length > 0 ? (
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
          <Button onClick={() => setFiles([])} disabled={running}>Clear the chosen files</Button>
        </>
      ) : null}
      {formError ? <p className="error-box" role="alert">{formError}</p> : null}
      {running || created || Object.keys(run.uploaded).length > 0 ? (
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
      ) : null}
      {run.failed ? (
        <div>
          <ErrorMessage error={run.failed.error} title={`${run.failed.step} failed`} />
          <p>{failureAdvice(run.failed.error, created, Object.keys(run.uploaded))}</p>
          {created ? <p><Link href={`/projects/${created}/editor`} onClick={onDone}>Open project {created} as it is</Link></p> : null}
        </div>
      ) : null}
      <div className="actions">
        <Button kind="primary" type="submit" busy={running}>{run.failed ? 'Retry the import' : 'Import'}</Button>
        <Button onClick={onDone} disabled={running}>{created ? 'Close' : 'Cancel'}</Button>
      </div>
    </form>
  );
}

/** What a failed import leaves behind and what to do next. */
function failureAdvice(error: unknown, created: string | undefined, uploaded: string[]): string {
  if (!created) {
    if (error instanceof ApiError && error.code === 'conflict') return 'Nothing was created: a project with this slug exists. Choose another slug and import again.';
    return 'Nothing was created. Fix what the message says and import again.';
  }
  const files = uploaded.length > 0 ? ` and ${uploaded.length} data file${uploaded.length === 1 ? '' : 's'} (${uploaded.join(', ')}) uploaded` : '';
  return `Project ${created} was created${files}, but its files are not saved yet. Retry the import to continue from the failed step (nothing is created twice), or open the project and add files in the Editor.`;
}

/** Every file under a dropped entry, with its path (no leading slash). */
async function walk(entry: FileSystemEntry): Promise<{ path: string; file: File }[]> {
  if (entry.isFile) {
    const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
    return [{ path: entry.fullPath.replace(/^\/+/, ''), file }];
  }
  if (!entry.isDirectory) return [];
  const reader = (entry as FileSystemDirectoryEntry).createReader();
  const children: FileSystemEntry[] = [];
  // readEntries answers at most about 100 entries per call: read until it answers none.
  for (;;) {
    const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) break;
    children.push(...batch);
  }
  return (await Promise.all(children.map(walk))).flat();
}
