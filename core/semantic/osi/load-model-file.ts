/**
 * Loading OSI model files: YAML → schema validation of the declared version → the internal model.
 * One model per file; the model's name is the file's base name. Every problem is returned with the file,
 * a JSON pointer and/or line:column, and a plain-language reason; a model with problems is never returned.
 *
 * Source: spec/semantic-query-service.md § What the service does (1), § Resources and their fields.
 */
import { type Document, LineCounter, parseDocument } from 'yaml';
import { acceptedOsiVersions, type LoadedModel, type ModelProblem, type OsiVersion } from '../model.ts';
import { normalizeModel, type OsiSemanticModel } from './normalize-model.ts';
import { type PointerProblem, schemaProblems } from './schema-problems.ts';

/**
 * A model source file: its name (e.g. `models/flights.yaml`) and YAML text.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export interface ModelFile {
  fileName: string;
  text: string;
}

/**
 * At most this many problems are listed per file; a last problem counts the rest.
 * Source: spec/semantic-query-service.md § What the service does (1).
 */
export const maxProblemsPerFile = 25;

const modelFileSuffix = /\.ya?ml$/i;

/**
 * The model name of a file: its base name without `.yaml`/`.yml` (`models/flights.yaml` → `flights`).
 * @returns undefined when the name does not end in .yaml or .yml or has nothing before it
 * Source: spec/semantic-query-service.md § Resources and their fields (semantic model name).
 */
export function modelNameOf(fileName: string): string | undefined {
  const base = fileName.split(/[\\/]/).pop() ?? '';
  if (!modelFileSuffix.test(base)) return undefined;
  const name = base.replace(modelFileSuffix, '');
  return name === '' ? undefined : name;
}

/** A problem before the model name is stamped on it. */
type FileProblem = Omit<ModelProblem, 'model'>;
type Located = (problem: PointerProblem) => FileProblem;

function locator(file: string, doc: Document, lines: LineCounter): Located {
  return ({ path, reason }) => {
    const segments = path === '' ? [] : path.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    for (let n = segments.length; n >= 0; n -= 1) {
      const node = doc.getIn(segments.slice(0, n), true) as { range?: [number, number, number] } | undefined;
      if (node?.range) {
        const { line, col } = lines.linePos(node.range[0]);
        return { file, path: path || '/', line, column: col, reason };
      }
    }
    return { file, path: path || '/', reason };
  };
}

function parseYaml(file: string, text: string): { doc?: Document; lines: LineCounter; problems: FileProblem[] } {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const problems = doc.errors.slice(0, 1).map((error) => {
    const { line, col } = lines.linePos(error.pos[0]);
    return { file, line, column: col, reason: `YAML syntax error: ${error.message.split('\n')[0]}` };
  });
  return { doc: problems.length === 0 ? doc : undefined, lines, problems };
}

/** The document as plain data; an Error when aliases expand too far (a YAML "billion laughs"). */
function toData(doc: Document): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function versionProblem(data: Record<string, unknown>): PointerProblem | undefined {
  const version = data.version;
  if ((acceptedOsiVersions as readonly unknown[]).includes(version)) return undefined;
  const accepted = acceptedOsiVersions.map((v) => `"${v}"`).join(' or ');
  const found = version === undefined ? 'no version key' : `version ${JSON.stringify(version)}`;
  const hint = typeof version === 'number' ? ' (write it in quotes: YAML reads it as a number)' : '';
  return { path: '/version', reason: `OSI version must be ${accepted}; found ${found}${hint}` };
}

function shapeProblems(data: Record<string, unknown>, version: OsiVersion): PointerProblem[] {
  const problems: PointerProblem[] = [];
  if ('ontology' in data || 'ontology_mappings' in data) {
    problems.push({
      path: '',
      reason: 'this is an OSI ontology document; a model file holds `version` and `semantic_model` only',
    });
  }
  const models = data.semantic_model;
  if (Array.isArray(models) && models.length !== 1) {
    const count = models.length === 0 ? 'no model' : `${models.length} models`;
    problems.push({
      path: '/semantic_model',
      reason:
        `semantic_model lists ${count}; a file must hold exactly one model: split it into one file per model (the ` +
        `file name is the model name)`,
    });
  }
  return [...problems, ...schemaProblems(data, version)];
}

function capped(problems: FileProblem[], file: string): FileProblem[] {
  if (problems.length <= maxProblemsPerFile) return problems;
  const rest = problems.length - maxProblemsPerFile;
  return [...problems.slice(0, maxProblemsPerFile), {
    file,
    reason: `${rest} more problem(s) not listed; fix these first`,
  }];
}

/**
 * Loads one OSI model file.
 * @param input - `fileName` (e.g. `models/flights.yaml`; its base name is the model name) and the YAML `text`
 * @returns `{ model, problems: [] }` when valid; otherwise `{ problems }` (at most {@link maxProblemsPerFile}
 *   plus one counting the rest): YAML syntax (line:column), the version (accepted: 0.1.1, 0.2.0.dev0),
 *   schema violations (JSON pointer + line:column), more or fewer than one model, extension data, duplicates
 * Source: spec/semantic-query-service.md § What the service does (1), § Resources and their fields.
 */
export function loadModelFile(input: ModelFile): LoadedModel {
  const name = modelNameOf(input.fileName);
  const model = name ?? input.fileName.split(/[\\/]/).pop() ?? input.fileName;
  const loaded = name === undefined
    ? {
      problems: [{
        file: input.fileName,
        reason: 'a model file name must end in .yaml or .yml; its base name is the model name',
      }],
    }
    : loadNamedFile(input, name);
  return { ...loaded, problems: loaded.problems.map((problem) => ({ ...problem, model })) };
}

function loadNamedFile(input: ModelFile, name: string): { model?: LoadedModel['model']; problems: FileProblem[] } {
  const file = input.fileName;
  const parsed = parseYaml(file, input.text);
  if (!parsed.doc) return { problems: parsed.problems };
  const locate = locator(file, parsed.doc, parsed.lines);
  const data = toData(parsed.doc);
  if (data instanceof Error) return { problems: [{ file, reason: `YAML could not be read: ${data.message}` }] };
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    return {
      problems: [{ file, path: '/', reason: 'the file must be a mapping with the keys version and semantic_model' }],
    };
  }
  const record = data as Record<string, unknown>;
  const badVersion = versionProblem(record);
  if (badVersion) return { problems: [locate(badVersion)] };
  const version = record.version as OsiVersion;
  const problems = shapeProblems(record, version);
  if (problems.length > 0) return { problems: capped(problems.map(locate), file) };
  const raw = (record.semantic_model as OsiSemanticModel[])[0];
  const normalized = normalizeModel(raw, { name, fileName: file, version });
  if (normalized.problems.length > 0) return { problems: capped(normalized.problems.map(locate), file) };
  return { model: normalized.model, problems: [] };
}
