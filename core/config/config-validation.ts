/**
 * Shape validation of the config document: unknown keys (host settings among them) fail boot; every
 * message names the source and the field, never a value.
 *
 * Source: spec/platform-service.md § Rules 12–14; § Config sections named.
 */
import { Value, type ValueError, ValueErrorType } from '@sinclair/typebox/value';
import { PlatformError } from '../ports/platform-error.ts';
import { ConfigDocument } from './config-model.ts';
import { hasPlaceholder } from './config-placeholders.ts';
import { hostSettingFor } from './env-variables.ts';

/**
 * A JSON pointer (`/services/0/token`) as a field path (`services[0].token`).
 *
 * Source: spec/platform-service.md § Errors (messages name the field, never a value)
 */
export function fieldPath(pointer: string): string {
  return pointer.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^[0-9]+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

/**
 * Refuses a document that is not a mapping of known sections with well-formed entries.
 * @param label - names the source (PLATFORM_CONFIG, PLATFORM_CONFIG_FILE, config.yaml (app directory))
 * @param options - `placeholdersPending`: strings holding a ${{NAME}} placeholder are not yet checked for form
 * @throws PlatformError `invalid_config`: `<label>: unknown key <path>` (naming the variable for a host setting)
 *   or `<label>: <path> <problem>`
 *
 * Source: spec/platform-service.md § Rules 12 (a host setting written in the config fails boot as an unknown key)
 */
export function validateConfigShape(
  document: unknown,
  label: string,
  options: { placeholdersPending: boolean },
): asserts document is ConfigDocument {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new PlatformError(
      'invalid_config',
      `${label} must be a mapping of config sections (designAgent, models, services, collections, skillRegistries, ` +
        `oauthApps, branding).`,
    );
  }
  const errors = [...Value.Errors(ConfigDocument, document)]
    .filter((error) =>
      !(options.placeholdersPending && typeof error.value === 'string' && hasPlaceholder(error.value))
    );
  const error = errors.find((e) => e.type === ValueErrorType.ObjectAdditionalProperties) ?? errors[0];
  if (error !== undefined) throw new PlatformError('invalid_config', describe(error, label));
}

function describe(error: ValueError, label: string): string {
  const path = fieldPath(error.path);
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const variable = path.includes('.') || path.includes('[') ? undefined : hostSettingFor(path);
    const hint = variable === undefined
      ? ''
      : ` (a host setting: set the environment variable ${variable}, not the config)`;
    return `${label}: unknown key ${path}${hint}.`;
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `${label}: ${path} is required.`;
  return `${label}: ${path || 'the document'} is not accepted: ${error.message.replace(/^Expected/, 'expected')}.`;
}
