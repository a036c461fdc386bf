/**
 * Editor: a project's model files and data files. YAML is edited with the validation problems of the current
 * texts shown next to it as you type (POST …/validate: file, line:column, path and reason from the validator
 * Publish uses; a problem is a button that moves the caret to its line). Save (POST …/sources) makes the test
 * endpoint serve the files at once; Publish (PublishPanel) shows what changed since the last publish, then
 * publishes. New model file, Delete file (applied on Save), Upload data file (with progress, saved at once).
 * Leaving with unsaved changes asks first.
 *
 * Source: spec/semantic-query-service.md § What the service does (1–2), § States and transitions
 * (source files: saved → the test endpoint reflects at once; production build: moved by Publish); docs/decisions.md D9
 * (Editor).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { EditorSourcesView, ValidationView } from '../../../../core/semantic/api/editor.ts';
import { modelFileNamePattern } from '../../../../core/semantic/api/import-files.ts';
import type { SavedSourcesView, SaveSourcesBody } from '../../../../core/semantic/api/projects.ts';
import type { ModelProblem } from '../../../../core/semantic/model.ts';
import { api, projectPath } from '../../api/client.ts';
import { Button, ErrorMessage, Loading, TextField, usePaged } from '../../ui/kit.tsx';
import { PublishPanel } from './editor/PublishPanel.tsx';
import { formatBytes, maxDataFileBytes, uploadDataFile } from './editor/upload.ts';
import { YamlEditor, type YamlEditorHandle } from './editor/YamlEditor.tsx';
import { keys } from './queries.ts';
import './editor/editor.css';

/** Wait after the last keystroke before validating, ms. */
const validateDelayMs = 400;

/** Text of a new model file named `model`: a valid skeleton to fill in. */
function newModelText(model: string): string {
  return `version: "0.2.0.dev0"\nsemantic_model:\n  - name: ${model}\n    description: What this model answers.\n    datasets:\n      - name: ${model}\n        source: data.${model}\n        fields:\n          - name: id\n            expression:\n              dialects:\n                - dialect: ANSI_SQL\n                  expression: id\n`;
}

/** /projects/<slug>/editor */
export function EditorPage({ slug }: { slug: string }) {
  const sources = useQuery({ queryKey: [...keys.project(slug), 'sources'], queryFn: () => api<EditorSourcesView>(projectPath(slug, '/sources')) });
  if (sources.isPending) return <Loading what="Loading the model files" />;
  if (sources.isError) return <ErrorMessage error={sources.error} retry={() => void sources.refetch()} title="The model files could not be read" />;
  return <Editor slug={slug} saved={sources.data} />;
}

/** Unsaved edits: texts of edited or new files, and saved files deleted. */
interface Drafts { texts: Record<string, string>; deletes: string[] }

