/**
 * The Editor's unsaved edits: texts of edited or new model files and saved files deleted, what they change against
 * the saved files, the file shown, and Save (POST …/sources), which makes the test endpoint serve the files at once.
 * Leaving with unsaved changes asks first.
 *
 * Source: spec/semantic-query-service.md § States and transitions (source files: saved → the test endpoint reflects at
 * once); docs/decisions.md D9 (Editor).
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { EditorSourcesView } from '../../../../../core/semantic/api/editor.ts';
import type { SavedSourcesView, SaveSourcesBody } from '../../../../../core/semantic/api/projects.ts';
import { api, projectPath } from '../../../api/client.ts';
import { keys } from '../queries.ts';

/** Unsaved edits: texts of edited or new files, and saved files deleted. */
export interface Drafts { texts: Record<string, string>; deletes: string[] }

/** What {@link useDrafts} answers. */
export type EditorDrafts = ReturnType<typeof useDrafts>;

/** Text of a new model file named `model`: a valid skeleton to fill in. */
function newModelText(model: string): string {
  return `version: "0.2.0.dev0"\nsemantic_model:\n  - name: ${model}\n    description: What this model answers.\n    datasets:\n      - name: ${model}\n        source: data.${model}\n        fields:\n          - name: id\n            expression:\n              dialects:\n                - dialect: ANSI_SQL\n                  expression: id\n`;
}

/** The edits of project `slug` over its `saved` files, the file shown, the notice, and edit, create, delete, keep, save. */
export function useDrafts(slug: string, saved: EditorSourcesView) {
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
  const [notice, setNotice] = useState<string>();

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
  const keep = (file: string) => setDrafts((d) => ({ ...d, deletes: d.deletes.filter((x) => x !== file) }));
  return { drafts, files, current, select: setSelected, textOf, changed, deleted, dirty, notice, setNotice, save, edit, remove, create, keep };
}

/** Asks before leaving the page (reload, closing the tab, or a link inside the app) while there are unsaved changes. */
export function useLeaveWarning(dirty: boolean) {
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
