/**
 * The paths the design agent may write: the agent repository's layout (docs/agent-format.md § Layout) and nothing
 * else. Anything outside it (a README, `.git/…`, a file beside `workflow.yaml`, `..`) is refused, saying which paths
 * are allowed.
 *
 * Source: issue "The design agent" § Tools (paths are limited to the agent repository's layout).
 */
import { PlatformError } from '../ports/platform-error.ts';

const slug = '[a-z0-9]+(?:-[a-z0-9]+)*';
const name = '[A-Za-z0-9_][A-Za-z0-9_.-]*';
/** The layout, one pattern per kind of file. */
const layout: RegExp[] = [
  /^AGENTS\.md$/,
  new RegExp(`^workflows/${slug}/workflow\\.yaml$`),
  new RegExp(`^workflows/${slug}/WORKFLOW\\.md$`),
  new RegExp(`^workflows/${slug}/hooks/${name}\\.js$`),
  new RegExp(`^workflows/${slug}/tests/${name}\\.test\\.yaml$`),
  new RegExp(`^skills/${slug}/SKILL\\.md$`),
  new RegExp(`^skills/${slug}/(?:assets|scripts)/(?:${name}/)*${name}$`),
];

/** The longest path the design agent may name (characters). */
export const MAX_DESIGN_PATH = 300;

/** The layout as a person reads it (for refusals and the authoring skill). */
export const LAYOUT_TEXT = 'AGENTS.md, workflows/<slug>/workflow.yaml, workflows/<slug>/WORKFLOW.md, ' +
  'workflows/<slug>/hooks/<name>.js, workflows/<slug>/tests/<name>.test.yaml, skills/<slug>/SKILL.md, ' +
  'skills/<slug>/assets/… and skills/<slug>/scripts/…';

/**
 * `path` when it is a path of the agent repository's layout.
 * @throws PlatformError `path_outside_layout` (400) naming the allowed paths
 */
export function checkDesignPath(path: unknown): string {
  if (
    typeof path === 'string' && path.length <= MAX_DESIGN_PATH && !path.split('/').some((s) => s === '..') &&
    layout.some((p) => p.test(path))
  ) return path;
  const shown = typeof path === 'string' ? JSON.stringify(path.slice(0, 100)) : 'a path that is not text';
  throw new PlatformError(
    'path_outside_layout',
    `${shown} is not a file of the agent repository's layout; use one of: ${LAYOUT_TEXT} (slugs: lowercase letters ` +
      'and digits joined by hyphens).',
    { status: 400 },
  );
}
