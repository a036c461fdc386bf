/**
 * Turns one schema-valid OSI `semantic_model` entry into the internal {@link SemanticModel} shape:
 * camelCase keys, normalised AI context, the chosen expression dialect, resolved time dimensions,
 * view_query and field values read from extensions, every extension kept unmodified.
 *
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
import type {
  AIContext,
  CustomExtension,
  Dataset,
  DialectExpression,
  Field,
  Metric,
  OsiVersion,
  Relationship,
  SemanticModel,
} from '../model.ts';
import { cairnExtensionProblems, readFieldValues, readViewQuery } from './extensions.ts';
import type { PointerProblem } from './schema-problems.ts';

type OsiAIContext =
  | string
  | ({ instructions?: string; synonyms?: string[]; examples?: string[] } & Record<string, unknown>);
interface OsiCommon {
  name: string;
  description?: string;
  ai_context?: OsiAIContext;
  custom_extensions?: CustomExtension[];
}
interface OsiExpression {
  dialects: DialectExpression[];
}
interface OsiField extends OsiCommon {
  expression: OsiExpression;
  dimension?: { is_time?: boolean };
  label?: string;
  datatype?: string;
}
interface OsiDataset extends OsiCommon {
  source: string;
  primary_key?: string[];
  unique_keys?: string[][];
  fields?: OsiField[];
}
interface OsiRelationship extends OsiCommon {
  from: string;
  to: string;
  from_columns: string[];
  to_columns: string[];
}
interface OsiMetric extends OsiCommon {
  expression: OsiExpression;
  datatype?: string;
}
/**
 * One entry of an OSI document's `semantic_model` list, as the schema allows it.
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
export interface OsiSemanticModel extends OsiCommon {
  datasets: OsiDataset[];
  relationships?: OsiRelationship[];
  metrics?: OsiMetric[];
}

const temporalTypes = new Set(['Date', 'Time', 'DateTime', 'DateTimeTz']);

/** Drops keys whose value is undefined, so optional parts are absent rather than present-but-empty. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/**
 * Normalises OSI AI context: the string form becomes `instructions`; unknown keys go to `other`.
 * @returns undefined when there is nothing to keep
 * Source: spec/semantic-query-service.md § Resources and their fields (AI context).
 */
export function normalizeAIContext(raw: OsiAIContext | undefined): AIContext | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : { instructions: raw };
  const { instructions, synonyms, examples, ...rest } = raw;
  const other = Object.keys(rest).length > 0 ? rest : undefined;
  const context = compact({ instructions, synonyms, examples, other });
  return Object.keys(context).length === 0 ? undefined : context;
}

/**
 * Picks the expression to show: ANSI_SQL when present, else the first dialect; keeps every dialect.
 * Source: spec/semantic-query-service.md § Resources and their fields (expression).
 */
export function pickExpression(raw: OsiExpression): Pick<Field, 'expression' | 'expressionDialect' | 'dialects'> {
  const chosen = raw.dialects.find((d) => d.dialect === 'ANSI_SQL') ?? raw.dialects[0];
  return { expression: chosen.expression, expressionDialect: chosen.dialect, dialects: raw.dialects };
}

function normalizeField(raw: OsiField): Field {
  const extensions = raw.custom_extensions ?? [];
  const isTime = raw.dimension?.is_time ?? temporalTypes.has(raw.datatype ?? '');
  return compact({
    name: raw.name,
    ...pickExpression(raw.expression),
    datatype: raw.datatype,
    dimension: raw.dimension ? { isTime } : undefined,
    label: raw.label,
    description: raw.description,
    aiContext: normalizeAIContext(raw.ai_context),
    ...readFieldValues(extensions),
    extensions,
  });
}

function normalizeDataset(raw: OsiDataset, path: string, problems: PointerProblem[]): Dataset {
  const extensions = raw.custom_extensions ?? [];
  const fields = raw.fields ?? [];
  const read = readViewQuery(extensions, path);
  problems.push(...read.problems);
  fields.forEach((f, i) => problems.push(...cairnExtensionProblems(f.custom_extensions ?? [], `${path}/fields/${i}`)));
  problems.push(...duplicateNames(fields, `${path}/fields`, 'field'));
  return compact({
    name: raw.name,
    source: raw.source,
    primaryKey: raw.primary_key,
    uniqueKeys: raw.unique_keys,
    description: raw.description,
    aiContext: normalizeAIContext(raw.ai_context),
    fields: fields.map(normalizeField),
    viewQuery: read.viewQuery,
    extensions,
  });
}

