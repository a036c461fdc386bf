/**
 * Operator commands that work on the stores directly, with the deployment's own environment (run them
 * with the service stopped where the spec says so): `config resolve`, `data-updates list|apply`,
 * `secrets move`.
 *
 * Source: spec/platform-service.md § Rules 14, § Versioning (operator tool for data updates),
 * § Authentication rule 11 (moving secrets between stores).
 */
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createCloudSecretStore, createDbSecretStore, parseMasterKey, CREDENTIAL_SECRETS_COLLECTION } from '../../core/adapters/secrets/index.ts';
import { cryptoIds, systemClock } from '../../core/adapters/runtime/system.ts';
import { createRedisLease, openRedis } from '../../core/adapters/redis/index.ts';
import { openDocumentStore } from '../../core/adapters/stores/open-stores.ts';
import { platformRelease } from '../../core/boot/platform-release.ts';
import { flag, optional, required, type EnvRecord } from '../../core/config/env-values.ts';
import { parseStoreSettings } from '../../core/config/store-settings.ts';
import { createDocumentLease } from '../../core/lease/document-lease.ts';
import type { SecretStore } from '../../core/ports/secret-store.ts';
import { CliError } from './api-client.ts';
import { configResolveCommand } from './config-command.ts';
import { dataUpdatesCommand } from './data-updates-command.ts';
import { QUARANTINE_COLLECTION, quarantineDocument } from '../../core/data-update/index.ts';
import { isPlatformError } from '../../core/ports/platform-error.ts';
import { secretsMoveCommand } from './secrets-command.ts';
import type { CommandOutput } from './semantic-commands.ts';

/** Options these commands read. */
export interface OperatorOptions {
  base64?: boolean;
  file?: string;
  apply?: boolean;
  from?: string;
  to?: string;
  ids?: string;
}

/** Where {@link runConfig} resolves the configuration from, and where its notes go. */
export interface ConfigCommandContext {
  /** The environment variables the configuration is resolved from. */
  env: EnvRecord;
  /** The app directory, where a boot looks for config.yaml. */
  appDir: string;
  /** Receives each note of the resolution (stderr). */
  note: (line: string) => void;
}

/** `cairn config resolve [--base64] [--file PATH]`. */
export function runConfig(
  args: string[], options: OperatorOptions, { env, appDir, note }: ConfigCommandContext,
): CommandOutput {
  if (args[0] !== 'resolve') throw new CliError('usage: cairn config resolve [--base64] [--file PATH]', 2);
  const readFile = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : undefined);
  const result = configResolveCommand({ env, readFile, appDir, base64: Boolean(options.base64), file: options.file });
  result.notes.forEach(note);
  return { data: result.line, human: result.line };
}

/** `cairn data-updates list|apply` against the deployment's document store (and queue-store lock). */
export async function runDataUpdates(args: string[], env: EnvRecord, print: (line: string) => void): Promise<CommandOutput> {
  const action = args[0];
  if (action === 'quarantine') return runQuarantine(args.slice(1), env, print);
  if (action !== 'list' && action !== 'apply') throw new CliError(dataUpdatesUsage, 2);
  const stores = parseStoreSettings(env);
  const docs = await openDocumentStore(stores.documents);
  const redis = stores.queueUrl ? await openRedis(stores.queueUrl) : undefined;
  try {
    const result = await dataUpdatesCommand({
      action, docs, lease: redis ? createRedisLease(redis) : createDocumentLease(docs, systemClock), clock: systemClock,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)), owner: `cairn data-updates@${hostname()}:${process.pid}`,
      release: platformRelease({ docs, clock: systemClock, ids: cryptoIds }),
      allowNewerData: flag(env, 'PLATFORM_ALLOW_NEWER_DATA', false), log: print,
    });
    // The command prints its own lines (pending updates, refusals, applied updates) through `print`.
    return { data: result, human: '' };
  } finally {
    await docs.close();
    redis?.disconnect();
  }
}

const dataUpdatesUsage = 'usage: cairn data-updates list|apply, or cairn data-updates quarantine <collection> <id>';

/**
 * `cairn data-updates quarantine <collection> <id>`: sets aside a document the boot census refuses (named by the
 * refusal line), into quarantined_documents (core/data-update/quarantine.ts); the platform then starts again.
 */
async function runQuarantine(args: string[], env: EnvRecord, print: (line: string) => void): Promise<CommandOutput> {
  const [collection, id] = args;
  if (!collection || id === undefined || args.length !== 2) throw new CliError(dataUpdatesUsage, 2);
  const docs = await openDocumentStore(parseStoreSettings(env).documents);
  try {
    const release = platformRelease({ docs, clock: systemClock, ids: cryptoIds });
    const outcome = await quarantineDocument({ docs, clock: systemClock }, release, { collection, id });
    print(outcome === 'moved'
      ? `set aside: document ${id} of ${collection} is now in ${QUARANTINE_COLLECTION} (_id "${collection}/${id}")`
      : `no document ${id} in ${collection}: nothing to set aside`);
    return { data: { collection, id, outcome }, human: '' };
  } catch (error) {
    if (isPlatformError(error)) throw new CliError(error.message, 1);
    throw error;
  } finally {
    await docs.close();
  }
}

/** `cairn secrets move --from db|cloud-secrets-manager --to db|cloud-secrets-manager [--ids a,b] [--apply]`. */
export async function runSecrets(args: string[], options: OperatorOptions, env: EnvRecord, print: (line: string) => void): Promise<CommandOutput> {
  if (args[0] !== 'move' || !options.from || !options.to || options.from === options.to) {
    throw new CliError('usage: cairn secrets move --from db|cloud-secrets-manager --to db|cloud-secrets-manager [--ids a,b] [--apply] (stop the service first)', 2);
  }
  const docs = await openDocumentStore(parseStoreSettings(env).documents);
  try {
    const open = (kind: string): SecretStore => {
      if (kind === 'db') return createDbSecretStore({ docs, masterKey: parseMasterKey(required(env, 'MASTER_KEY', 'the key that seals secrets in the document store')), clock: systemClock, ids: cryptoIds });
      if (kind === 'cloud-secrets-manager') {
        return createCloudSecretStore({ region: required(env, 'PLATFORM_CLOUD_SECRETS_REGION', 'the region of the secrets manager'), prefix: optional(env, 'PLATFORM_CLOUD_SECRETS_PREFIX') ?? 'cairn/credentials/', kmsKeyId: optional(env, 'PLATFORM_CLOUD_SECRETS_KMS_KEY_ID'), endpoint: optional(env, 'PLATFORM_CLOUD_SECRETS_ENDPOINT'), clock: systemClock });
      }
      throw new CliError(`unknown secret store "${kind}": use db or cloud-secrets-manager`, 2);
    };
    const sealed = await docs.collection(CREDENTIAL_SECRETS_COLLECTION).find({});
    const credentialIds = [...new Set([...sealed.map((d) => d._id), ...(options.ids ?? '').split(',').map((s) => s.trim()).filter(Boolean)])];
    const result = await secretsMoveCommand({ from: open(options.from), to: open(options.to), credentialIds, apply: Boolean(options.apply), log: print });
    return { data: result, human: options.apply ? `moved ${result.moved.length}, unchanged ${result.unchanged.length}, failed ${result.failed.length}` : `would move ${result.wouldMove.length} (run again with --apply)` };
  } finally {
    await docs.close();
  }
}
