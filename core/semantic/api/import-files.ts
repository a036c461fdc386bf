/**
 * Which files of a project directory count as model files, data files or neither: the rule of the CLI's
 * `cairn semantic import <dir>` (bins/cairn/semantic-import.ts), shared so the web app's Import shows and
 * uploads the same files. Pure: no imports, so the web app can bundle it.
 *
 * Source: spec/semantic-query-service.md § What the service does (2); docs/decisions.md D9 (Projects: import a project
 * directory).
 */

/** What one chosen file is for an import. */
export type ImportFileKind = 'model' | 'data' | 'ignored';

/** One file classified by {@link classifyImportPath}: its kind, the name it is saved under, and why it is ignored. */
export interface ClassifiedFile {
  kind: ImportFileKind;
  /** File name as saved (model file name or data file name); the base name for an ignored file. */
  name: string;
  /** Why the file is ignored, in plain words (only for `ignored`). */
  reason?: string;
}

/** Data file names the API accepts (core/semantic/sources.ts checks saves against it): letters, digits, `_`, `-`, `.`,
 * at most 100 characters, one of these extensions. */
export const dataFileNamePattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.(parquet|csv|tsv|json|jsonl|ndjson|duckdb)$/;
/** Model file names the API accepts (core/semantic/sources.ts checks saves against it): as data names, ending in
 * `.yaml` or `.yml`. */
export const modelFileNamePattern = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}\.ya?ml$/;

/**
 * The import rule, by a file's path relative to what was chosen (`/`-separated):
 * - In a project directory (the path has folders): a file directly in a folder named `models` ending in
 *   `.yaml`/`.yml` is a model file; a file directly in a folder named `data` is a data file (the CLI's rule:
 *   `<dir>/models/*.yaml` and `<dir>/data/*`). The `models`/`data` folder may be the top folder or one level
 *   below it (a dropped folder `flights/` holding `models/` and `data/`). Everything else is ignored.
 * - Loose files (no folder: picked or dropped one by one): `.yaml`/`.yml` files are model files; files with a
 *   data extension (.parquet, .csv, .tsv, .json, .jsonl, .ndjson, .duckdb) are data files.
 * Hidden files (starting with `.`) are ignored, and so is a file whose name the API would refuse, with the reason.
 */
export function classifyImportPath(path: string): ClassifiedFile {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  const name = parts[parts.length - 1] ?? path;
  if (name.startsWith('.')) return { kind: 'ignored', name, reason: 'hidden file' };
  const folders = parts.slice(0, -1);
  if (folders.length === 0) {
    if (/\.ya?ml$/i.test(name)) return checked('model', name);
    if (/\.(parquet|csv|tsv|json|jsonl|ndjson|duckdb)$/i.test(name)) return checked('data', name);
    return {
      kind: 'ignored',
      name,
      reason: 'neither a model file (.yaml) nor a data file (.parquet, .csv, .tsv, .json, .jsonl, .ndjson, .duckdb)',
    };
  }
  const parent = folders[folders.length - 1];
  if (folders.length <= 2 && parent === 'models') {
    return /\.ya?ml$/.test(name)
      ? checked('model', name)
      : { kind: 'ignored', name, reason: 'not a .yaml file in models/' };
  }
  if (folders.length <= 2 && parent === 'data') return checked('data', name);
  return { kind: 'ignored', name, reason: 'not directly in models/ or data/' };
}

function checked(kind: 'model' | 'data', name: string): ClassifiedFile {
  const pattern = kind === 'model' ? modelFileNamePattern : dataFileNamePattern;
  if (pattern.test(name)) return { kind, name };
  return {
    kind: 'ignored',
    name,
    reason: kind === 'model'
      ? 'the name is not accepted: use letters, digits, "_", "-", "." ending in .yaml'
      : 'the name is not accepted: use letters, digits, "_", "-", "." ending in .parquet, .csv, .tsv, .json, ' +
        '.jsonl, .ndjson or .duckdb',
  };
}
