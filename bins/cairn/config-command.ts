/**
 * `cairn config resolve [--base64] [--file PATH]`: validates a config as a boot would and prints it as the
 * single line of JSON a host can hold in PLATFORM_CONFIG (or its base64, for hosts that rewrite ${{NAME}}).
 * Placeholders stay in the printed line: the secrets they name stay in their own variables.
 *
 * Source: spec/platform-service.md § Rules 14.
 */
import { join } from 'node:path';
import { resolveConfigDocument } from '../../core/config/config-document.ts';
import { parseConfigFileText, readConfigSource, type ConfigSource } from '../../core/config/config-source.ts';
import { optional, type EnvRecord } from '../../core/config/env-values.ts';
import { parseNodeEnv } from '../../core/config/service-settings.ts';
import { APP_DIR_CONFIG_FILE } from '../../core/config/worker-host-rules.ts';
import { PlatformError } from '../../core/ports/platform-error.ts';

/**
 * Arguments of {@link configResolveCommand}.
 *
 * Source: spec/platform-service.md § Rules 14
 */
export interface ConfigResolveArgs {
  /** The environment (placeholders, NODE_ENV, PLATFORM_CONFIG, PLATFORM_CONFIG_FILE, PLATFORM_PROMPT_CACHE). */
  env: EnvRecord;
  /** Reads a file's text; undefined when it does not exist or cannot be read. */
  readFile(path: string): string | undefined;
  /** The app directory, where a boot looks for config.yaml. */
  appDir: string;
  /** Print base64 of the JSON line (UTF-8) instead of the line itself. */
  base64: boolean;
  /** `--file PATH`: validate this file instead of the boot's choice (PLATFORM_CONFIG and PLATFORM_CONFIG_FILE are not read). */
  file?: string;
}

/**
 * Validates the config as a boot would (NODE_ENV decides the production rules) and returns it as one line.
 * @returns `line`: the document as written (placeholders kept) as one line of JSON, or its base64;
 *   `notes`: the shadow warning and the `[config]` lines a boot with this environment would print (for stderr)
 * @throws PlatformError `invalid_config` naming the source and field, never a value (the bin exits 1)
 *
 * Source: spec/platform-service.md § Rules 14
 */
export function configResolveCommand(args: ConfigResolveArgs): { line: string; notes: string[] } {
  const production = parseNodeEnv(args.env) === 'production';
  const source = chooseSource(args);
  const resolved = resolveConfigDocument(source.document, { label: source.label, env: args.env, production });
  const json = JSON.stringify(source.document);
  return { line: args.base64 ? base64Utf8(json) : json, notes: [...source.warnings, ...resolved.notes] };
}

function chooseSource(args: ConfigResolveArgs): ConfigSource {
  if (args.file !== undefined) {
    const text = args.readFile(args.file);
    if (text === undefined) throw new PlatformError('invalid_config', '--file names a file that does not exist or cannot be read.');
    return { label: '--file', document: parseConfigFileText(text, '--file'), warnings: [] };
  }
  const named = optional(args.env, 'PLATFORM_CONFIG_FILE');
  const inline = optional(args.env, 'PLATFORM_CONFIG') !== undefined;
  const fileText = named === undefined || inline ? undefined : readAs(args, named);
  const appDirPath = join(args.appDir, APP_DIR_CONFIG_FILE);
  const appDirConfig = named === undefined ? readAs(args, appDirPath) : undefined;
  return readConfigSource({ env: args.env, fileText, appDirConfig });
}

function readAs(args: ConfigResolveArgs, path: string): { path: string; text: string } | undefined {
  const text = args.readFile(path);
  return text === undefined ? undefined : { path, text };
}

function base64Utf8(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
