/**
 * Token counting for digest measurements, with the o200k_base encoding (GPT-4o family) of gpt-tokenizer.
 * Used by the digest benchmark only; the tools never count tokens.
 *
 * Source: spec/semantic-query-service.md § What the service does (1) (3 to 5 times fewer tokens).
 */
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

/**
 * Number of o200k_base tokens in `text`.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export function countTokens(text: string): number {
  return countO200k(text);
}
