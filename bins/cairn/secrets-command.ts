/**
 * `cairn secrets move`: the operator tool that moves credentials' secrets from one secret store to
 * another when a deployment switches PLATFORM_SECRET_STORE (stop the service first; run again to move
 * a credential reported as changed).
 *
 * Source: spec/platform-service.md § Authentication rules 10–11.
 */
import type { SecretStore } from '../../core/ports/secret-store.ts';
import { credentialsLogLine } from '../../core/secret/credentials-log-line.ts';

/** Options of {@link secretsMoveCommand}. */
export interface SecretsMoveOptions {
  /** The store the secrets are in now. */
  from: SecretStore;
  /** The store the deployment switches to. */
  to: SecretStore;
  /** Credentials to consider (every credential record's id). */
  credentialIds: string[];
  /** false (default for the command): only report what would move; true: copy. */
  apply: boolean;
  /** Receives each output line (report lines and one `[credentials] moved …` line per credential moved). */
  log: (line: string) => void;
  /** Member named on the `[credentials]` lines; default `operator (cairn secrets move)`. */
  operator?: string;
  /** Environment of a credential for its `[credentials]` line; default `-` when unknown. */
  environmentOf?: (credentialId: string) => string | undefined;
}

/** What a run found, by credential id. */
export interface SecretsMoveResult {
  /** Copied in this run (apply only). */
  moved: string[];
  /** Would be copied (dry run only): absent from the target or different there. */
  wouldMove: string[];
  /** Already the same in the target. */
  unchanged: string[];
  /** No secret in the source store. */
  missing: string[];
  /** Could not be read or written, with the error's code. */
  failed: { credentialId: string; code: string }[];
}

/**
 * Compares each credential's secret in `from` with `to` and, with `apply`, copies those absent from or
 * different in `to` (a new version there). Nothing is deleted from `from`. A second run reports only
 * credentials whose values changed since. Never prints a value.
 *
 * @returns the credentials per outcome; the run goes on past a failing credential
 *
 * Source: spec/platform-service.md § Authentication rule 11 (switching stores moves secrets with an operator tool with an apply switch).
 */
export async function secretsMoveCommand(options: SecretsMoveOptions): Promise<SecretsMoveResult> {
  const result: SecretsMoveResult = { moved: [], wouldMove: [], unchanged: [], missing: [], failed: [] };
  for (const credentialId of options.credentialIds) {
    try {
      await moveOne(options, credentialId, result);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'error';
      result.failed.push({ credentialId, code });
      options.log(`failed ${credentialId}: ${code}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
  options.log(summary(options, result));
  return result;
}

async function moveOne(options: SecretsMoveOptions, credentialId: string, result: SecretsMoveResult): Promise<void> {
  const source = await options.from.get(credentialId);
  if (source === null) {
    result.missing.push(credentialId);
    options.log(`skipped ${credentialId}: no secret in the ${options.from.kind} store`);
    return;
  }
  const target = await options.to.get(credentialId);
  if (target !== null && sameFields(source, target)) {
    result.unchanged.push(credentialId);
    return;
  }
  const why = target === null ? `not yet in the ${options.to.kind} store` : `changed since it was last moved`;
  if (!options.apply) {
    result.wouldMove.push(credentialId);
    options.log(`would move ${credentialId} (${why})`);
    return;
  }
  const { version } = await options.to.put(credentialId, source);
  result.moved.push(credentialId);
  options.log(`moved ${credentialId} (${why}) as version ${version}`);
  const environment = options.environmentOf?.(credentialId) ?? '-';
  options.log(credentialsLogLine({ change: 'moved', credentialId, environment, member: options.operator ?? 'operator (cairn secrets move)' }));
}

/** True when both hold the same field names with the same values. */
function sameFields(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

function summary(options: SecretsMoveOptions, r: SecretsMoveResult): string {
  const route = `from the ${options.from.kind} store to the ${options.to.kind} store`;
  const rest = `${r.unchanged.length} unchanged, ${r.missing.length} without a secret, ${r.failed.length} failed`;
  if (options.apply) return `moved ${r.moved.length} credentials ${route}; ${rest}`;
  const next = r.wouldMove.length > 0 ? '; stop the service, then run again with --apply to move them' : '';
  return `dry run: ${r.wouldMove.length} credentials would move ${route}; ${rest}${next}`;
}