function normalizeRelationship(raw: OsiRelationship): Relationship {
  return compact({
    name: raw.name,
    from: raw.from,
    to: raw.to,
    fromColumns: raw.from_columns,
    toColumns: raw.to_columns,
    aiContext: normalizeAIContext(raw.ai_context),
    extensions: raw.custom_extensions ?? [],
  });
}

function normalizeMetric(raw: OsiMetric): Metric {
  return compact({
    name: raw.name,
    ...pickExpression(raw.expression),
    description: raw.description,
    datatype: raw.datatype,
    aiContext: normalizeAIContext(raw.ai_context),
    extensions: raw.custom_extensions ?? [],
  });
}

/** Problems for names used twice (case-insensitive, as SQL identifiers in the query engine are). */
function duplicateNames(items: { name: string }[], path: string, what: string): PointerProblem[] {
  const firstIndex = new Map<string, number>();
  const problems: PointerProblem[] = [];
  items.forEach((item, index) => {
    const key = item.name.toLowerCase();
    const first = firstIndex.get(key);
    if (first === undefined) firstIndex.set(key, index);
    else {problems.push({
        path: `${path}/${index}/name`,
        reason: `${what} name "${item.name}" is already used at ${path}/${first}`,
      });}
  });
  return problems;
}

function unpairedKeys(relationships: OsiRelationship[], path: string): PointerProblem[] {
  return relationships.flatMap((r, i) =>
    r.from_columns.length === r.to_columns.length ? [] : [{
      path: `${path}/relationships/${i}/to_columns`,
      reason:
        `from_columns has ${r.from_columns.length} column(s) but to_columns has ${r.to_columns.length}; they pair ` +
        `up in order, so list as many on each side`,
    }]
  );
}

function elementExtensionProblems(raw: OsiSemanticModel, path: string): PointerProblem[] {
  return [
    ...cairnExtensionProblems(raw.custom_extensions ?? [], path),
    ...(raw.relationships ?? []).flatMap((r, i) =>
      cairnExtensionProblems(r.custom_extensions ?? [], `${path}/relationships/${i}`)
    ),
    ...(raw.metrics ?? []).flatMap((m, i) => cairnExtensionProblems(m.custom_extensions ?? [], `${path}/metrics/${i}`)),
  ];
}

/**
 * Normalises one schema-valid OSI semantic model.
 * @param raw - the `semantic_model[0]` entry
 * @param source - model name (file base name), file name and the document's OSI version
 * @returns the model and the problems found beyond the schema (extension data, duplicate names, unpaired
 *   relationship columns)
 * Source: spec/semantic-query-service.md § Resources and their fields, § What the service does (3).
 */
export function normalizeModel(
  raw: OsiSemanticModel,
  source: { name: string; fileName: string; version: OsiVersion },
): { model: SemanticModel; problems: PointerProblem[] } {
  const path = '/semantic_model/0';
  const problems: PointerProblem[] = [...duplicateNames(raw.datasets, `${path}/datasets`, 'dataset')];
  const datasets = raw.datasets.map((d, i) => normalizeDataset(d, `${path}/datasets/${i}`, problems));
  problems.push(
    ...duplicateNames(raw.metrics ?? [], `${path}/metrics`, 'metric'),
    ...unpairedKeys(raw.relationships ?? [], path),
  );
  problems.push(...elementExtensionProblems(raw, path));
  const model: SemanticModel = compact({
    name: source.name,
    declaredName: raw.name,
    fileName: source.fileName,
    version: source.version,
    description: raw.description,
    aiContext: normalizeAIContext(raw.ai_context),
    datasets,
    relationships: (raw.relationships ?? []).map(normalizeRelationship),
    metrics: (raw.metrics ?? []).map(normalizeMetric),
    extensions: raw.custom_extensions ?? [],
  });
  return { model, problems };
}
