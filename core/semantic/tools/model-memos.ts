/**
 * What execute_query works out per model and is the same on every call of that model: the validator's verdict on a
 * SQL text and the scope name. Each is kept on the model object of an assembled plane, which never changes (a new
 * publish or a saved change assembles new objects), so the model's version is part of the key by construction, and
 * another project can never time whether this project's texts were seen: nothing is shared across model objects.
 *
 * Source: spec/semantic-query-service.md § Query validation; docs/decisions.md D18 (fixed costs of the query
 * path).
 */
import type { ValidatedQuery } from '../query-validation/index.ts';
import type { SemanticModel } from '../model.ts';

/** Passing verdicts kept per model object at most (the least recently used is dropped first). */
export const maxRememberedVerdicts = 256;
/** Longer SQL texts are validated every time (as the parser does not remember their trees either). */
export const maxRememberedVerdictChars = 8_192;

const verdicts = new WeakMap<SemanticModel, Map<string, ValidatedQuery>>();

/**
 * The verdict of `validate` on `sql` for `model` in `partition` (the project, as the parser partitions its cache): a
 * passing verdict given before for the same text, model object and partition, else `validate()`'s (kept when it
 * passes: a refusal is never kept, so a text refused for a passing reason, such as an engine restart during its
 * parse, is validated again next time).
 * @throws whatever `validate` throws (PlatformError `query_rejected`, `query_parse_error`, …)
 */
export async function rememberedVerdict(
  model: SemanticModel,
  { partition, sql }: { partition: string; sql: string },
  validate: () => Promise<ValidatedQuery>,
): Promise<ValidatedQuery> {
  // A newline never occurs in a partition (a project id).
  const key = `${partition}\n${sql}`;
  let kept = verdicts.get(model);
  const known = kept?.get(key);
  if (kept && known) {
    kept.delete(key);
    kept.set(key, known);
    return { ...known };
  }
  const verdict = await validate();
  if (sql.length > maxRememberedVerdictChars) return verdict;
  if (!kept) verdicts.set(model, kept = new Map());
  kept.set(key, { ...verdict });
  if (kept.size > maxRememberedVerdicts) kept.delete(kept.keys().next().value as string);
  return verdict;
}

const scopeNames = new WeakMap<SemanticModel, Map<string, Promise<string>>>();

/**
 * The scope name of `model` for `owner` (the project and plane it was assembled for), worked out by `name` on the
 * first call and kept on the model object (a failed one is asked again next time).
 */
export function rememberedScopeName(model: SemanticModel, owner: string, name: () => Promise<string>): Promise<string> {
  let kept = scopeNames.get(model);
  if (!kept) scopeNames.set(model, kept = new Map());
  let scope = kept.get(owner);
  if (scope === undefined) {
    const made = name();
    kept.set(owner, made);
    made.catch(() => kept.delete(owner));
    scope = made;
  }
  return scope;
}
