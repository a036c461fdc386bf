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
import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type Ref } from 'react';
import type { EditorSourcesView } from '../../../../core/semantic/api/editor.ts';
import type { ModelProblem } from '../../../../core/semantic/model.ts';
import { api, projectPath } from '../../api/client.ts';
import { Button, ErrorMessage, Loading } from '../../ui/kit.tsx';
import { useDrafts, useLeaveWarning, type EditorDrafts } from './editor/drafts.ts';
import { DataFiles, DeletedFiles, ModelFiles, NewModelFile } from './editor/FileLists.tsx';
import { ProblemList } from './editor/ProblemList.tsx';
import { PublishPanel } from './editor/PublishPanel.tsx';
import { useValidation } from './editor/validation.ts';
import { YamlEditor, type YamlEditorHandle } from './editor/YamlEditor.tsx';
import { keys } from './queries.ts';
import './editor/editor.css';

/** /projects/<slug>/editor */
export function EditorPage({ slug }: { slug: string }) {
  const sources = useQuery({ queryKey: [...keys.project(slug), 'sources'], queryFn: () => api<EditorSourcesView>(projectPath(slug, '/sources')) });
  if (sources.isPending) return <Loading what="Loading the model files" />;
  if (sources.isError) return <ErrorMessage error={sources.error} retry={() => void sources.refetch()} title="The model files could not be read" />;
  return <Editor slug={slug} saved={sources.data} />;
}

/** The editor of project `slug` over its `saved` files: toolbar, side panel, the current file, problems. */
function Editor({ slug, saved }: { slug: string; saved: EditorSourcesView }) {
  const edits = useDrafts(slug, saved);
  const { files, current, dirty } = edits;
  const editor = useRef<YamlEditorHandle>(null);
  const [publishing, setPublishing] = useState(false);

  const problems = useValidation(slug, edits.drafts, saved);
  useLeaveWarning(dirty);

  const goTo = (problem: ModelProblem) => {
    edits.select(problem.file);
    // The text area of another file mounts on the next render.
    requestAnimationFrame(() => editor.current?.goTo(problem.line ?? 1, problem.column ?? 1));
  };
  const problemLines = new Set((problems.data ?? []).filter((p) => p.file === current && p.line !== undefined).map((p) => p.line as number));

  return (
    <div className="editor-page">
      <EditorToolbar edits={edits} saved={saved} publishing={publishing} onPublish={() => setPublishing(true)} />
      {edits.notice ? <p className="notice" role="status">{edits.notice}</p> : null}
      {edits.save.isError ? <ErrorMessage error={edits.save.error} title="Not saved" /> : null}
      {publishing ? <PublishPanel slug={slug} unsaved={dirty} onClose={() => setPublishing(false)} /> : null}
      <div className="editor-layout">
        <aside className="editor-files" aria-label="Files">
          <ModelFiles files={files} current={current} textOf={edits.textOf} saved={saved} changed={edits.changed} onSelect={edits.select} problems={problems.data ?? []} />
          <NewModelFile existing={files} onCreate={edits.create} />
          <DeletedFiles deleted={edits.deleted} onKeep={edits.keep} />
          <DataFiles slug={slug} saved={saved} onSaved={(revision) => edits.setNotice(`Saved revision ${revision}. The test endpoint now serves the new data file.`)} />
        </aside>
        <div className="editor-main">
          <CurrentFile file={current} edits={edits} editor={editor} problemLines={problemLines} />
        </div>
        <ProblemList problems={problems} onGo={goTo} />
      </div>
    </div>
  );
}

/** Save, Publish…, and what is unsaved (or the saved revision). */
function EditorToolbar({ edits, saved, publishing, onPublish }: {
  edits: EditorDrafts; saved: EditorSourcesView; publishing: boolean; onPublish: () => void;
}) {
  const { changed, deleted, dirty, save } = edits;
  return (
    <div className="editor-toolbar actions">
      <Button kind="primary" onClick={() => save.mutate()} busy={save.isPending} disabled={!dirty}>Save</Button>
      <Button onClick={onPublish} aria-expanded={publishing}>Publish…</Button>
      <span className="muted small" role="status">
        {dirty ? `Unsaved: ${[...changed.map((f) => `${f}${f in saved.models ? '' : ' (new)'}`), ...deleted.map((f) => `${f} (deleted)`)].join(', ')}` : `Saved revision ${saved.revision}${saved.revision === 0 ? ' (nothing saved yet)' : ''}`}
      </span>
    </div>
  );
}

/** The file shown: its name, Delete file, and its YAML with the problem lines marked (or how to begin, when none). */
function CurrentFile({ file, edits, editor, problemLines }: {
  file: string | undefined; edits: EditorDrafts; editor: Ref<YamlEditorHandle>; problemLines: Set<number>;
}) {
  if (file === undefined) {
    return <p className="empty">No model files yet. Create one with New model file, or import a project directory from the projects list.</p>;
  }
  return (
    <>
      <div className="editor-file-head">
        <h2 className="editor-file-name"><code>{file}</code></h2>
        <Button kind="danger" onClick={() => edits.remove(file)}>Delete file</Button>
      </div>
      <YamlEditor key={file} ref={editor} label={`YAML of ${file}`} value={edits.textOf(file)} onChange={(text) => edits.edit(file, text)} problemLines={problemLines} />
    </>
  );
}
