/**
 * Measures the digest against the YAML it comes from: tokens of the source file versus tokens of every
 * digest page an agent must read to see all of the model's information.
 *
 * Source: spec/semantic-query-service.md § What the service does (1) (3 to 5 times fewer tokens).
 */
import { PlatformError } from '../../ports/platform-error.ts';
import { formatModelProblem } from '../model.ts';
import { loadModelFile, type ModelFile } from '../osi/load-model-file.ts';
import { countTokens } from './count-tokens.ts';
import { defaultDigestPageSize, digestPagesToReadAll } from './digest-pages.ts';

/**
 * Tokens of one model's YAML and of its full digest.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export interface DigestMeasurement {
  model: string;
  /** Tokens of the YAML file as stored (comments such as licence headers included). */
  yamlTokens: number;
  /** Tokens of the YAML with comment-only lines and blank lines removed: a stricter baseline. */
  yamlTokensWithoutComments: number;
  /** Tokens of every digest page needed to read the whole model (see {@link digestPagesToReadAll}). */
  digestTokens: number;
  /** yamlTokens / digestTokens. */
  ratio: number;
  /** yamlTokensWithoutComments / digestTokens. */
  ratioWithoutComments: number;
  /** Number of tool calls (digest pages) counted. */
  calls: number;
}

/**
 * The YAML without comment-only lines and blank lines (trailing comments stay; they are rare).
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export function withoutCommentLines(yaml: string): string {
  return yaml.split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#')).join('\n');
}

/**
 * Measures each file's YAML tokens against its digest tokens.
 * @param options - `pageSize`: items per page (default 25, the project default)
 * @returns one measurement per file, in input order
 * @throws PlatformError `invalid_model` when a file does not load (its problems in the message)
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export function measureDigest(files: ModelFile[], options: { pageSize?: number } = {}): DigestMeasurement[] {
  const pageSize = options.pageSize ?? defaultDigestPageSize;
  return files.map((file) => {
    const loaded = loadModelFile(file);
    if (!loaded.model) {
      throw new PlatformError(
        'invalid_model',
        `${file.fileName} does not load: ${loaded.problems.map(formatModelProblem).join('; ')}`,
      );
    }
    const pages = digestPagesToReadAll(loaded.model, pageSize);
    const digestTokens = pages.reduce((sum, page) => sum + countTokens(page), 0);
    const yamlTokens = countTokens(file.text);
    const yamlTokensWithoutComments = countTokens(withoutCommentLines(file.text));
    return {
      model: loaded.model.name,
      yamlTokens,
      yamlTokensWithoutComments,
      digestTokens,
      ratio: yamlTokens / digestTokens,
      ratioWithoutComments: yamlTokensWithoutComments / digestTokens,
      calls: pages.length,
    };
  });
}
