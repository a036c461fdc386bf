/**
 * The models section of the config: placeholder resolution (a provider with an unset placeholder is left out,
 * and so are the models it serves) and its cross-field rules. Messages name the source and field, never a value.
 *
 * Source: docs/decisions.md D7 § Models; spec/platform-service.md § Rules 13 (placeholders); § Config sections named.
 */
import { PlatformError } from '../ports/platform-error.ts';
import type { ModelsConfig } from './config-model.ts';

/** Resolves or leaves out one entry: the `keep` of resolvePlaceholders (undefined = left out, note written). */
export type KeepEntry = (entry: string, value: unknown, path: string) => unknown;

/**
 * Resolves the placeholders of a models section as written: providers with an unset placeholder are left out by
 * `keep` (one note each), and each offered model of a left-out provider is left out with a note naming it.
 * @returns the resolved section and the notes of cascaded left-out models
 *
 * Source: spec/platform-service.md § Rules 13
 */
export function resolveModelsSection(
  models: Record<string, unknown>,
  keep: KeepEntry,
): { models: Record<string, unknown>; notes: string[] } {
  const notes: string[] = [];
  const providers = Array.isArray(models.providers) ? models.providers : [];
  const kept = providers.map((provider, index) =>
    keep(`model provider "${idOf(provider) ?? index}"`, provider, `models.providers[${index}]`)
  );
  const leftOut = new Set(providers.filter((_provider, index) => kept[index] === undefined).map(idOf));
  const offered = (Array.isArray(models.offered) ? models.offered : []).map((model, index) => {
    const provider = isMapping(model) ? model.provider : undefined;
    if (typeof provider === 'string' && leftOut.has(provider)) {
      notes.push(`[config] left out model "${idOf(model) ?? index}": its provider "${provider}" is left out.`);
      return undefined;
    }
    return keep(`model "${idOf(model) ?? index}"`, model, `models.offered[${index}]`);
  });
  const resolved: Record<string, unknown> = { ...models };
  if (Array.isArray(models.providers)) resolved.providers = kept.filter((item) => item !== undefined);
  if (Array.isArray(models.offered)) resolved.offered = offered.filter((item) => item !== undefined);
  return { models: resolved, notes };
}

/**
 * Cross-field rules of a resolved models section: unique ids; apiBaseUrl an http(s) URL, required for
 * openai-compatible; region required for bedrock; an offered model names a provider of the section; `default`
 * names an offered model; with prompt caching on, every price gives cacheRead and cacheWrite.
 * @param written - the section as written, so a provider left out by a placeholder still counts as named
 * @throws PlatformError `invalid_config` naming the source and the field
 *
 * Source: docs/decisions.md D7 § Models; spec/platform-service.md § Config sections named (designAgent: with prompt
 * caching on, cacheRead and cacheWrite are given)
 */
export function checkModelsSection(
  models: ModelsConfig | undefined,
  written: unknown,
  label: string,
  promptCache: boolean,
): void {
  if (models === undefined) return;
  checkUnique(models.providers.map((p) => p.id), 'models.providers', label);
  checkUnique(models.offered.map((m) => m.id), 'models.offered', label);
  models.providers.forEach((provider, index) => {
    const at = `models.providers[${index}]`;
    if (provider.apiBaseUrl !== undefined && !isHttpUrl(provider.apiBaseUrl)) {
      throw refuse(label, `${at}.apiBaseUrl must be an http or https URL`);
    }
    if (provider.type === 'openai-compatible' && provider.apiBaseUrl === undefined) {
      throw refuse(label, `${at}.apiBaseUrl is required for type openai-compatible`);
    }
    if (provider.type === 'bedrock' && provider.region === undefined) {
      throw refuse(label, `${at}.region is required for type bedrock`);
    }
  });
  const named = new Set(writtenIds(written, 'providers'));
  models.offered.forEach((model, index) => {
    if (!named.has(model.provider)) {
      throw refuse(label, `models.offered[${index}].provider names no entry of models.providers`);
    }
    if (!promptCache) return;
    for (const field of ['cacheRead', 'cacheWrite'] as const) {
      if (model.prices[field] === undefined) {
        throw refuse(label, `models.offered[${index}].prices.${field} is required while PLATFORM_PROMPT_CACHE is on`);
      }
    }
  });
  if (models.default !== undefined && !writtenIds(written, 'offered').includes(models.default)) {
    throw refuse(label, 'models.default names no entry of models.offered');
  }
}

function checkUnique(ids: string[], section: string, label: string): void {
  const repeated = ids.findIndex((id, index) => ids.indexOf(id) !== index);
  if (repeated >= 0) throw refuse(label, `${section}[${repeated}].id repeats an earlier entry`);
}

function writtenIds(written: unknown, list: 'providers' | 'offered'): string[] {
  const items = isMapping(written) && Array.isArray(written[list]) ? written[list] : [];
  return items.map(idOf).filter((id): id is string => id !== undefined);
}

function refuse(label: string, rule: string): PlatformError {
  return new PlatformError('invalid_config', `${label}: ${rule}.`);
}

function isHttpUrl(text: string): boolean {
  try {
    const parsed = new URL(text);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname !== '';
  } catch {
    return false;
  }
}

function idOf(item: unknown): string | undefined {
  const id = isMapping(item) ? item.id : undefined;
  return typeof id === 'string' && id !== '' && !id.includes('${{') ? id : undefined;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
