/**
 * The Editor's side panel: the model files (each with its size, edited or new, and its problem count; a click shows
 * it), New model file (named after its model, created on Save), the files deleted on Save (each with Keep), and the
 * data files with Upload data file (with progress; saved at once, POST …/sources).
 *
 * Source: spec/semantic-query-service.md § What the service does (1–2); docs/decisions.md D9 (Editor).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import type { EditorSourcesView } from '../../../../../core/semantic/api/editor.ts';
import { modelFileNamePattern } from '../../../../../core/semantic/api/import-files.ts';
import type { SavedSourcesView, SaveSourcesBody } from '../../../../../core/semantic/api/projects.ts';
import type { ModelProblem } from '../../../../../core/semantic/model.ts';
import { api, projectPath } from '../../../api/client.ts';
import { Button, ErrorMessage, TextField, usePaged } from '../../../ui/kit.tsx';
import { keys } from '../queries.ts';
import { formatBytes, maxDataFileBytes, uploadDataFile } from './upload.ts';

/** The model files, 25 a page: size, edited or new, problem count; the current one marked. */
export function ModelFiles({ files, current, textOf, saved, changed, onSelect, problems }: { files: string[]; current?: string; textOf: (file: string) => string; saved: EditorSourcesView; changed: string[]; onSelect: (f: string) => void; problems: ModelProblem[] }) {
  const { rows, pager } = usePaged(files, 25);
  return (
    <>
      <h2 className="editor-side-title">Model files</h2>
      {files.length === 0 ? <p className="muted small">None yet.</p> : (
        <ul className="file-list">
          {rows.map((f) => {
            const count = problems.filter((p) => p.file === f).length;
            return (
              <li key={f}>
                <button type="button" className={f === current ? 'file-button active' : 'file-button'} aria-current={f === current ? 'true' : undefined} onClick={() => onSelect(f)}>
                  <code>{f}</code>
                  <span className="muted small">{formatBytes(new TextEncoder().encode(textOf(f)).length)}{changed.includes(f) ? (f in saved.models ? ' · edited' : ' · new') : ''}{count > 0 ? ` · ${count} problem${count === 1 ? '' : 's'}` : ''}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {pager}
    </>
  );
}

/** New model file: a name form (the model is named after the file); the file is created when you Save. */
export function NewModelFile({ existing, onCreate }: { existing: string[]; onCreate: (file: string) => void }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const file = /\.ya?ml$/.test(name.trim()) ? name.trim() : `${name.trim()}.yaml`;
    if (!modelFileNamePattern.test(file)) return setError('Use letters, digits, "_", "-" and "." (the name without .yaml is the model name).');
    if (existing.includes(file)) return setError(`${file} already exists: pick another name.`);
    onCreate(file);
    setName('');
    setError(undefined);
    setOpen(false);
  };
  if (!open) return <Button onClick={() => setOpen(true)}>New model file</Button>;
  return (
    <form onSubmit={submit} className="new-file" aria-label="New model file">
      <TextField label="File name" value={name} onChange={(e) => setName(e.target.value)} placeholder="orders.yaml" autoFocus required hint={error ?? 'The model is named after the file; it is saved when you Save.'} aria-invalid={error ? true : undefined} />
      <div className="actions">
        <Button kind="primary" type="submit">Create file</Button>
        <Button onClick={() => { setOpen(false); setError(undefined); }}>Cancel</Button>
      </div>
    </form>
  );
}

/** The saved files deleted when you save, each with Keep; nothing when none. */
export function DeletedFiles({ deleted, onKeep }: { deleted: string[]; onKeep: (file: string) => void }) {
  if (deleted.length === 0) return null;
  return (
    <div className="small">
      <p className="muted">Deleted when you save:</p>
      <ul className="file-list">{deleted.map((f) => <li key={f}><code>{f}</code> <Button kind="link" onClick={() => onKeep(f)} aria-label={`Keep ${f}`}>Keep</Button></li>)}</ul>
    </div>
  );
}

/** The data files, 10 a page, and Upload data file (at most 20 MiB; saved at once, with progress). */
export function DataFiles({ slug, saved, onSaved }: { slug: string; saved: EditorSourcesView; onSaved: (revision: number) => void }) {
  const queries = useQueryClient();
  const input = useRef<HTMLInputElement>(null);
  const [progress, setProgress] = useState<{ name: string; sent: number; total: number }>();
  const { rows, pager } = usePaged(saved.data, 10);
  const upload = useMutation({
    mutationFn: async (file: File) => {
      if (file.size > maxDataFileBytes) throw new Error(`${file.name} is ${formatBytes(file.size)}; the upload limit is 20 MiB per file. Split it or convert it to Parquet.`);
      setProgress({ name: file.name, sent: 0, total: file.size });
      const stored = await uploadDataFile(slug, file.name, file, (sent, total) => setProgress({ name: file.name, sent, total }));
      const body: SaveSourcesBody = { models: {}, data: [{ name: stored.name, sha256: stored.sha256 }], message: `Upload data file ${stored.name} in the web editor` };
      return api<SavedSourcesView>(projectPath(slug, '/sources'), { body });
    },
    onSuccess: async (result) => {
      onSaved(result.revision);
      await queries.invalidateQueries({ queryKey: keys.project(slug) });
    },
    onSettled: () => setProgress(undefined),
  });
  return (
    <>
      <h2 className="editor-side-title">Data files</h2>
      {saved.data.length === 0 ? <p className="muted small">None yet.</p> : (
        <ul className="file-list">{rows.map((d) => <li key={d.name} className="data-file"><code>{d.name}</code> <span className="muted small">{formatBytes(d.size)}</span></li>)}</ul>
      )}
      {pager}
      <input ref={input} type="file" hidden aria-label="Data file to upload" accept=".parquet,.csv,.tsv,.json,.jsonl,.ndjson,.duckdb"
        onChange={(e) => { const file = e.target.files?.[0]; e.target.value = ''; if (file) upload.mutate(file); }} />
      <Button onClick={() => input.current?.click()} busy={upload.isPending}>Upload data file</Button>
      {progress ? (
        <div className="upload-progress">
          <label className="small">Uploading {progress.name}: {formatBytes(progress.sent)} of {formatBytes(progress.total)}
            <progress max={progress.total || 1} value={progress.sent} />
          </label>
        </div>
      ) : null}
      {upload.isError ? <ErrorMessage error={upload.error} title="The data file was not uploaded" retry={() => input.current?.click()} /> : null}
    </>
  );
}
