/**
 * One compact line per field for get_datasets:
 * `- name Type time "Label" = expression: description; values A|B; aka …; e.g. …; note: …`.
 * Empty parts are omitted; the expression only when it differs from the name; the label only when it says
 * more than the name.
 *
 * Source: spec/semantic-query-service.md § Tools (get_datasets: compact field lists).
 */
import type { Field } from '../model.ts';
import { aiContextParts, oneLine, quoteColumn } from './markdown.ts';
import { expressionText } from './section-rows.ts';

/** Identifier text without quotes, spacing and case (DuckDB resolves identifiers case-insensitively). */
const bareIdentifier = (text: string) => text.toLowerCase().replace(/[\s"`]+/g, '');
/** Label text reduced to letters and digits, to see whether it says more than the name. */
const wordsOnly = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');

/**
 * True when the field's expression is more than its own name (ignoring case, quotes and spacing).
 * Source: spec/semantic-query-service.md § Tools (get_datasets: expressions).
 */
export function showsExpression(field: Field): boolean {
  return bareIdentifier(field.expression) !== bareIdentifier(field.name);
}

function labelOf(field: Field): string | undefined {
  if (!field.label || wordsOnly(field.label) === wordsOnly(field.name)) return undefined;
  return `"${oneLine(field.label)}"`;
}

/**
 * Renders one field line.
 * Source: spec/semantic-query-service.md § Tools (get_datasets: data types, expressions, dimension info,
 * enums, examples, synonyms, instructions, AI context).
 */
export function fieldLine(field: Field): string {
  const head = [`- ${quoteColumn(field.name)}`];
  if (field.datatype) head.push(field.datatype);
  if (field.dimension?.isTime) head.push('time');
  const label = labelOf(field);
  if (label) head.push(label);
  if (showsExpression(field)) head.push(`= ${expressionText(field)}`);
  const parts: string[] = [];
  if (field.description) parts.push(oneLine(field.description));
  if (field.enums) parts.push(`values ${field.enums.map(oneLine).join('|')}`);
  parts.push(...aiContextParts(field.aiContext, field.sampleValues));
  return `${head.join(' ')}${parts.length > 0 ? `: ${parts.join('; ')}` : ''}`;
}
