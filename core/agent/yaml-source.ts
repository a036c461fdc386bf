/**
 * YAML sources with positions: a parsed document (or its first syntax error with line and column) and a
 * locator from a JSON-pointer-like key (`/states/answer/transitions/0/to`) to the line and column of the
 * node it names. Front matter (`---` … `---` at the top of a Markdown file) is parsed the same way, with
 * lines counted in the whole file.
 *
 * Source: docs/agent-format.md (every message names file, line and key).
 */
import { type Document, isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';

/**
 * One problem of an agent repository: the `file` (path relative to the repository), the 1-based `line`
 * and `column` it starts at (1:1 for a whole file), the `key` (a JSON-pointer-like path, `/` for the
 * document itself) and a `message` that says what is wrong and what to do.
 * Source: docs/agent-format.md; docs/decisions.md D7 (one strict validator).
 */
export interface AgentProblem {
  file: string;
  line: number;
  column: number;
  key: string;
  message: string;
}

/** A problem before its position is looked up: key and message. */
export interface KeyedProblem {
  key: string;
  message: string;
  /** Point at the key itself rather than its value (unknown keys). */
  atKey?: boolean;
}

/** A parsed YAML source: its plain data and a way to place a key. */
export interface YamlSource {
  file: string;
  data: unknown;
  /** The problem at `key`, placed at its line and column (the nearest existing parent when it is absent). */
  place(problem: KeyedProblem): AgentProblem;
}

/** Escapes a key segment for a pointer (`~` → `~0`, `/` → `~1`). */
export const pointerSegment = (segment: string | number): string =>
  String(segment).replace(/~/g, '~0').replace(/\//g, '~1');

/** Joins segments into a pointer (`['states', 'a']` → `/states/a`; `[]` → `/`). */
export const pointer = (
  ...segments: (string | number)[]
): string => (segments.length === 0 ? '/' : segments.map((s) => `/${pointerSegment(s)}`).join(''));

const segmentsOf = (
  key: string,
): string[] => (key === '/' || key === ''
  ? []
  : key.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')));

type Ranged = { range?: [number, number, number] | null };

/** The node at `segments`, and the key node of the last map pair when `atKey`; the nearest parent when absent. */
function findNode(root: Node | null, segments: string[], atKey: boolean): Ranged | undefined {
  let node: Node | null = root;
  let last: Ranged | undefined = root ?? undefined;
  for (const [i, segment] of segments.entries()) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === segment);
      if (!pair) return last;
      if (atKey && i === segments.length - 1 && isScalar(pair.key)) return pair.key;
      node = pair.value as Node | null;
      last = (node ?? pair.key) as Ranged;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)] as Node | undefined;
      if (!item) return last;
      node = item;
      last = item;
    } else {
      return last;
    }
  }
  return last;
}

/**
 * Parses one YAML text.
 * @param file - the path reported in problems
 * @param text - the YAML
 * @param lineOffset - lines before the text in its file (front matter starts on line 2: offset 1)
 * @returns the source, or the first syntax error (later ones usually follow from it) as a problem with its line
 */
export function parseYamlSource(file: string, text: string, lineOffset = 0): YamlSource | AgentProblem {
  const lines = new LineCounter();
  const doc: Document = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    const { line, col } = lines.linePos(error.pos[0]);
    const what = error.message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
    return {
      file,
      line: line + lineOffset,
      column: col,
      key: '/',
      message: `YAML syntax error: ${what}; fix the YAML at this line (indentation, quotes, a missing colon)`,
    };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (caught) {
    return {
      file,
      line: 1 + lineOffset,
      column: 1,
      key: '/',
      message: `YAML could not be read (${
        caught instanceof Error ? caught.message : String(caught)
      }); write the values out instead of using aliases`,
    };
  }
  const place = ({ key, message, atKey }: KeyedProblem): AgentProblem => {
    const node = findNode(doc.contents as Node | null, segmentsOf(key), atKey === true);
    const at = node?.range ? lines.linePos(node.range[0]) : { line: 1, col: 1 };
    return { file, line: at.line + lineOffset, column: at.col, key: key === '' ? '/' : key, message };
  };
  return { file, data, place };
}

/** True when the parse gave a problem rather than a source. */
export const isProblem = (parsed: YamlSource | AgentProblem): parsed is AgentProblem => 'message' in parsed;

/**
 * Splits a Markdown file into its YAML front matter and body. The front matter is the text between a
 * first line `---` and the next line `---` (or `...`).
 * @returns `{ yaml, body }`, or undefined when the file has no front matter
 */
export function splitFrontMatter(text: string): { yaml: string; body: string } | undefined {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  if (!normalized.startsWith('---\n')) return undefined;
  const end = normalized.slice(4).search(/^(---|\.\.\.)[ \t]*$/m);
  if (end < 0) return undefined;
  const yaml = normalized.slice(4, 4 + end);
  const body = normalized.slice(4 + end).replace(/^(---|\.\.\.)[ \t]*\n?/, '');
  return { yaml, body };
}
