/**
 * The config a process boots with: chosen by precedence, placeholders resolved, entries with an unset
 * placeholder left out with a [config] note, unknown keys and host settings refused, designAgent required in
 * production.
 *
 * Source: spec/platform-service.md § Rules 12–14, 18; § Config sections named; § Errors (design agent missing in
 * production).
 */
import { PlatformError } from '../ports/platform-error.ts';
import { sanitiseBranding } from './config-branding.ts';
import { type PlatformConfig, skillRegistryOf } from './config-model.ts';
import { checkModelsSection } from './config-models.ts';
import { resolvePlaceholders } from './config-placeholders.ts';
import { checkConfigUrls, checkPromptCachePrices, checkUniqueIds } from './config-rules.ts';
import { type ConfigSourceInput, readConfigSource } from './config-source.ts';
import { validateConfigShape } from './config-validation.ts';
import { flag } from './env-values.ts';

/**
 * Input of {@link resolveConfig}: the environment, the files the bin read, and whether NODE_ENV is production.
 *
 * Source: spec/platform-service.md § Rules 12–14
 */
export interface ResolveConfigInput extends ConfigSourceInput {
  production: boolean;
}

/**
 * A resolved config with its output lines.
 *
 * Source: spec/platform-service.md § Rules 12–14
 */
export interface ResolvedConfig {
  config: PlatformConfig;
  /** `[config] left out …` lines: entries with an unset placeholder, unusable branding values. */
  notes: string[];
  /** At most one line: the config file PLATFORM_CONFIG shadows. */
  warnings: string[];
}

/**
 * Resolves the config as a boot does: PLATFORM_CONFIG over PLATFORM_CONFIG_FILE over config.yaml in the app
 * directory over the empty document.
 * @returns the resolved config, notes and warnings (lines for the bin to print)
 * @throws PlatformError `invalid_config` whose first line names the source variable (or the placeholder's
 *   variable when designAgent is left out in production), never a value
 *
 * Source: spec/platform-service.md § Rules 12–14
 */
export function resolveConfig(input: ResolveConfigInput): ResolvedConfig {
  const source = readConfigSource(input);
  const resolved = resolveConfigDocument(source.document, {
    label: source.label,
    env: input.env,
    production: input.production,
  });
  return { ...resolved, warnings: source.warnings };
}

/**
 * Validates and resolves one config document as written.
 * @param options - `label` names the source in messages; `env` resolves placeholders and PLATFORM_PROMPT_CACHE
 * @throws PlatformError `invalid_config`
 *
 * Source: spec/platform-service.md § Rules 12–13, 18
 */
export function resolveConfigDocument(
  document: unknown,
  options: { label: string; env: ConfigSourceInput['env']; production: boolean },
): { config: PlatformConfig; notes: string[] } {
  const { label, env } = options;
  validateConfigShape(document, label, { placeholdersPending: true });
  const placeholders = resolvePlaceholders(document, env, label);
  const resolved = placeholders.document;
  validateConfigShape(resolved, label, { placeholdersPending: false });
  checkConfigUrls(resolved, label);
  checkUniqueIds(resolved, label);
  checkPromptCachePrices(resolved, label, flag(env, 'PLATFORM_PROMPT_CACHE', true));
  checkModelsSection(
    resolved.models,
    (document as Record<string, unknown>).models,
    label,
    flag(env, 'PLATFORM_PROMPT_CACHE', true),
  );
  if (options.production && resolved.designAgent === undefined) throw designAgentRequired(label, placeholders.notes);
  const branding = sanitiseBranding(resolved.branding as Record<string, unknown> | undefined);
  const config: PlatformConfig = {
    ...(resolved.designAgent === undefined ? {} : { designAgent: resolved.designAgent }),
    ...(resolved.models === undefined ? {} : { models: resolved.models }),
    services: resolved.services ?? [],
    collections: resolved.collections ?? [],
    ...(resolved.skillRegistries === undefined
      ? {}
      : { skillRegistries: resolved.skillRegistries.map(skillRegistryOf) }),
    oauthApps: resolved.oauthApps ?? [],
    branding: branding.branding,
  };
  return { config, notes: [...placeholders.notes, ...branding.notes] };
}

/**
 * The refusal when designAgent is missing in production; names the placeholder's variable when an unset one
 * left the section out.
 *
 * Source: spec/platform-service.md § Rules 13; § Errors (design agent missing in production)
 */
export function designAgentRequired(label: string, notes: string[]): PlatformError {
  const leftOut = notes.find((note) => note.startsWith('[config] left out designAgent:'));
  const variable = leftOut === undefined ? undefined : /needs ([A-Za-z_][A-Za-z0-9_]*)/.exec(leftOut)?.[1];
  if (variable !== undefined) {
    return new PlatformError(
      'invalid_config',
      `${variable} is unset or empty, which leaves out designAgent; designAgent is required when NODE_ENV is ` +
        `production.\n${leftOut}`,
    );
  }
  return new PlatformError(
    'invalid_config',
    `${label}: designAgent is required when NODE_ENV is production (set it in PLATFORM_CONFIG, ` +
      `PLATFORM_CONFIG_FILE or config.yaml).`,
  );
}
