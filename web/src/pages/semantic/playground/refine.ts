/**
 * The playground's address: `/projects/<slug>/playground?model=…&sql=…&params=<json array>&plane=test|production`,
 * which Monitoring's "Refine in playground" links to, and the model names a list_semantic_models digest names.
 *
 * Source: docs/decisions.md D9 (Refine: open an entry's query in the playground).
 */
import type { PlaygroundPlane } from '../../../../../core/semantic/api/playground.ts';

/** What the playground starts with. */
export interface PlaygroundStart {
  plane: PlaygroundPlane;
  model: string;
  sql: string;
  params: string[];
}

/** Reads the start state from a query string (`?model=…`); anything unreadable falls back to empty/`test`. */
export function readPlaygroundStart(search: string): PlaygroundStart {
  const q = new URLSearchParams(search);
  let params: string[] = [];
  try {
    const parsed: unknown = JSON.parse(q.get('params') ?? '[]');
    if (Array.isArray(parsed)) params = parsed.map((p) => (typeof p === 'string' ? p : JSON.stringify(p)));
  } catch { params = []; }
  return { plane: q.get('plane') === 'production' ? 'production' : 'test', model: q.get('model') ?? '', sql: q.get('sql') ?? '', params };
}

/** The playground's address for `start` (only the fields given). */
export function playgroundHref(slug: string, start: Partial<PlaygroundStart>): string {
  const q = new URLSearchParams();
  if (start.model) q.set('model', start.model);
  if (start.sql) q.set('sql', start.sql);
  if (start.params && start.params.length > 0) q.set('params', JSON.stringify(start.params));
  if (start.plane) q.set('plane', start.plane);
  const text = q.toString();
  return `/projects/${encodeURIComponent(slug)}/playground${text ? `?${text}` : ''}`;
}

/** Model names in a list_semantic_models digest (`- name: description` lines before any other section). */
export function modelNamesOf(digest: string): string[] {
  const names: string[] = [];
  for (const line of digest.split('\n')) {
    if (line.startsWith('## ')) break;
    const match = /^- ([^:\s]+)/.exec(line);
    if (match) names.push(match[1]);
  }
  return names;
}