function Editor({ slug, saved }: { slug: string; saved: EditorSourcesView }) {
  const queries = useQueryClient();
  const [drafts, setDrafts] = useState<Drafts>({ texts: {}, deletes: [] });
  const savedNames = Object.keys(saved.models);
  const files = [...new Set([...savedNames, ...Object.keys(drafts.texts)])].filter((f) => !drafts.deletes.includes(f) || f in drafts.texts).sort();
  const [selected, setSelected] = useState<string | undefined>(files[0]);
  const current = selected !== undefined && files.includes(selected) ? selected : files[0];
  const textOf = (file: string) => drafts.texts[file] ?? saved.models[file] ?? '';
  const changed = Object.entries(drafts.texts).filter(([file, text]) => saved.models[file] !== text).map(([file]) => file);
  const deleted = drafts.deletes.filter((f) => f in saved.models && !(f in drafts.texts));
  const dirty = changed.length > 0 || deleted.length > 0;
  const editor = useRef<YamlEditorHandle>(null);
  const [notice, setNotice] = useState<string>();
  const [publishing, setPublishing] = useState(false);

  const problems = useValidation(slug, drafts, saved);
  useLeaveWarning(dirty);

  const save = useMutation({
    mutationFn: () => {
      const body: SaveSourcesBody = { models: Object.fromEntries(changed.map((f) => [f, drafts.texts[f]])), data: [], deletes: deleted, message: `Edit ${[...changed, ...deleted].join(', ')} in the web editor` };
      return api<SavedSourcesView>(projectPath(slug, '/sources'), { body });
    },
    onSuccess: async (result) => {
      setNotice(`Saved revision ${result.revision}. The test endpoint now serves it; Publish to move the production endpoint.`);
      await queries.invalidateQueries({ queryKey: keys.project(slug) });
      void queries.invalidateQueries({ queryKey: keys.projects });
      setDrafts({ texts: {}, deletes: [] });
    },
  });

  const edit = (file: string, text: string) => { setNotice(undefined); setDrafts((d) => ({ ...d, texts: { ...d.texts, [file]: text } })); };
  const remove = (file: string) => {
    setNotice(undefined);
    setDrafts((d) => {
      const texts = { ...d.texts };
      delete texts[file];
      return { texts, deletes: file in saved.models ? [...new Set([...d.deletes, file])] : d.deletes };
    });
  };
  const create = (file: string) => {
    setNotice(undefined);
    setDrafts((d) => ({ texts: { ...d.texts, [file]: newModelText(file.replace(/\.ya?ml$/, '')) }, deletes: d.deletes.filter((f) => f !== file) }));
    setSelected(file);
  };
  const goTo = (problem: ModelProblem) => {
    setSelected(problem.file);
    // The text area of another file mounts on the next render.
    requestAnimationFrame(() => editor.current?.goTo(problem.line ?? 1, problem.column ?? 1));
  };
  const problemLines = new Set((problems.data ?? []).filter((p) => p.file === current && p.line !== undefined).map((p) => p.line as number));

  return (
    <div className="editor-page">
      <div className="editor-toolbar actions">
        <Button kind="primary" onClick={() => save.mutate()} busy={save.isPending} disabled={!dirty}>Save</Button>
        <Button onClick={() => setPublishing(true)} aria-expanded={publishing}>Publish…</Button>
        <span className="muted small" role="status">
          {dirty ? `Unsaved: ${[...changed.map((f) => `${f}${f in saved.models ? '' : ' (new)'}`), ...deleted.map((f) => `${f} (deleted)`)].join(', ')}` : `Saved revision ${saved.revision}${saved.revision === 0 ? ' (nothing saved yet)' : ''}`}
        </span>
      </div>
      {notice ? <p className="notice" role="status">{notice}</p> : null}
      {save.isError ? <ErrorMessage error={save.error} title="Not saved" /> : null}
      {publishing ? <PublishPanel slug={slug} unsaved={dirty} onClose={() => setPublishing(false)} /> : null}
      <div className="editor-layout">
        <aside className="editor-files" aria-label="Files">
          <ModelFiles files={files} current={current} textOf={textOf} saved={saved} changed={changed} onSelect={setSelected} problems={problems.data ?? []} />
          <NewModelFile existing={files} onCreate={create} />
          {deleted.length > 0 ? (
            <div className="small">
              <p className="muted">Deleted when you save:</p>
              <ul className="file-list">{deleted.map((f) => <li key={f}><code>{f}</code> <Button kind="link" onClick={() => setDrafts((d) => ({ ...d, deletes: d.deletes.filter((x) => x !== f) }))} aria-label={`Keep ${f}`}>Keep</Button></li>)}</ul>
            </div>
          ) : null}
          <DataFiles slug={slug} saved={saved} onSaved={(revision) => setNotice(`Saved revision ${revision}. The test endpoint now serves the new data file.`)} />
        </aside>
        <div className="editor-main">
          {current === undefined ? (
            <p className="empty">No model files yet. Create one with New model file, or import a project directory from the projects list.</p>
          ) : (
            <>
              <div className="editor-file-head">
                <h2 className="editor-file-name"><code>{current}</code></h2>
                <Button kind="danger" onClick={() => remove(current)}>Delete file</Button>
              </div>
              <YamlEditor key={current} ref={editor} label={`YAML of ${current}`} value={textOf(current)} onChange={(text) => edit(current, text)} problemLines={problemLines} />
            </>
          )}
        </div>
        <ProblemList problems={problems} onGo={goTo} />
      </div>
    </div>
  );
}

/** Problems of the current texts, validated {@link validateDelayMs} after the last change (the saved files at first). */
function useValidation(slug: string, drafts: Drafts, saved: EditorSourcesView) {
  const [body, setBody] = useState<Drafts>(drafts);
  useEffect(() => {
    // No edits (just loaded or just saved): check the saved files at once.
    if (Object.keys(drafts.texts).length === 0 && drafts.deletes.length === 0) { setBody(drafts); return; }
    const timer = setTimeout(() => setBody(drafts), validateDelayMs);
    return () => clearTimeout(timer);
  }, [drafts]);
  return useQuery({
    queryKey: [...keys.project(slug), 'validate', saved.revision, body],
    queryFn: ({ signal }) => api<ValidationView>(projectPath(slug, '/validate'), { body: { models: body.texts, deletes: body.deletes }, signal }).then((r) => r.problems),
    placeholderData: (previous) => previous,
    staleTime: Infinity,
    gcTime: 60_000,
  });
}

/** Asks before leaving the page (reload, closing the tab, or a link inside the app) while there are unsaved changes. */
function useLeaveWarning(dirty: boolean) {
  useEffect(() => {
    if (!dirty) return;
    const beforeUnload = (event: BeforeUnloadEvent) => { event.preventDefault(); event.returnValue = ''; };
    const click = (event: MouseEvent) => {
      const link = (event.target as Element | null)?.closest?.('a[href]');
      if (!link || link.getAttribute('target') === '_blank' || event.defaultPrevented) return;
      if (!window.confirm('You have unsaved changes in the editor. Leave without saving?')) { event.preventDefault(); event.stopImmediatePropagation(); }
    };
    window.addEventListener('beforeunload', beforeUnload);
    document.addEventListener('click', click, true);
    return () => { window.removeEventListener('beforeunload', beforeUnload); document.removeEventListener('click', click, true); };
  }, [dirty]);
}

function ModelFiles({ files, current, textOf, saved, changed, onSelect, problems }: { files: string[]; current?: string; textOf: (file: string) => string; saved: EditorSourcesView; changed: string[]; onSelect: (f: string) => void; problems: ModelProblem[] }) {
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

function NewModelFile({ existing, onCreate }: { existing: string[]; onCreate: (file: string) => void }) {
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

function DataFiles({ slug, saved, onSaved }: { slug: string; saved: EditorSourcesView; onSaved: (revision: number) => void }) {
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

function ProblemList({ problems, onGo }: { problems: ReturnType<typeof useValidation>; onGo: (p: ModelProblem) => void }) {
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
