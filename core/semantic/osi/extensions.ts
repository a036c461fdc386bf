/**
 * Reading the custom extensions cairn understands: the dataset `view_query` (vendor CAIRN or COMMON,
 * CAIRN wins) and field value lists (`enum`, `allowed_values`, `sample_values`, any vendor).
 * Every extension stays in the model unmodified; this module only reads them.
 *
 * Source: spec/semantic-query-service.md § What the service does (3), § Resources and their fields.
 */
import type { CustomExtension } from '../model.ts';
import type { PointerProblem } from './schema-problems.ts';

/**
 * Vendor names whose dataset-level extension may carry `view_query`, strongest first.
 * Source: spec/semantic-query-service.md § What the service does (3).
 */
export const viewQueryVendors = ['CAIRN', 'COMMON'] as const;
type ViewQueryVendor = (typeof viewQueryVendors)[number];

type JsonObjectResult = { ok: true; value: Record<string, unknown> } | { ok: false; reason: string };

/**
 * Parses extension `data` as a JSON object.
 * @returns the object, or a reason naming what is wrong (invalid JSON, or JSON that is not an object)
 * Source: spec/semantic-query-service.md § Resources and their fields (custom extension view_query).
 */
export function parseExtensionData(data: string): JsonObjectResult {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    return { ok: false, reason: `data is not valid JSON (${(error as Error).message})` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: 'data must be a JSON object, e.g. {"view_query": "SELECT ..."}' };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

function ownVendor(vendorName: string): ViewQueryVendor | undefined {
  const upper = vendorName.toUpperCase();
  return viewQueryVendors.find((v) => v === upper);
}

/**
 * Reads a dataset's view_query from its CAIRN and COMMON extensions (CAIRN wins when both hold one).
 * @param extensions - the dataset's `custom_extensions`
 * @param path - JSON pointer of the dataset, for problems
 * @returns the SQL (absent when no entry holds one) and problems: unparsable data, a view_query that is
 *   not a non-empty string, or two entries of the same vendor both holding one
 * Source: spec/semantic-query-service.md § What the service does (3), § States and transitions.
 */
export function readViewQuery(
  extensions: CustomExtension[],
  path: string,
): { viewQuery?: string; problems: PointerProblem[] } {
  const found: Partial<Record<ViewQueryVendor, string>> = {};
  const problems: PointerProblem[] = [];
  extensions.forEach((extension, index) => {
    const vendor = ownVendor(extension.vendor_name);
    if (!vendor) return;
    const at = `${path}/custom_extensions/${index}/data`;
    const entry = viewQueryOf(extension.data, vendor);
    if (entry === undefined) return;
    if (typeof entry !== 'string') problems.push({ path: at, reason: entry.reason });
    else if (found[vendor] !== undefined) {
      problems.push({ path: at, reason: `a second ${vendor} view_query for this dataset; keep only one` });
    } else found[vendor] = entry;
  });
  return { viewQuery: found.CAIRN ?? found.COMMON, problems };
}

function viewQueryOf(data: string, vendor: ViewQueryVendor): string | { reason: string } | undefined {
  const parsed = parseExtensionData(data);
  if (!parsed.ok) return { reason: `${vendor} extension: ${parsed.reason}` };
  if (!('view_query' in parsed.value)) return undefined;
  const sql = parsed.value.view_query;
  return typeof sql === 'string' && sql.trim() !== '' ? sql : { reason: 'view_query must be a non-empty SQL string' };
}

/**
 * Checks CAIRN extensions outside datasets: their data must be a JSON object (cairn owns that vendor name).
 * Other vendors' data is never judged.
 * @param path - JSON pointer of the element holding the extensions
 * Source: spec/semantic-query-service.md § Resources and their fields.
 */
export function cairnExtensionProblems(extensions: CustomExtension[], path: string): PointerProblem[] {
  const problems: PointerProblem[] = [];
  extensions.forEach((extension, index) => {
    if (extension.vendor_name.toUpperCase() !== 'CAIRN') return;
    const parsed = parseExtensionData(extension.data);
    if (!parsed.ok) {
      problems.push({ path: `${path}/custom_extensions/${index}/data`, reason: `CAIRN extension: ${parsed.reason}` });
    }
  });
  return problems;
}

/**
 * Collects a field's allowed values (`enum`, `allowed_values`) and sample values (`sample_values`) from the
 * JSON data of its extensions, any vendor; unparsable data is skipped (it belongs to that vendor).
 * @returns de-duplicated values as text, each list absent when empty
 * Source: spec/semantic-query-service.md § Resources and their fields (enums, examples).
 */
export function readFieldValues(extensions: CustomExtension[]): { enums?: string[]; sampleValues?: string[] } {
  const enums: string[] = [];
  const samples: string[] = [];
  for (const extension of extensions) {
    const parsed = parseExtensionData(extension.data);
    if (!parsed.ok) continue;
    enums.push(...valuesOf(parsed.value.enum), ...valuesOf(parsed.value.allowed_values));
    samples.push(...valuesOf(parsed.value.sample_values));
  }
  return { enums: nonEmptyUnique(enums), sampleValues: nonEmptyUnique(samples) };
}

function valuesOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
}

function nonEmptyUnique(values: string[]): string[] | undefined {
  return values.length === 0 ? undefined : [...new Set(values)];
}
