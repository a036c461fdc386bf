/**
 * Where the config comes from: PLATFORM_CONFIG (one JSON line or base64 of it) over the file named by
 * PLATFORM_CONFIG_FILE over config.yaml in the app directory over the empty document.
 *
 * Source: spec/platform-service.md § Rules 14.
 */
import { parseDocument } from 'yaml';
import { PlatformError } from '../ports/platform-error.ts';
import { decodeBase64, type EnvRecord, invalid, optional } from './env-values.ts';

/**
 * A file the bin read: its path and text.
 *
 * Source: spec/platform-service.md § Rules 14
 */
export interface ConfigFileText {
  path: string;
  text: string;
}

/**
 * What {@link readConfigSource} needs: the environment and the files the bin read.
 *
 * Source: spec/platform-service.md § Rules 14
 */
export interface ConfigSourceInput {
  env: EnvRecord;
  /** The file PLATFORM_CONFIG_FILE names (undefined when it does not exist or is not named). */
  fileText?: ConfigFileText;
  /** config.yaml in the app directory, when present. */
  appDirConfig?: ConfigFileText;
}

/**
 * The chosen config document, as written.
 *
 * Source: spec/platform-service.md § Rules 14
 */
export interface ConfigSource {
  /** Names the source in every message: PLATFORM_CONFIG, PLATFORM_CONFIG_FILE, config.yaml (app directory) or config
   * (empty). */
  label: string;
  document: unknown;
  /** At most one line: the file PLATFORM_CONFIG shadows. */
  warnings: string[];
}

/**
 * Refuses the start when PLATFORM_CONFIG_FILE names a file that does not exist (the bin checks the disk).
 * @param exists - whether the named file exists
 * @throws PlatformError `invalid_config` naming PLATFORM_CONFIG_FILE (never the path)
 *
 * Source: spec/platform-service.md § Rules 14
 */
export function requireConfigFile(exists: boolean): void {
  if (!exists) {
    throw invalid('PLATFORM_CONFIG_FILE', 'names a file that does not exist: name an absolute path to a readable file');
  }
}

/**
 * Picks the config by precedence and parses it (JSON for PLATFORM_CONFIG, YAML for files).
 * @returns the source label, the document as written and the shadow warning (if any)
 * @throws PlatformError `invalid_config` naming the source
 *
 * Source: spec/platform-service.md § Rules 14
 */
export function readConfigSource(input: ConfigSourceInput): ConfigSource {
  const inline = optional(input.env, 'PLATFORM_CONFIG');
  const namedFile = optional(input.env, 'PLATFORM_CONFIG_FILE');
  if (inline !== undefined) {
    const shadowed = namedFile ?? input.fileText?.path ?? input.appDirConfig?.path;
    const warnings = shadowed === undefined
      ? []
      : [`[config] PLATFORM_CONFIG is set and wins: the config file ${shadowed} is shadowed and not read.`];
    return { label: 'PLATFORM_CONFIG', document: parseInlineConfig(inline), warnings };
  }
  if (namedFile !== undefined || input.fileText !== undefined) {
    requireConfigFile(input.fileText !== undefined);
    return {
      label: 'PLATFORM_CONFIG_FILE',
      document: parseConfigFileText((input.fileText as ConfigFileText).text, 'PLATFORM_CONFIG_FILE'),
      warnings: [],
    };
  }
  if (input.appDirConfig !== undefined) {
    const label = 'config.yaml (app directory)';
    return { label, document: parseConfigFileText(input.appDirConfig.text, label), warnings: [] };
  }
  return { label: 'config', document: {}, warnings: [] };
}

/**
 * PLATFORM_CONFIG: one line of JSON, or that document base64-encoded (UTF-8).
 * @throws PlatformError `invalid_config` naming PLATFORM_CONFIG (never its text)
 *
 * Source: spec/platform-service.md § Rules 14
 */
export function parseInlineConfig(text: string): unknown {
  const trimmed = text.trim();
  const json = trimmed.startsWith('{') ? trimmed : decodeUtf8(decodeBase64(trimmed));
  if (json === undefined) throw invalid('PLATFORM_CONFIG', 'must be one line of JSON or base64 of it');
  try {
    return JSON.parse(json);
  } catch {
    throw invalid('PLATFORM_CONFIG', 'is not valid JSON (nor base64 of JSON)');
  }
}

/**
 * A config file's text as YAML (JSON is YAML too); an empty file is the empty document.
 * @param label - names the source in messages
 * @throws PlatformError `invalid_config` naming the source, the YAML error code and line (never the text)
 *
 * Source: spec/platform-service.md § Rules 14
 */
export function parseConfigFileText(text: string, label: string): unknown {
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const error = document.errors[0];
  if (error !== undefined) {
    const line = text.slice(0, error.pos[0]).split('\n').length;
    throw new PlatformError('invalid_config', `${label} is not valid YAML: ${error.code} at line ${line}.`);
  }
  return document.toJS({ maxAliasCount: 100 }) ?? {};
}

function decodeUtf8(bytes: Uint8Array | undefined): string | undefined {
  if (bytes === undefined) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
