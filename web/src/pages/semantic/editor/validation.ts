/**
 * The Editor's checks as you type: the current texts are validated (POST …/validate: file, line:column, path and
 * reason from the validator Publish uses) a moment after the last keystroke, the saved files at once.
 *
 * Source: spec/semantic-query-service.md § What the service does (1–2); docs/decisions.md D9 (Editor: YAML edited
 * with validation problems shown inline).
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { EditorSourcesView, ValidationView } from '../../../../../core/semantic/api/editor.ts';
import { api, projectPath } from '../../../api/client.ts';
import { keys } from '../queries.ts';
import type { Drafts } from './drafts.ts';

/** Wait after the last keystroke before validating, ms. */
const validateDelayMs = 400;

/** The query of the current texts' problems. */
export type Validation = ReturnType<typeof useValidation>;

/** Problems of the current texts, validated {@link validateDelayMs} after the last change (the saved files at first). */
export function useValidation(slug: string, drafts: Drafts, saved: EditorSourcesView) {
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
