/**
 * ${{NAME}} placeholders in config string values: resolved from the environment; an unset or empty variable
 * leaves out the entry that holds it (a service, an OAuth app, a registry, a collection, a model provider and
 * the models it serves, the whole designAgent section, or one branding value) with one [config] note naming the entry,
 * field and variable.
 *
 * Source: spec/platform-service.md § Rules 13.
 */
import { PlatformError } from '../ports/platform-error.ts';
import { resolveModelsSection } from './config-models.ts';
import { type EnvRecord, optional } from './env-values.ts';

const PLACEHOLDER = /\$\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const LIST_SECTIONS: ReadonlyArray<[section: string, noun: string]> = [
  ['services', 'service'],
  ['oauthApps', 'OAuth app'],
  ['skillRegistries', 'skill registry'],
  ['collections', 'collection'],
];

/** A placeholder whose variable is unset or empty. */
interface Unset {
  field: string;
  variable: string;
}

/**
 * True when `text` holds at least one ${{NAME}} placeholder.
 *
 * Source: spec/platform-service.md § Rules 13
 */
export function hasPlaceholder(text: string): boolean {
  return text.includes('${{');
}

/**
 * Resolves every placeholder of `document` (a parsed config mapping) and leaves out entries with an unset one.
 * @param label - names the source in a refusal
 * @returns the resolved document and one `[config] left out …` note per left-out entry
 * @throws PlatformError `invalid_config` naming the source and field of a malformed placeholder (never a value)
 *
 * Source: spec/platform-service.md § Rules 13
 */
export function resolvePlaceholders(
  document: Record<string, unknown>,
  env: EnvRecord,
  label: string,
): { document: Record<string, unknown>; notes: string[] } {
  const resolved: Record<string, unknown> = { ...document };
  const notes: string[] = [];
  const keep = (entry: string, value: unknown, path: string): unknown => {
    const unset = unsetPlaceholders(value, env, '', { label, path });
    if (unset.length === 0) return substitute(value, env);
    notes.push(leftOutNote(entry, unset));
    return undefined;
  };
  if (document.designAgent !== undefined) {
    resolved.designAgent = keep('designAgent', document.designAgent, 'designAgent');
  }
  if (resolved.designAgent === undefined) delete resolved.designAgent;
  if (isMapping(document.models)) {
    const models = resolveModelsSection(document.models, keep);
    resolved.models = models.models;
    notes.push(...models.notes);
  }
  for (const [section, noun] of LIST_SECTIONS) {
    const list = document[section];
    if (!Array.isArray(list)) continue;
    resolved[section] = list.map((item, index) =>
      keep(entryName(section, noun, item, index), item, `${section}[${index}]`)
    ).filter((item) => item !== undefined);
  }
  if (isMapping(document.branding)) resolved.branding = resolveBranding(document.branding, keep);
  return { document: resolved, notes };
}

function resolveBranding(
  branding: Record<string, unknown>,
  keep: (entry: string, value: unknown, path: string) => unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(branding)) {
    if (!isMapping(value)) {
      const kept = keep(`branding.${key}`, value, `branding.${key}`);
      if (kept !== undefined) out[key] = kept;
      continue;
    }
    out[key] = Object.fromEntries(
      Object.entries(value).map(([name, inner]) =>
        [name, keep(`branding.${key}.${name}`, inner, `branding.${key}.${name}`)] as const
      ).filter(([, kept]) => kept !== undefined),
    );
  }
  return out;
}

/** Unset placeholders under `value`; `field` is relative to the entry, `where.path` names the entry in a refusal. */
function unsetPlaceholders(
  value: unknown,
  env: EnvRecord,
  field: string,
  where: { label: string; path: string },
): Unset[] {
  if (typeof value === 'string') {
    if (value.replace(PLACEHOLDER, '').includes('${{')) {
      const path = field === '' ? where.path : `${where.path}${field.startsWith('[') ? '' : '.'}${field}`;
      throw new PlatformError(
        'invalid_config',
        `${where.label}: ${path} holds a malformed placeholder: write \${{NAME}} with letters, digits and _.`,
      );
    }
    return [...value.matchAll(PLACEHOLDER)].filter((match) => optional(env, match[1]) === undefined).map((match) => ({
      field: field || 'value',
      variable: match[1],
    }));
  }
  if (Array.isArray(value)) {
    return value.flatMap((item, index) => unsetPlaceholders(item, env, `${field}[${index}]`, where));
  }
  if (isMapping(value)) {
    return Object.entries(value).flatMap(([key, inner]) =>
      unsetPlaceholders(inner, env, field ? `${field}.${key}` : key, where)
    );
  }
  return [];
}

function substitute(value: unknown, env: EnvRecord): unknown {
  if (typeof value === 'string') return value.replace(PLACEHOLDER, (_match, name: string) => optional(env, name) ?? '');
  if (Array.isArray(value)) return value.map((item) => substitute(item, env));
  if (isMapping(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, substitute(inner, env)]));
  }
  return value;
}

function leftOutNote(entry: string, unset: Unset[]): string {
  const fields = unset.map((u) => `field ${u.field} needs ${u.variable}`).join('; ');
  return `[config] left out ${entry}: ${fields}, which ${unset.length > 1 ? 'are' : 'is'} unset or empty.`;
}

function entryName(section: string, noun: string, item: unknown, index: number): string {
  const id = isMapping(item) ? item.id : undefined;
  return typeof id === 'string' && id !== '' && !hasPlaceholder(id) ? `${noun} "${id}"` : `${section}[${index}]`;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
